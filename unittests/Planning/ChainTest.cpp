//===- ChainTest.cpp - Tests for chain checkpointing ----------------------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/Chain.h"

#include "gtest/gtest.h"

#include <functional>
#include <random>

using namespace mlir::memplan;

namespace {

TEST(ChainTest, RevolveExamples) {
  // ../shared/anchors.md: extra steps beyond N - 1.
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
