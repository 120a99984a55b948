//===- ChainTest.cpp - Tests for chain checkpointing ----------------------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/Chain.h"

#include "llvm/ADT/STLExtras.h"
#include "gtest/gtest.h"

#include <functional>
#include <random>

using namespace mlir::memplan;

namespace {

TEST(ChainTest, RevolveExamples) {
  // Revolve's published counts: extra steps beyond N - 1.
  EXPECT_EQ(revolveForwardSteps(16, 4) - 15, 12u);
  EXPECT_EQ(revolveForwardSteps(64, 8) - 63, 74u);
  EXPECT_EQ(revolveForwardSteps(256, 16) - 255, 342u);
  EXPECT_EQ(revolveForwardSteps(1024, 32) - 1023, 1454u);
}

TEST(ChainTest, DynamicProgramEqualsClosedForm) {
  for (uint64_t s = 1; s <= 10; ++s)
    for (uint64_t n = 1; n <= 300; ++n)
      ASSERT_EQ(chainForwardStepsDP(n, s), revolveForwardSteps(n, s))
          << "N=" << n << " s=" << s;
}

TEST(ChainTest, WeightedDPOnUniformChainsEqualsRevolve) {
  for (uint64_t s = 1; s <= 6; ++s)
    for (size_t n = 1; n <= 40; ++n) {
      WeightedChain chain{std::vector<double>(n, 1.0),
                          std::vector<uint64_t>(n, 4096)};
      std::optional<ChainPlan> plan = planWeightedChain(chain, s * 4096);
      ASSERT_TRUE(plan.has_value());
      ASSERT_EQ(plan->forwardCost, double(revolveForwardSteps(n, s)))
          << "N=" << n << " s=" << s;
      ASSERT_LE(plan->stored.size(), s);
      ASSERT_EQ(plan->stored.front(), 0u);
    }
}

/// Exhaustive search over reversal strategies of a weighted chain: the same
/// recursion, tried over every split without memoization.
double bruteForce(const WeightedChain &c, size_t i, size_t j, uint64_t mem) {
  auto adv = [&](size_t a, size_t b) {
    double s = 0;
    for (size_t k = a; k < b; ++k)
      s += c.cost[k];
    return s;
  };
  if (mem < c.size[i])
    return 1e300;
  double best = 0;
  for (size_t t = i + 1; t < j; ++t)
    best += adv(i, t);
  for (size_t mid = i + 1; mid < j; ++mid)
    if (c.size[i] + c.size[mid] <= mem)
      best =
          std::min(best, adv(i, mid) + bruteForce(c, mid, j, mem - c.size[i]) +
                             bruteForce(c, i, mid, mem));
  return best;
}

TEST(ChainTest, WeightedDPMatchesExhaustiveSearch) {
  std::mt19937_64 rng(3);
  for (int iter = 0; iter < 300; ++iter) {
    size_t n = std::uniform_int_distribution<size_t>(1, 7)(rng);
    WeightedChain chain;
    for (size_t i = 0; i < n; ++i) {
      chain.cost.push_back(std::uniform_int_distribution<int>(1, 9)(rng));
      chain.size.push_back(64 * std::uniform_int_distribution<int>(1, 4)(rng));
    }
    uint64_t budget = 64 * std::uniform_int_distribution<int>(4, 12)(rng);
    std::optional<ChainPlan> plan = planWeightedChain(chain, budget);
    double expected = bruteForce(chain, 0, n, budget);
    if (expected >= 1e299) {
      ASSERT_FALSE(plan.has_value());
      continue;
    }
    ASSERT_TRUE(plan.has_value());
    ASSERT_DOUBLE_EQ(plan->forwardCost, expected) << "instance " << iter;
  }
}

TEST(ChainTest, MoreMemoryNeverCostsMore) {
  WeightedChain chain;
  for (int i = 0; i < 30; ++i) {
    chain.cost.push_back(1 + i % 4);
    chain.size.push_back(128 * (1 + i % 3));
  }
  double last = 1e300;
  for (uint64_t budget = 384; budget <= 128 * 40; budget += 128) {
    std::optional<ChainPlan> plan = planWeightedChain(chain, budget);
    ASSERT_TRUE(plan.has_value());
    ASSERT_LE(plan->forwardCost, last);
    last = plan->forwardCost;
  }
}

} // namespace

