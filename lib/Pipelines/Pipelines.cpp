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

using namespace mlir;
using namespace mlir::memplan;

/// Appends an upstream pipeline given in textual form; a failure here is a
/// bug in memplan, not in the input.
static void appendUpstream(OpPassManager &pm, StringRef pipeline) {
  std::string error;
  llvm::raw_string_ostream os(error);
  if (failed(parsePassPipeline(pipeline, pm, os)))
    llvm::report_fatal_error(llvm::Twine("memplan: bad upstream pipeline '") +
                             pipeline + "': " + error);
}

void mlir::memplan::buildLowerToLLVMPipeline(OpPassManager &pm) {
  appendUpstream(pm, "func.func(convert-linalg-to-loops),"
                     "expand-strided-metadata,lower-affine,convert-scf-to-cf,"
                     "finalize-memref-to-llvm,convert-math-to-llvm,"
                     "convert-arith-to-llvm,convert-func-to-llvm,"
                     "convert-cf-to-llvm,reconcile-unrealized-casts");
}

void mlir::memplan::buildMemplanPipeline(
    OpPassManager &pm, const MemplanPipelineOptions &options) {
  pm.addPass(createAnnotateLifetimesPass());
  if (options.budget > 0 || !options.policy.empty()) {
    InsertRematPassOptions remat;
    remat.budget = options.budget;
    remat.policy = options.policy;
    remat.checkArena = true;
    remat.alignment = options.alignment;
    remat.algorithm = options.algorithm;
    remat.timeLimit = options.timeLimit;
    pm.addPass(createInsertRematPass(remat));
  }
  pm.addPass(createMaterializeRematPass());
  appendUpstream(pm, "one-shot-bufferize{bufferize-function-boundaries "
                     "function-boundary-type-conversion=identity-layout-map}");
  PackArenaPassOptions pack;
  pack.algorithm = options.algorithm;
  pack.alignment = options.alignment;
  pack.timeLimit = options.timeLimit;
  pack.report = options.report;
  pack.html = options.html;
  pm.addPass(createPackArenaPass(pack));
  pm.addPass(createVerifyPlanPass());
  pm.addPass(createConvertMemplanToMemRefPass());
  switch (options.target) {
  case PipelineTarget::CPU:
    buildLowerToLLVMPipeline(pm);
    break;
  }
}

void mlir::memplan::registerMemplanPipelines() {
  PassPipelineRegistration<MemplanPipelineOptions>(
      "memplan-pipeline",
      "The whole memplan flow for a training step in linalg-on-tensors: "
      "annotate lifetimes, one-shot-bufferize, pack one arena per function, "
      "verify the plan, convert to memref, lower to the LLVM dialect "
      "(target=cpu) ready for mlir-runner",
      buildMemplanPipeline);
  PassPipelineRegistration<>(
      "memplan-lower-to-llvm",
      "Upstream lowering of a memref-level program to the LLVM dialect "
      "(linalg to loops, strided metadata, affine, scf to cf, memref, math, "
      "arith, func, cf to LLVM), used for planned and unplanned programs alike",
      buildLowerToLLVMPipeline);
}
