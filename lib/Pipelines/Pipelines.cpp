//===- Pipelines.cpp - memplan's registered pipelines ---------------------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Pipelines/Pipelines.h"
#include "memplan/Conversion/Passes.h"
#include "memplan/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::memplan;

/// Appends an upstream pipeline given in textual form; a failure here is a
/// bug in memplan, not in the input.
static void appendUpstream(OpPassManager &pm, const llvm::Twine &text) {
  std::string pipeline = text.str();
  std::string error;
  llvm::raw_string_ostream os(error);
  if (failed(parsePassPipeline(pipeline, pm, os)))
    llvm::report_fatal_error(llvm::Twine("memplan: bad upstream pipeline '") +
                             pipeline + "': " + error);
}

void mlir::memplan::buildPreparePipeline(OpPassManager &pm) {
  pm.addPass(createDropTransformScriptsPass());
  // Elementwise arith/math ops on tensors become linalg.generic, which
  // bufferizes into a destination the lifetime analysis sees.
  appendUpstream(pm, "convert-elementwise-to-linalg");
  pm.addPass(createLowerPackUnpackPass());
}

void mlir::memplan::buildLowerToLLVMPipeline(OpPassManager &pm) {
  // Vector ops go through scf loops (transfers) before scf is lowered; math
  // ops without an LLVM intrinsic (erf, ...) become libm calls, which the
  // host process resolves (mlir-runner links libm).
  appendUpstream(pm, "func.func(convert-linalg-to-loops,lower-vector-mask),"
                     "convert-vector-to-scf,"
                     "expand-strided-metadata,lower-affine,convert-scf-to-cf,"
                     "convert-math-to-llvm,convert-math-to-libm,"
                     "convert-vector-to-llvm,finalize-memref-to-llvm,"
                     "convert-arith-to-llvm,convert-ub-to-llvm,"
                     "convert-func-to-llvm,convert-cf-to-llvm,"
                     "reconcile-unrealized-casts");
}

void mlir::memplan::buildLowerToNVVMPipeline(
    OpPassManager &pm, const LowerToNVVMOptions &options) {
  // Functions returning buffers equivalent to arguments (donated results)
  // return nothing: a step that updates its parameters in place allocates no
  // result buffers.
  appendUpstream(pm, "drop-equivalent-buffer-results");
  pm.addPass(createConvertMemplanToGPUPass());
  GPUMapLoopsPassOptions map;
  map.blockSize = options.blockSize;
  pm.addPass(createGPUMapLoopsPass(map));
  // No canonicalization between mapping and conversion: it would fold the
  // one-iteration loops the mapping relies on.
  appendUpstream(pm, "func.func(convert-parallel-loops-to-gpu),"
                     "gpu-kernel-outlining,func.func(gpu-async-region)");
  // The rest mirrors upstream's gpu-lower-to-nvvm-pipeline, with the
  // toolkit path and the format passed through.
  std::string target =
      llvm::formatv("chip={0} features={1} O={2}", options.chip.getValue(),
                    options.features.getValue(), options.optLevel.getValue());
  std::string binary = "format=" + options.format.getValue();
  if (!options.toolkit.empty())
    binary += " toolkit=" + options.toolkit.getValue();
  appendUpstream(pm, "convert-nvgpu-to-nvvm,convert-vector-to-scf,"
                     "convert-scf-to-cf,convert-nvvm-to-llvm,"
                     "convert-func-to-llvm,expand-strided-metadata,"
                     "nvvm-attach-target{" +
                         target +
                         "},lower-affine,convert-arith-to-llvm,"
                         "convert-index-to-llvm,canonicalize,cse,"
                         "gpu.module(strip-debuginfo,convert-gpu-to-nvvm,"
                         "llvm-optimize-for-nvvm-target,canonicalize,cse,"
                         "reconcile-unrealized-casts),"
                         "gpu-to-llvm,gpu-module-to-binary{" +
                         binary +
                         "},convert-math-to-llvm,canonicalize,cse,"
                         "reconcile-unrealized-casts");
}

