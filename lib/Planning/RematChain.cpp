//===- RematChain.cpp - The chain policy on remat graphs ------------------===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/RematChain.h"
#include "memplan/Planning/Chain.h"

#include "llvm/ADT/STLExtras.h"

#include <limits>

using namespace mlir::memplan;

/// The chain DP's table: at most this many cells (12 bytes each).
static constexpr uint64_t kChainMaxCells = 4'000'000;
/// The longest chain such a table holds: (n + 1)^2 <= kChainMaxCells.
static constexpr uint64_t kChainMaxLength = 1999;
static_assert(weightedChainFits(kChainMaxLength, kChainMaxCells) &&
              !weightedChainFits(kChainMaxLength + 1, kChainMaxCells));

/// planChainSchedule; with `leanestOnly`, only the probe at memory 0.
static std::optional<std::string> planChain(const RematGraph &graph,
                                            uint64_t budget,
                                            ChainSchedule &best,
                                            bool leanestOnly) {
  std::vector<size_t> forward, position(graph.nodes.size(), SIZE_MAX);
  for (auto [i, node] : llvm::enumerate(graph.nodes))
    if (!node.backward) {
      position[i] = forward.size();
      forward.push_back(i);
    }
  auto describe = [&](size_t i) {
    return "node " + std::to_string(graph.nodes[i].id);
  };
  for (auto [k, f] : llvm::enumerate(forward))
    for (size_t in : graph.nodes[f].inputs)
      if (k == 0 || in != forward[k - 1])
        return best.offendingNode = f,
               std::string(
                   "policy 'chain' needs the forward nodes to form a chain: " +
                   describe(f) + " reads " + describe(in) +
                   (k == 0 ? std::string(", but it is the first forward node")
                           : ", not the forward node before it (" +
                                 describe(forward[k - 1]) + ")"));
  size_t n = forward.size();
  if (n == 0)
    return std::string("policy 'chain' needs forward nodes");
  if (!weightedChainFits(n, kChainMaxCells))
    return "policy 'chain' plans chains of at most " +
           std::to_string(kChainMaxLength) +
           " forward nodes (its table grows " +
           "with the square of the length); this graph has " +
           std::to_string(n) + " (policy 'budget' has no such limit)";
  // Reverse step of each backward node.
  std::vector<std::vector<size_t>> steps(n);
  size_t step = n - 1;
  for (auto [i, node] : llvm::enumerate(graph.nodes)) {
    if (!node.backward)
      continue;
    size_t last = SIZE_MAX;
    for (size_t in : node.inputs)
      if (position[in] != SIZE_MAX)
        last = last == SIZE_MAX ? position[in] : std::max(last, position[in]);
    if (last != SIZE_MAX) {
      if (last > step)
        return best.offendingNode = i,
               std::string("policy 'chain' needs the backward nodes in reverse "
                           "order of "
                           "the forward nodes they read: " +
                           describe(i) + " reads " + describe(forward[last]) +
                           " after a backward node of an earlier layer");
      step = last;
    }
    steps[step].push_back(i);
  }
  WeightedChain chain;
  for (size_t k = 0; k < n; ++k) {
    chain.cost.push_back(graph.nodes[forward[k]].cost);
    chain.size.push_back(k == 0 ? 0 : graph.nodes[forward[k - 1]].bytes);
  }
  auto scheduleFor = [&](const ChainPlan &plan) {
    std::vector<size_t> schedule;
    std::vector<uint8_t> ran(n, 0);
    std::optional<ChainAction> previous;
    for (const ChainAction &a : plan.actions) {
      if (a.kind == ChainAction::Advance) {
        schedule.push_back(forward[a.index]);
        ran[a.index] = 1;
      } else {
        size_t i = a.index;
        bool atHand = ran[i] && previous &&
                      (*previous == ChainAction{ChainAction::Advance, i} ||
                       *previous == ChainAction{ChainAction::Reverse, i + 1});
        // Re-run f_i only when its output is not at hand and step i's
        // backward nodes read it.
        bool read = llvm::any_of(steps[i], [&](size_t v) {
          return llvm::is_contained(graph.nodes[v].inputs, forward[i]);
        });
        if ((!atHand && read) || !ran[i])
          schedule.push_back(forward[i]);
        ran[i] = 1;
        llvm::append_range(schedule, steps[i]);
      }
      previous = a;
    }
    return schedule;
  };
  std::string internal;
  best = ChainSchedule();
  best.result.cost = std::numeric_limits<double>::infinity();
  auto probe = [&](uint64_t memory) {
    std::optional<ChainPlan> plan =
        planWeightedChain(chain, memory, kChainMaxCells);
    if (!plan)
      return false;
    // Steps without backward nodes leave advances nobody reads.
    std::vector<size_t> schedule = pruneSchedule(graph, scheduleFor(*plan));
    if (std::optional<std::string> error = checkSchedule(graph, schedule)) {
      internal = "internal error: the chain schedule is invalid: " + *error;
      return false;
    }
    RematCost cost = simulateSchedule(graph, schedule);
    best.smallestPeak = std::min(best.smallestPeak, cost.peak);
    if (cost.peak > budget)
      return false;
    if (cost.cost < best.result.cost) {
      best.result = cost;
      best.schedule = std::move(schedule);
    }
    return true;
  };
  // The peak grows with the DP's memory (not strictly): a binary search for
  // the largest memory that fits, keeping the cheapest fitting probe.
  uint64_t lo = 0, hi = 0;
  for (uint64_t s : chain.size)
    hi += s; // validate() bounds the sum of all sizes
  if (leanestOnly) {
    probe(lo);
    return internal.empty() ? std::nullopt : std::optional(internal);
  }
  if (!probe(hi)) {
    probe(lo);
    while (hi - lo > 1 && internal.empty()) {
      uint64_t mid = lo + (hi - lo) / 2;
      (probe(mid) ? lo : hi) = mid;
    }
  }
  if (!internal.empty())
    return internal;
  return std::nullopt;
}

std::optional<std::string>
mlir::memplan::planChainSchedule(const RematGraph &graph, uint64_t budget,
                                 ChainSchedule &out) {
  return planChain(graph, budget, out, /*leanestOnly=*/false);
}

std::optional<uint64_t>
mlir::memplan::chainSmallestPeak(const RematGraph &graph) {
  ChainSchedule leanest;
  if (planChain(graph, 0, leanest, /*leanestOnly=*/true) ||
      leanest.smallestPeak == UINT64_MAX)
    return std::nullopt;
  return leanest.smallestPeak;
}