/// Replays a reversal: checks the reverse steps run N-1 down to 0, every
/// action starts from the state just produced or from one produced earlier
/// (a stored state), and returns {advance cost, most states stored at once}
/// where a state counts as stored from its production to its last use as a
/// starting point (x_0 from the start).
std::pair<double, size_t> replay(const WeightedChain &c,
                                 const std::vector<ChainAction> &actions) {
  size_t n = c.cost.size();
  // Instances: x_0 (at -1) and one per Advance; lastJump = last use as a
  // starting point other than continuing from the current state.
  std::vector<std::pair<int64_t, int64_t>> held; // [produced, lastJump]
  std::vector<int64_t> latest(n + 1, -1);        // instance of each state
  held.push_back({-1, -1});
  latest[0] = 0;
  int64_t current = 0; // state index of the current state
  size_t nextReverse = n;
  double cost = 0;
  for (auto [p, a] : llvm::enumerate(actions)) {
    size_t from = a.index;
    EXPECT_GE(latest[from], 0) << "x_" << from << " never produced";
    if (current != int64_t(from))
      held[latest[from]].second = int64_t(p);
    if (a.kind == ChainAction::Advance) {
      cost += c.cost[from];
      held.push_back({int64_t(p), int64_t(p)});
      latest[from + 1] = int64_t(held.size() - 1);
      current = int64_t(from + 1);
    } else {
      EXPECT_EQ(from + 1, nextReverse) << "reverse steps out of order";
      nextReverse = from;
      current = -1;
    }
  }
  EXPECT_EQ(nextReverse, 0u) << "not every reverse step ran";
  size_t most = 0;
  for (int64_t t = -1; t < int64_t(actions.size()); ++t) {
    size_t live = 0;
    for (auto [from, to] : held)
      live += from <= t && t <= to && (from < t || to > from);
    most = std::max(most, live);
  }
  return {cost, most};
}

TEST(ChainTest, ActionsReplayToTheOptimum) {
  // Uniform chains: the actions cost revolve's optimum and never store more
  // than s states at once.
  for (uint64_t s = 1; s <= 5; ++s)
    for (size_t n = 1; n <= 30; ++n) {
      WeightedChain chain{std::vector<double>(n, 1.0),
                          std::vector<uint64_t>(n, 1)};
      std::optional<ChainPlan> plan = planWeightedChain(chain, s);
      ASSERT_TRUE(plan.has_value());
      auto [cost, most] = replay(chain, plan->actions);
      ASSERT_EQ(cost, double(revolveForwardSteps(n, s)))
          << "N=" << n << " s=" << s;
      ASSERT_LE(most, s) << "N=" << n << " s=" << s;
    }
  // Weighted chains: the actions cost what the table says.
  std::mt19937_64 rng(17);
  for (int iter = 0; iter < 200; ++iter) {
    size_t n = 1 + rng() % 12;
    WeightedChain chain;
    for (size_t i = 0; i < n; ++i) {
      chain.cost.push_back(double(1 + rng() % 9));
      chain.size.push_back(1 + rng() % 5);
    }
    std::optional<ChainPlan> plan = planWeightedChain(chain, 6 + rng() % 10);
    if (!plan)
      continue;
    ASSERT_DOUBLE_EQ(replay(chain, plan->actions).first, plan->forwardCost);
  }
}

TEST(ChainTest, LongChainsAndHugeBudgetsAreRefusedNotCrashed) {
  // A chain whose table cannot hold even one memory level: refused (the
  // unit used to double until it wrapped to 0: SIGFPE).
  EXPECT_TRUE(weightedChainFits(1999, 4'000'000));
  EXPECT_FALSE(weightedChainFits(2000, 4'000'000));
  WeightedChain chain{std::vector<double>(2001, 1.0),
                      std::vector<uint64_t>(2001, 8)};
  EXPECT_FALSE(planWeightedChain(chain, 1'000'000, 4'000'000).has_value());
  // A budget near 2^64 (the cell count overflowed): coarsened, still planned.
  WeightedChain shortChain{std::vector<double>(5, 1.0),
                           std::vector<uint64_t>(5, 8)};
  std::optional<ChainPlan> plan =
      planWeightedChain(shortChain, UINT64_MAX, 4'000'000);
  ASSERT_TRUE(plan.has_value());
  EXPECT_DOUBLE_EQ(replay(shortChain, plan->actions).first, plan->forwardCost);
}
