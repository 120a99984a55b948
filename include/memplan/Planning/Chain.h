//===- Chain.h - Optimal checkpointing of chains ----------------*- C++ -*-===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//
//
// Reversing a chain x_0 -> x_1 -> ... -> x_N (N forward steps, then the N
// reverse steps in reverse order) with s slots for stored states; the chain's
// input x_0 occupies one of them. Revolve's conventions (Griewank & Walther):
// the forward step right before each reverse step is not counted, so a run
// that stores everything takes N - 1 forward steps, and "extra" forward
// steps are those beyond N - 1.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_PLANNING_CHAIN_H
#define MEMPLAN_PLANNING_CHAIN_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mlir {
namespace memplan {

/// Revolve's closed form: the minimal number of forward steps t(N, s) =
/// r N - C(s + r, s + 1), r the unique repetition number with
/// C(s + r - 1, s) < N <= C(s + r, s). Requires N >= 1, s >= 1.
uint64_t revolveForwardSteps(uint64_t n, uint64_t s);

/// The minimal number of forward steps by dynamic programming:
/// p[1][l] = l (l - 1) / 2, p[s][1] = 0,
/// p[s][l] = min_{1 <= m < l} m + p[s-1][l-m] + p[s][m].
uint64_t chainForwardStepsDP(uint64_t n, uint64_t s);

/// A chain with per-step forward costs and per-state sizes: cost[i] is the
/// cost of the step x_i -> x_{i+1}; size[i] the bytes of x_i (i < N).
struct WeightedChain {
  std::vector<double> cost;
  std::vector<uint64_t> size;
};

/// One action of a reversal schedule: Advance(i) runs forward step i
/// (x_i -> x_{i+1}); Reverse(i) runs reverse step i, which needs x_i (and, by
/// revolve's convention, re-runs forward step i itself, not counted).
struct ChainAction {
  enum Kind { Advance, Reverse } kind;
  size_t index;
  bool operator==(const ChainAction &o) const {
    return kind == o.kind && index == o.index;
  }
};

/// The optimal checkpointing of a weighted chain under a byte budget for
/// stored states (x_0 included): the minimal total forward cost (revolve's
/// convention: the step right before each reverse step is not counted) and
/// the states stored on the first forward sweep.
struct ChainPlan {
  double forwardCost = 0;
  /// Indices of the states stored during the first forward sweep (x_0
  /// first); the rest are recomputed from the nearest stored state.
  std::vector<size_t> stored;
  /// The whole reversal: the advances (their costs sum to forwardCost) and
  /// the N reverse steps, N-1 down to 0, in order.
  std::vector<ChainAction> actions;
  /// The memory unit the budget was discretized in: sizes are rounded up to
  /// it, so the plan is exact when every size is a multiple of it.
  uint64_t unit = 1;
};

/// Exact when every size is a multiple of the chosen unit (the gcd of the
/// sizes, coarsened only if the table would exceed `maxCells` cells; then
/// sizes round up and the plan stays feasible). std::nullopt when even x_0
/// plus one more state does not fit (no reversal is possible).
/// Chains longer than weightedChainFits allows get std::nullopt too.
std::optional<ChainPlan> planWeightedChain(const WeightedChain &chain,
                                           uint64_t budgetBytes,
                                           uint64_t maxCells = 50'000'000);

/// Whether planWeightedChain can plan a chain of `length` states within
/// `maxCells` table cells: the table needs (length + 1)^2 cells per memory
/// level, at least one level.
constexpr bool weightedChainFits(uint64_t length, uint64_t maxCells) {
  return length < (uint64_t(1) << 31) &&
         (length + 1) * (length + 1) <= maxCells;
}

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_PLANNING_CHAIN_H