void mlir::memplan::buildMemplanPipeline(
    OpPassManager &pm, const MemplanPipelineOptions &options) {
  buildPreparePipeline(pm);
  // Loop-carried buffers written at memref level get two alternating slots
  // (one-shot-bufferize refuses to make them from tensors).
  pm.addPass(createDoubleBufferPass());
  // Work nobody needs (a frozen layer's weight gradient) takes no arena space.
  pm.addPass(createRemoveDeadWorkPass());
  AnnotateLifetimesPassOptions annotate;
  annotate.strict = options.strict;
  pm.addPass(createAnnotateLifetimesPass(annotate));
  if (options.budget > 0 || !options.policy.empty()) {
    InsertRematPassOptions remat;
    remat.budget = options.budget;
    remat.policy = options.policy;
    remat.checkArena = true;
    remat.alignment = options.alignment;
    remat.algorithm = options.algorithm;
    remat.workLimit = options.workLimit;
    remat.timeLimit = options.timeLimit;
    pm.addPass(createInsertRematPass(remat));
  }
  pm.addPass(createMaterializeRematPass());
  appendUpstream(pm, "one-shot-bufferize{bufferize-function-boundaries "
                     "function-boundary-type-conversion=identity-layout-map}");
  if (options.target == PipelineTarget::NVVM)
    appendUpstream(pm, "drop-equivalent-buffer-results");
  PackArenaPassOptions pack;
  pack.algorithm = options.algorithm;
  pack.alignment = options.alignment;
  pack.workLimit = options.workLimit;
  pack.timeLimit = options.timeLimit;
  pack.report = options.report;
  pack.html = options.html;
  pack.explain = options.explain;
  pack.strict = options.strict;
  pm.addPass(createPackArenaPass(pack));
  pm.addPass(createVerifyPlanPass());
  VerifyLoweredPassOptions lowered;
  switch (options.target) {
  case PipelineTarget::CPU:
    pm.addPass(createConvertMemplanToMemRefPass());
    buildLowerToLLVMPipeline(pm);
    lowered.target = "cpu";
    break;
  case PipelineTarget::NVVM: {
    LowerToNVVMOptions nvvm;
    nvvm.chip = options.chip;
    nvvm.features = options.features;
    nvvm.format = options.format;
    nvvm.toolkit = options.toolkit;
    nvvm.optLevel = options.optLevel;
    nvvm.blockSize = options.blockSize;
    buildLowerToNVVMPipeline(pm, nvvm);
    lowered.target = "nvvm";
    break;
  }
  }
  pm.addPass(createVerifyLoweredPass(lowered));
}

void mlir::memplan::registerMemplanPipelines() {
  PassPipelineRegistration<MemplanPipelineOptions>(
      "memplan-pipeline",
      "The whole memplan flow for a training step in linalg-on-tensors: "
      "prepare (memplan-prepare), two slots for loop-carried buffers "
      "(memplan-double-buffer), erase dead work (memplan-remove-dead-work), "
      "annotate lifetimes, one-shot-bufferize, pack "
      "one arena per function, "
      "verify the plan, then lower to the LLVM dialect for the host "
      "(target=cpu, ready for mlir-runner) or to GPU kernels and host code "
      "calling memplan's CUDA runtime (target=nvvm; memplan-compile links "
      "it); then check that only the target's dialects are left "
      "(memplan-verify-lowered)",
      buildMemplanPipeline);
  PassPipelineRegistration<>(
      "memplan-prepare",
      "Upstream preparation of a linalg-on-tensors program for planning and "
      "bufferization, used for planned and unplanned programs alike: drop "
      "transform scripts (memplan-drop-transform-scripts), elementwise "
      "arith/math ops on tensors to linalg (convert-elementwise-to-linalg), "
      "linalg.pack/unpack to pad, reshape, transpose and slices "
      "(memplan-lower-pack-unpack)",
      buildPreparePipeline);
  PassPipelineRegistration<>(
      "memplan-lower-to-llvm",
      "Upstream lowering of a memref-level program to the LLVM dialect "
      "(linalg to loops, vector.mask to masked ops, vector transfers to "
      "loops, strided metadata, affine, "
      "scf to cf, math to LLVM intrinsics or libm calls, vector, memref, "
      "arith, ub, func, cf to LLVM), used for planned and unplanned programs "
      "alike",
      buildLowerToLLVMPipeline);
  PassPipelineRegistration<LowerToNVVMOptions>(
      "memplan-lower-to-nvvm",
      "Device lowering of a memref-level program, planned or not "
      "(drop-equivalent-buffer-results, convert-memplan-to-gpu, "
      "memplan-gpu-map-loops, convert-parallel-loops-to-gpu, "
      "gpu-kernel-outlining, gpu-async-region, then upstream's NVVM "
      "lowering and gpu-module-to-binary); used for planned and unplanned "
      "programs alike",
      buildLowerToNVVMPipeline);
}
