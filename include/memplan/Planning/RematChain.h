//===- RematChain.h - The chain policy on remat graphs ----------*- C++ -*-===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_PLANNING_REMATCHAIN_H
#define MEMPLAN_PLANNING_REMATCHAIN_H

#include "memplan/Planning/Remat.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace memplan {

struct ChainSchedule {
  /// Empty when no schedule fits the budget.
  std::vector<size_t> schedule;
  RematCost result;
  /// The smallest peak of any schedule tried.
  uint64_t smallestPeak = UINT64_MAX;
  /// On an error: the node that breaks the chain, when one does.
  std::optional<size_t> offendingNode;
};

/// The `chain` policy: the forward nodes must form a chain f_0 -> ... ->
/// f_{N-1} (each reads the previous one and no other forward node) and the
/// backward nodes must come as reverse steps N-1 down to 0 (a backward node
/// belongs to the step of the last forward node it reads, or to its
/// predecessor's step when it reads none). The weighted chain DP (Chain.h)
/// plans states x_0 (the graph's input, no bytes) and x_k = f_{k-1}'s
/// output; its reversal becomes a schedule: Advance(k) runs f_k, Reverse(i)
/// runs f_i (unless its output is still at hand or step i does not read
/// it), then step i's backward nodes. The DP's memory for stored states is
/// searched for the cheapest schedule whose peak fits the budget. Returns a
/// message naming the offending node when the graph is not such a chain.
std::optional<std::string>
planChainSchedule(const RematGraph &graph, uint64_t budget, ChainSchedule &out);

/// The peak of the chain policy's leanest schedule (only x_0 stored: the
/// first schedule planChainSchedule tries after the roomiest one, so a budget
/// of this many bytes always fits it); std::nullopt when the graph is not a
/// chain the policy plans. Costs one DP with a single memory level.
std::optional<uint64_t> chainSmallestPeak(const RematGraph &graph);

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_PLANNING_REMATCHAIN_H
