//===- Pipelines.cpp - memplan's registered pipelines ---------------------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Pipelines/Pipelines.h"
#include "memplan/Conversion/Passes.h"
#include "memplan/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::memplan;

// Every stage is built from the passes' create functions: nothing is parsed
// from text or looked up in the global registry, so an embedder needs to
// register nothing but the dialects it parses.

void mlir::memplan::buildPreparePipeline(OpPassManager &pm) {
  pm.addPass(createDropTransformScriptsPass());
  // What upstream tosa-to-linalg leaves in linalg.generic bodies
  // (tosa.apply_scale, from tosa.rescale: quantized programs) and tosa.const
  // become arith; modules without TOSA ops are left alone.
  pm.addPass(createLowerTosaLeftoversPass());
  // Elementwise arith/math ops on tensors become linalg.generic, which
  // bufferizes into a destination the lifetime analysis sees.
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createLowerPackUnpackPass());
}

void mlir::memplan::buildLowerToLLVMPipeline(OpPassManager &pm) {
  // Vector ops go through scf loops (transfers) before scf is lowered; math
  // ops without an LLVM intrinsic (erf, ...) become libm calls, which the
  // host process resolves (mlir-runner links libm).
  // convert-linalg-to-loops works on any op: at module level it reaches the
  // functions of nested modules too. lower-vector-mask is anchored on
  // functions, so it reaches the top-level ones only (a vector.mask left in
  // a nested module is reported by memplan-verify-lowered).
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addNestedPass<func::FuncOp>(vector::createLowerVectorMaskPass());
  pm.addPass(createConvertVectorToSCFPass());
  // Upstream's expand-strided-metadata crashes on an expand_shape with two
  // dynamic sizes in one group (LLVM 22): those become reinterpret_casts.
  pm.addPass(createLowerDynamicExpandShapePass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // A failed cf.assert (a bounded plan run above its bounds) prints on
  // stderr, which abort does not lose, not through upstream's puts.
  pm.addPass(createLowerAssertsPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::memplan::buildLowerToNVVMPipeline(
    OpPassManager &pm, const LowerToNVVMOptions &options) {
  // Functions returning buffers equivalent to arguments (donated results)
  // return nothing: a step that updates its parameters in place allocates no
  // result buffers.
  pm.addPass(bufferization::createDropEquivalentBufferResultsPass());
  pm.addPass(createConvertMemplanToGPUPass());
  GPUMapLoopsPassOptions map;
  map.blockSize = options.blockSize;
  pm.addPass(createGPUMapLoopsPass(map));
  // No canonicalization between mapping and conversion: it would fold the
  // one-iteration loops the mapping relies on.
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  // The rest mirrors upstream's gpu-lower-to-nvvm-pipeline, with the
  // toolkit path and the format passed through.
  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createLowerAssertsPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  // Upstream's expand-strided-metadata crashes on an expand_shape with two
  // dynamic sizes in one group (LLVM 22): those become reinterpret_casts.
  pm.addPass(createLowerDynamicExpandShapePass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = std::min(options.optLevel.getValue(), 3u);
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createStripDebugInfoPass());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(LLVM::createNVVMOptimizeForTargetPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.toolkitPath = options.toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
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
  if (options.budget > 0 || options.policy != RematPolicyChoice::Auto) {
    InsertRematPassOptions remat;
    remat.budget = options.budget;
    remat.policy = options.policy;
    remat.checkArena = true;
    remat.alignment = options.alignment;
    remat.algorithm = options.algorithm;
    remat.workLimit = options.workLimit;
    remat.timeLimit = options.timeLimit;
    remat.quiet = options.quiet;
    remat.bounds = options.bounds;
    pm.addPass(createInsertRematPass(remat));
  }
  pm.addPass(createMaterializeRematPass());
  buildBufferizeStage(pm);
  // Buffers bufferization allocates in a loop of blocks and carries to the
  // next iteration (a detensorized while loop) get two slots too.
  pm.addPass(createDoubleBufferPass());
  if (options.target == PipelineTarget::NVVM)
    pm.addPass(bufferization::createDropEquivalentBufferResultsPass());
  PackArenaPassOptions pack;
  pack.algorithm = options.algorithm;
  pack.alignment = options.alignment;
  pack.workLimit = options.workLimit;
  pack.timeLimit = options.timeLimit;
  pack.report = options.report;
  pack.html = options.html;
  pack.explain = options.explain;
  pack.strict = options.strict;
  pack.symbolicAlgorithm = options.symbolicAlgorithm;
  pack.bounded = options.bounded;
  pack.boundsOption = options.bounds;
  pack.evalOption = options.eval;
  pm.addPass(createPackArenaPass(pack));
  pm.addPass(createVerifyPlanPass());
  VerifyLoweredPassOptions lowered;
  switch (options.target) {
  case PipelineTarget::CPU:
    pm.addPass(createConvertMemplanToMemRefPass());
    buildLowerToLLVMPipeline(pm);
    lowered.target = LoweringTarget::CPU;
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
    lowered.target = LoweringTarget::NVVM;
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
      "transform scripts (memplan-drop-transform-scripts), what "
      "tosa-to-linalg leaves (tosa.apply_scale, tosa.const) to arith "
      "(memplan-lower-tosa-leftovers), elementwise "
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
