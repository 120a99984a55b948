//===- PassOptions.cpp - Typed options and stages shared by passes -------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::memplan;

llvm::cl::ValuesClass mlir::memplan::packAlgorithmValues() {
  return llvm::cl::values(
      clEnumValN(PackAlgorithm::GreedySize, "greedy-size",
                 "size descending, best-fitting gap"),
      clEnumValN(PackAlgorithm::GreedyTime, "greedy-time",
                 "start order, best fit over a free list"),
      clEnumValN(PackAlgorithm::Best, "best",
                 "greedy portfolio, then the canonical search (default)"),
      clEnumValN(PackAlgorithm::Exact, "exact",
                 "the canonical search on every segment, whatever its size"));
}

llvm::cl::ValuesClass mlir::memplan::rematPolicyValues() {
  return llvm::cl::values(
      clEnumValN(RematPolicyChoice::Auto, "auto",
                 "budget with a budget, keep-all without (default)"),
      clEnumValN(RematPolicyChoice::KeepAll, "keep-all", "recompute nothing"),
      clEnumValN(RematPolicyChoice::RecomputeAll, "recompute-all",
                 "recompute every forward buffer the backward pass reads"),
      clEnumValN(RematPolicyChoice::EveryN, "every-n",
                 "keep every n-th forward buffer (every=)"),
      clEnumValN(RematPolicyChoice::CostThreshold, "cost-threshold",
                 "keep forward buffers costing at least threshold="),
      clEnumValN(RematPolicyChoice::Sqrt, "sqrt",
                 "keep about sqrt(n) evenly spaced forward buffers"),
      clEnumValN(RematPolicyChoice::Budget, "budget",
                 "greedy: recompute the cheapest bytes until the budget "
                 "holds"),
      clEnumValN(RematPolicyChoice::Chain, "chain",
                 "optimal checkpointing of a chain (dynamic programming)"),
      clEnumValN(RematPolicyChoice::Optimal, "optimal",
                 "the MILP (CBC), bounded by milp-node-limit"));
}

llvm::StringRef
mlir::memplan::stringifyRematPolicyChoice(RematPolicyChoice choice) {
  switch (choice) {
  case RematPolicyChoice::Auto:
    return "auto";
  case RematPolicyChoice::KeepAll:
    return "keep-all";
  case RematPolicyChoice::RecomputeAll:
    return "recompute-all";
  case RematPolicyChoice::EveryN:
    return "every-n";
  case RematPolicyChoice::CostThreshold:
    return "cost-threshold";
  case RematPolicyChoice::Sqrt:
    return "sqrt";
  case RematPolicyChoice::Budget:
    return "budget";
  case RematPolicyChoice::Chain:
    return "chain";
  case RematPolicyChoice::Optimal:
    return "optimal";
  }
  llvm_unreachable("unknown remat policy choice");
}

void mlir::memplan::buildBufferizeStage(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions options;
  options.bufferizeFunctionBoundaries = true;
  options.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(options));
}
