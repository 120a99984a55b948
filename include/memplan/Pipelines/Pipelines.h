//===- Pipelines.h - memplan's registered pipelines -------------*- C++ -*-===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//
//
// `memplan-pipeline`: a training step in linalg-on-tensors to a program ready
// for mlir-runner, with every internal buffer of a function in one arena:
//
//   memplan-annotate-lifetimes     (tensor level: lifetimes, early rejections)
//   memplan-insert-remat           (with budget= or policy=: recompute to fit)
//   memplan-materialize-remat      (inline recompute regions, drop checkpoints)
//   one-shot-bufferize             (upstream; function boundaries, identity
//   layouts) memplan-pack-arena             (one arena per function, reports)
//   memplan-verify-plan            (independent check of the plan)
//   convert-memplan-to-memref      (arena -> memref.alloc, views ->
//   memref.view) memplan-lower-to-llvm          (upstream lowering to the LLVM
//   dialect)
//
// `memplan-lower-to-llvm` alone is the upstream lowering of a memref-level
// program, the one both planned and unplanned programs use.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_PIPELINES_PIPELINES_H
#define MEMPLAN_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
namespace memplan {

enum class PipelineTarget { CPU };

struct MemplanPipelineOptions
    : public PassPipelineOptions<MemplanPipelineOptions> {
  PassOptions::Option<PipelineTarget> target{
      *this, "target", llvm::cl::desc("Where the program runs"),
      llvm::cl::init(PipelineTarget::CPU),
      llvm::cl::values(clEnumValN(PipelineTarget::CPU, "cpu",
                                  "the host, through the LLVM dialect"))};
  PassOptions::Option<std::string> algorithm{
      *this, "algorithm",
      llvm::cl::desc("Packing algorithm: greedy-size, greedy-time, best "
                     "(default) or exact"),
      llvm::cl::init("best")};
  PassOptions::Option<int64_t> alignment{
      *this, "alignment", llvm::cl::desc("Byte alignment of every buffer"),
      llvm::cl::init(64)};
  PassOptions::Option<double> timeLimit{
      *this, "time-limit",
      llvm::cl::desc("Time limit of the best and exact packers, in seconds "
                     "(default 3: a compile-time budget; the search stops as "
                     "soon as it reaches the lower bound)"),
      llvm::cl::init(3.0)};
  PassOptions::Option<int64_t> budget{
      *this, "budget",
      llvm::cl::desc("Byte budget for each function's planned buffers: "
                     "rematerialize to fit it (0: none)"),
      llvm::cl::init(0)};
  PassOptions::Option<std::string> policy{
      *this, "policy",
      llvm::cl::desc("Remat policy (keep-all, recompute-all, every-n, "
                     "cost-threshold, sqrt, budget, chain, optimal); default: "
                     "budget with a budget, none without"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> report{
      *this, "report", llvm::cl::desc("Write the JSON v1 plan report here"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> html{
      *this, "html", llvm::cl::desc("Write the HTML picture of the plan here"),
      llvm::cl::init("")};
};

/// Appends the whole memplan flow to `pm` (anchored on builtin.module).
void buildMemplanPipeline(OpPassManager &pm,
                          const MemplanPipelineOptions &options);

/// Appends upstream's lowering of a memref-level program to the LLVM dialect.
void buildLowerToLLVMPipeline(OpPassManager &pm);

/// Registers `memplan-pipeline` and `memplan-lower-to-llvm`.
void registerMemplanPipelines();

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_PIPELINES_PIPELINES_H
