//===- Chain.cpp - Optimal checkpointing of chains ------------------------===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/Chain.h"

#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <numeric>

using namespace mlir::memplan;

/// C(n, k) in 64 bits, saturating at UINT64_MAX.
static uint64_t binomial(uint64_t n, uint64_t k) {
  if (k > n)
    return 0;
  k = std::min(k, n - k);
  unsigned __int128 r = 1;
  for (uint64_t i = 1; i <= k; ++i) {
    r = r * (n - k + i) / i;
    if (r > UINT64_MAX)
      return UINT64_MAX;
  }
  return static_cast<uint64_t>(r);
}

uint64_t mlir::memplan::revolveForwardSteps(uint64_t n, uint64_t s) {
  assert(n >= 1 && s >= 1 && "revolve needs a step and a slot");
  uint64_t r = 0;
  while (binomial(s + r, s) < n)
    ++r;
  // Now C(s + r - 1, s) < n <= C(s + r, s).
  return r * n - binomial(s + r, s + 1);
}

uint64_t mlir::memplan::chainForwardStepsDP(uint64_t n, uint64_t s) {
  assert(n >= 1 && s >= 1 && "a chain needs a step and a slot");
  // p[k][l] for k = 1..s, l = 1..n.
  std::vector<uint64_t> prev(n + 1), cur(n + 1);
  for (uint64_t l = 1; l <= n; ++l)
    prev[l] = l * (l - 1) / 2;
  for (uint64_t k = 2; k <= s; ++k) {
    cur[1] = 0;
    for (uint64_t l = 2; l <= n; ++l) {
      uint64_t best = prev[l]; // storing nothing more is allowed
      for (uint64_t m = 1; m < l; ++m)
        best = std::min(best, m + prev[l - m] + cur[m]);
      cur[l] = best;
    }
    std::swap(prev, cur);
  }
  return prev[n];
}

std::optional<ChainPlan>
mlir::memplan::planWeightedChain(const WeightedChain &chain,
                                 uint64_t budgetBytes, uint64_t maxCells) {
  size_t n = chain.cost.size();
  assert(chain.size.size() == n && "one size per state x_0 .. x_{N-1}");
  ChainPlan plan;
  if (n == 0)
    return plan;
  // Even one memory level needs (n + 1)^2 cells: longer chains are refused
  // (callers check weightedChainFits first to tell why).
  if (!weightedChainFits(n, maxCells))
    return std::nullopt;
  // Discretize memory: the gcd of the sizes, coarsened to fit the table.
  uint64_t unit = 0;
  for (uint64_t s : chain.size)
    unit = std::gcd(unit, s); // zero sizes (a free input) do not constrain
  unit = std::max<uint64_t>(unit, 1);
  auto units = [&](uint64_t bytes) { return (bytes + unit - 1) / unit; };
  // Sizes round up to the unit and the budget down: the plan never needs
  // more bytes than the budget.
  // Coarsen until (n + 1)^2 (budget / unit + 1) cells fit; at worst the
  // unit exceeds the budget (one memory level), which fits.
  auto cells = [&](uint64_t u) {
    std::optional<uint64_t> c = llvm::checkedMulUnsigned<uint64_t>(
        uint64_t(n + 1) * (n + 1), budgetBytes / u + 1);
    return c ? *c : UINT64_MAX;
  };
  while (budgetBytes / unit > 0 && cells(unit) > maxCells)
    unit = unit > UINT64_MAX / 2 ? UINT64_MAX : unit * 2;
  plan.unit = unit;
  size_t m = budgetBytes / unit;
  std::vector<size_t> w(n);
  for (size_t i = 0; i < n; ++i)
    w[i] = units(chain.size[i]);
  if (w[0] > m)
    return std::nullopt;
  // prefix[t] = cost of steps 0 .. t-1.
  std::vector<double> prefix(n + 1, 0);
  for (size_t i = 0; i < n; ++i)
    prefix[i + 1] = prefix[i] + chain.cost[i];
  auto advance = [&](size_t i, size_t t) { return prefix[t] - prefix[i]; };
  const double inf = std::numeric_limits<double>::infinity();
  // opt[(i * (n + 1) + j) * (m + 1) + mem]: reverse steps i .. j-1 with x_i
  // stored and `mem` units for stored states, x_i's included.
  auto at = [&](size_t i, size_t j, size_t mem) {
    return (i * (n + 1) + j) * (m + 1) + mem;
  };
  std::vector<double> opt((n + 1) * (n + 1) * (m + 1), inf);
  std::vector<uint32_t> split(opt.size(), 0); // 0: keep only x_i
  for (size_t len = 1; len <= n; ++len) {
    for (size_t i = 0; i + len <= n; ++i) {
      size_t j = i + len;
      // Only x_i stored: recompute each state from x_i.
      double only = 0;
      for (size_t t = i + 1; t < j; ++t)
        only += advance(i, t);
      for (size_t mem = w[i]; mem <= m; ++mem) {
        double best = only;
        uint32_t arg = 0;
        for (size_t mid = i + 1; mid < j; ++mid) {
          if (w[i] + w[mid] > mem)
            continue;
          double c = advance(i, mid) + opt[at(mid, j, mem - w[i])] +
                     opt[at(i, mid, mem)];
          if (c < best) {
            best = c;
            arg = mid;
          }
        }
        opt[at(i, j, mem)] = best;
        split[at(i, j, mem)] = arg;
      }
    }
  }
  plan.forwardCost = opt[at(0, n, m)];
  // The reversal, by the same recursion the table was built with, on an
  // explicit stack of (i, j, mem) tasks (the last pushed runs first).
  struct Task {
    size_t i, j, mem;
  };
  std::vector<Task> tasks{{0, n, m}};
  while (!tasks.empty()) {
    auto [i, j, mem] = tasks.back();
    tasks.pop_back();
    if (j - i == 1) {
      plan.actions.push_back({ChainAction::Reverse, i});
      continue;
    }
    uint32_t mid = split[at(i, j, mem)];
    if (mid == 0) {
      // Only x_i stored: advance from it to each state in turn.
      for (size_t t = j; t-- > i;) {
        for (size_t k = i; k < t; ++k)
          plan.actions.push_back({ChainAction::Advance, k});
        plan.actions.push_back({ChainAction::Reverse, t});
      }
      continue;
    }
    for (size_t k = i; k < mid; ++k)
      plan.actions.push_back({ChainAction::Advance, k});
    // Reverse (mid, j) first, then (i, mid).
    tasks.push_back({i, mid, mem});
    tasks.push_back({mid, j, mem - w[i]});
  }
  // The first forward sweep stores the splits along the right spine.
  size_t i = 0, mem = m;
  plan.stored.push_back(0);
  while (uint32_t mid = split[at(i, n, mem)]) {
    plan.stored.push_back(mid);
    mem -= w[i];
    i = mid;
  }
  return plan;
}
