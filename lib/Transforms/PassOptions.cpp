//===- PassOptions.cpp - Typed options and stages shared by passes -------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::memplan;

std::optional<RematPolicy>
mlir::memplan::getRematPolicy(RematPolicyChoice choice) {
  switch (choice) {
  case RematPolicyChoice::KeepAll:
    return RematPolicy::KeepAll;
  case RematPolicyChoice::RecomputeAll:
    return RematPolicy::RecomputeAll;
  case RematPolicyChoice::EveryN:
    return RematPolicy::EveryN;
  case RematPolicyChoice::CostThreshold:
    return RematPolicy::CostThreshold;
  case RematPolicyChoice::Sqrt:
    return RematPolicy::Sqrt;
  case RematPolicyChoice::Budget:
    return RematPolicy::Budget;
  case RematPolicyChoice::Auto:
  case RematPolicyChoice::Chain:
  case RematPolicyChoice::Optimal:
    return std::nullopt;
  }
  llvm_unreachable("unknown remat policy choice");
}

llvm::StringRef
mlir::memplan::stringifyRematPolicyChoice(RematPolicyChoice choice) {
  if (std::optional<RematPolicy> policy = getRematPolicy(choice))
    return stringifyRematPolicy(*policy);
  switch (choice) {
  case RematPolicyChoice::Chain:
    return "chain";
  case RematPolicyChoice::Optimal:
    return "optimal";
  default:
    return "auto";
  }
}

llvm::cl::ValuesClass mlir::memplan::rematPolicyValues() {
  auto value = [](RematPolicyChoice c, llvm::StringRef help) {
    return llvm::cl::OptionEnumValue{stringifyRematPolicyChoice(c),
                                     static_cast<int>(c), help};
  };
  return llvm::cl::ValuesClass(
      {value(RematPolicyChoice::Auto,
             "budget with a budget, keep-all without (default)"),
       value(RematPolicyChoice::KeepAll, "recompute nothing"),
       value(RematPolicyChoice::RecomputeAll,
             "recompute every forward buffer the backward pass reads"),
       value(RematPolicyChoice::EveryN,
             "keep every n-th forward buffer (every=)"),
       value(RematPolicyChoice::CostThreshold,
             "keep forward buffers costing at least threshold="),
       value(RematPolicyChoice::Sqrt,
             "keep about sqrt(n) evenly spaced forward buffers"),
       value(RematPolicyChoice::Budget,
             "greedy: recompute the cheapest bytes until the budget holds"),
       value(RematPolicyChoice::Chain,
             "optimal checkpointing of a chain (dynamic programming)"),
       value(RematPolicyChoice::Optimal,
             "the MILP (CBC), bounded by milp-node-limit")});
}

void mlir::memplan::buildBufferizeStage(OpPassManager &pm) {
  pm.addPass(createBufferizeModulesPass());
}
