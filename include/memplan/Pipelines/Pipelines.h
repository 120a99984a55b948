//===- Pipelines.h - memplan's registered pipelines -------------*- C++ -*-===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//
//
// `memplan-pipeline`: a training step in linalg-on-tensors to a program with
// every internal buffer of a function in one arena:
//
//   memplan-annotate-lifetimes   tensor level: lifetimes, early rejections
//   memplan-insert-remat         with budget= or policy=: recompute to fit
//   memplan-materialize-remat    inline recompute regions, drop checkpoints
//   memplan-bufferize-modules    upstream one-shot-bufferize (function
//                                boundaries, identity layouts) on every
//                                module, nested ones first
//   memplan-pack-arena           one arena per function, reports
//   memplan-verify-plan          independent check of the plan
//   target=cpu:  convert-memplan-to-memref, memplan-lower-to-llvm
//   target=nvvm: memplan-lower-to-nvvm (device memory, GPU kernels, NVVM)
//
// `memplan-lower-to-llvm` alone is the upstream lowering of a memref-level
// program, the one both planned and unplanned programs use.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_PIPELINES_PIPELINES_H
#define MEMPLAN_PIPELINES_PIPELINES_H

#include "memplan/Conversion/Passes.h"
#include "memplan/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
namespace memplan {

/// Where the pipeline's output runs (the lowering's target).
using PipelineTarget = LoweringTarget;

struct MemplanPipelineOptions
    : public PassPipelineOptions<MemplanPipelineOptions> {
  PassOptions::Option<PipelineTarget> target{
      *this, "target", llvm::cl::desc("Where the program runs"),
      llvm::cl::init(PipelineTarget::CPU), loweringTargetValues()};
  PassOptions::Option<PackAlgorithm> algorithm{
      *this, "algorithm",
      llvm::cl::desc("Packing algorithm: greedy-size, greedy-time, "
                     "first-fit-size, first-fit-start, best (default) or "
                     "exact"),
      llvm::cl::init(PackAlgorithm::Best), packAlgorithmValues()};
  PassOptions::Option<int64_t> alignment{
      *this, "alignment", llvm::cl::desc("Byte alignment of every buffer"),
      llvm::cl::init(64)};
  PassOptions::Option<uint64_t> workLimit{
      *this, "work-limit",
      llvm::cl::desc("Bound of the best and exact packers, in work units "
                     "(default 1500000000, about 3 s; the search stops as "
                     "soon as it reaches the lower bound; 0: none). The same "
                     "input and options give the same output on any machine"),
      llvm::cl::init(1500000000)};
  PassOptions::Option<double> timeLimit{
      *this, "time-limit",
      llvm::cl::desc("Also stop the packers after this many seconds (0, the "
                     "default: no wall-clock bound; with one the output "
                     "depends on the machine's speed)"),
      llvm::cl::init(0.0)};
  PassOptions::Option<int64_t> budget{
      *this, "budget",
      llvm::cl::desc("Byte budget for each function's planned buffers: "
                     "rematerialize to fit it (0: none)"),
      llvm::cl::init(0)};
  PassOptions::Option<RematPolicyChoice> policy{
      *this, "policy",
      llvm::cl::desc("Remat policy (keep-all, recompute-all, every-n, "
                     "cost-threshold, sqrt, budget, chain, optimal); auto, "
                     "the default: budget with a budget, none without"),
      llvm::cl::init(RematPolicyChoice::Auto), rematPolicyValues()};
  PassOptions::Option<bool> quiet{
      *this, "quiet",
      llvm::cl::desc("With a budget: no progress lines (the plans measured "
                     "against the budget, at most one a second, printed to "
                     "stderr only when it is a terminal)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> strict{
      *this, "strict",
      llvm::cl::desc("Reject the module when a function cannot be planned "
                     "(default: leave that function unplanned, with a "
                     "warning saying why, and plan the others)"),
      llvm::cl::init(false)};
  PassOptions::Option<SymbolicAlgorithm> symbolicAlgorithm{
      *this, "symbolic-algorithm",
      llvm::cl::desc("Functions with dynamic shapes: partitions (tract's), "
                     "ordered, or auto (both, the smaller arena chosen at "
                     "run time; the default)"),
      llvm::cl::init(SymbolicAlgorithm::Auto), symbolicAlgorithmValues()};
  PassOptions::Option<bool> bounded{
      *this, "bounded",
      llvm::cl::desc("Functions with dynamic shapes: one static plan at the "
                     "bounds, used for every smaller shape"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> bounds{
      *this, "bounds",
      llvm::cl::desc("Bounds of symbols not bounded by memplan.bounds: "
                     "B=64,S=1024"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> eval{
      *this, "eval",
      llvm::cl::desc("Points the report evaluates dynamic plans at: "
                     "B=8,S=1024;B=1,S=16"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> report{
      *this, "report", llvm::cl::desc("Write the JSON v1 plan report here"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> html{
      *this, "html", llvm::cl::desc("Write the HTML picture of the plan here"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> explain{
      *this, "explain",
      llvm::cl::desc("Write why each arena is as large as it is (peak step, "
                     "largest buffers there, what a budget recomputed) "
                     "here, or to stderr with '-'"),
      llvm::cl::init("")};
  // target=nvvm only.
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("target=nvvm: the GPU architecture (default sm_90, "
                     "H100/H200)"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("target=nvvm: PTX features (default +ptx80; sm_90 "
                     "needs PTX 7.8 or later)"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("target=nvvm: what is embedded: fatbin (default; "
                     "needs ptxas), bin (cubin; needs ptxas) or isa (PTX, "
                     "compiled by the driver at load time)"),
      llvm::cl::init("fatbin")};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("target=nvvm: CUDA toolkit path (default: found from "
                     "PATH or CUDA_HOME)"),
      llvm::cl::init("")};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level",
      llvm::cl::desc("target=nvvm: optimization level of the kernels, 0 to "
                     "3 (larger values act as 3)"),
      llvm::cl::init(3)};
  PassOptions::Option<int64_t> blockSize{
      *this, "block-size",
      llvm::cl::desc("target=nvvm: threads per GPU block (1 to 1024)"),
      llvm::cl::init(256)};
};

/// The device half of the pipeline: a memref-level program, planned or not,
/// to host code in the LLVM dialect with embedded GPU kernels.
struct LowerToNVVMOptions : public PassPipelineOptions<LowerToNVVMOptions> {
  PassOptions::Option<std::string> chip{*this, "chip",
                                        llvm::cl::desc("GPU architecture"),
                                        llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{*this, "features",
                                            llvm::cl::desc("PTX features"),
                                            llvm::cl::init("+ptx80")};
  PassOptions::Option<std::string> format{*this, "format",
                                          llvm::cl::desc("fatbin, bin or isa"),
                                          llvm::cl::init("fatbin")};
  PassOptions::Option<std::string> toolkit{*this, "toolkit",
                                           llvm::cl::desc("CUDA toolkit path"),
                                           llvm::cl::init("")};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level",
      llvm::cl::desc("Kernel optimization level, 0 to 3 (larger values act "
                     "as 3)"),
      llvm::cl::init(3)};
  PassOptions::Option<int64_t> blockSize{
      *this, "block-size", llvm::cl::desc("Threads per GPU block"),
      llvm::cl::init(256)};
};

/// Appends the whole memplan flow to `pm` (anchored on builtin.module).
void buildMemplanPipeline(OpPassManager &pm,
                          const MemplanPipelineOptions &options);

/// Upstream (and memplan) preparation of linalg-on-tensors for planning and
/// bufferization: transform scripts dropped, what tosa-to-linalg leaves
/// (tosa.apply_scale, tosa.const) to arith, elementwise ops to linalg,
/// pack/unpack lowered. Registered as `memplan-prepare`.
void buildPreparePipeline(OpPassManager &pm);

/// Appends upstream's lowering of a memref-level program to the LLVM dialect.
void buildLowerToLLVMPipeline(OpPassManager &pm);

/// Appends the device lowering of a memref-level program: device functions'
/// buffers to device memory, linalg to GPU kernels, NVVM, serialization, host
/// code to the LLVM dialect.
void buildLowerToNVVMPipeline(OpPassManager &pm,
                              const LowerToNVVMOptions &options);

/// Registers `memplan-pipeline`, `memplan-prepare`, `memplan-lower-to-llvm` and
/// `memplan-lower-to-nvvm`.
void registerMemplanPipelines();

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_PIPELINES_PIPELINES_H
