//===- SymbolicTest.cpp - Tests for the symbolic placements ---------------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/Symbolic.h"

#include "gtest/gtest.h"

#include <array>
#include <random>
#include <vector>

using namespace mlir::memplan;

namespace {

/// A random instance: lifetimes, and sizes as c0 + c1*B + c2*B*S for two
/// symbols B and S (a mix of static buffers, batch-sized ones and
/// batch-by-sequence ones, like a transformer's).
struct Instance {
  std::vector<SymbolicItem> items;
  std::vector<std::array<uint64_t, 3>> coefficients;

  std::vector<uint64_t> sizesAt(uint64_t b, uint64_t s) const {
    std::vector<uint64_t> sizes;
    for (const auto &c : coefficients)
      sizes.push_back(c[0] + c[1] * b + c[2] * b * s);
    return sizes;
  }
};

Instance randomInstance(std::mt19937_64 &rng, size_t n, int64_t steps) {
  Instance instance;
  for (size_t i = 0; i < n; ++i) {
    int64_t start = rng() % steps;
    int64_t end = start + 1 + rng() % (steps / 3 + 1);
    uint64_t alignment = uint64_t(1) << (rng() % 7);
    instance.items.push_back({{start, end}, alignment});
    std::array<uint64_t, 3> c = {0, 0, 0};
    switch (rng() % 3) {
    case 0:
      c[0] = 1 + rng() % 5000;
      break;
    case 1:
      c[1] = 4 * (1 + rng() % 64);
      break;
    default:
      c[2] = 4 * (1 + rng() % 16);
      c[0] = rng() % 64;
      break;
    }
    instance.coefficients.push_back(c);
  }
  return instance;
}

/// The oracle, by definition: every pair, and every offset aligned.
bool validAt(const Instance &instance, const SymbolicPlacement &placement,
             const std::vector<uint64_t> &sizes) {
  const auto &items = instance.items;
  for (size_t i = 0; i < items.size(); ++i) {
    if (placement.offsets[i] % items[i].alignment != 0 ||
        placement.offsets[i] + sizes[i] > placement.arena)
      return false;
    for (size_t j = i + 1; j < items.size(); ++j)
      if (items[i].live.overlaps(items[j].live) &&
          placement.offsets[i] < placement.offsets[j] + sizes[j] &&
          placement.offsets[j] < placement.offsets[i] + sizes[i])
        return false;
  }
  return true;
}

uint64_t peakAt(const Instance &instance, const std::vector<uint64_t> &sizes) {
  std::vector<PackItem> items;
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] > 0)
      items.push_back({instance.items[i].live, sizes[i], 1});
  return packLowerBound(items);
}

TEST(SymbolicTest, PlansAreValidAtEverySampledSize) {
  std::mt19937_64 rng(7);
  PackOptions options;
  options.workLimit = 2000000;
  for (int trial = 0; trial < 60; ++trial) {
    Instance instance = randomInstance(rng, 2 + rng() % 60, 40);
    std::vector<uint64_t> representative = instance.sizesAt(16, 128);
    SymbolicPlan partitions = planPartitions(instance.items, representative);
    SymbolicPlan ordered = planOrdered(instance.items, representative, options);
    ASSERT_EQ(checkSymbolicPlan(partitions, instance.items), std::nullopt);
    ASSERT_EQ(checkSymbolicPlan(ordered, instance.items), std::nullopt);
    // Symbol values from 0 to far beyond the representative ones,
    // including ones that make the batch-sized buffers dominate.
    for (auto [b, s] : std::vector<std::pair<uint64_t, uint64_t>>{
             {0, 0}, {1, 1}, {1, 4096}, {16, 128}, {3, 7}, {1000, 1}}) {
      std::vector<uint64_t> sizes = instance.sizesAt(b, s);
      for (const SymbolicPlan *plan : {&partitions, &ordered}) {
        auto placement = evaluateSymbolicPlan(*plan, instance.items, sizes);
        ASSERT_TRUE(placement.has_value());
        EXPECT_TRUE(validAt(instance, *placement, sizes))
            << "trial " << trial << " at B=" << b << " S=" << s;
        EXPECT_GE(placement->arena, peakAt(instance, sizes));
      }
    }
    for (int k = 0; k < 5; ++k) {
      std::vector<uint64_t> sizes = instance.sizesAt(rng() % 300, rng() % 3000);
      auto placement = evaluateSymbolicPlan(ordered, instance.items, sizes);
      ASSERT_TRUE(placement.has_value());
      EXPECT_TRUE(validAt(instance, *placement, sizes));
    }
  }
}

TEST(SymbolicTest, OrderedIsNoWorseThanItsPackingAtTheRepresentativeSizes) {
  std::mt19937_64 rng(11);
  PackOptions options;
  options.workLimit = 2000000;
  for (int trial = 0; trial < 40; ++trial) {
    Instance instance = randomInstance(rng, 2 + rng() % 80, 50);
    std::vector<uint64_t> sizes = instance.sizesAt(8, 256);
    std::vector<PackItem> items;
    for (size_t i = 0; i < sizes.size(); ++i)
      items.push_back({instance.items[i].live, std::max<uint64_t>(sizes[i], 1),
                       instance.items[i].alignment});
    PackResult packed = pack(items, options);
    SymbolicPlan ordered = planOrdered(instance.items, sizes, options);
    auto placement = evaluateSymbolicPlan(ordered, instance.items, sizes);
    ASSERT_TRUE(placement.has_value());
    EXPECT_LE(placement->arena, packed.arena) << "trial " << trial;
  }
}

TEST(SymbolicTest, PartitionsMatchTractsScheme) {
  // Two buffers with disjoint lifetimes share a partition as large as the
  // larger; a third overlapping both stacks on top.
  std::vector<SymbolicItem> items = {{{0, 2}, 1}, {{2, 4}, 1}, {{1, 3}, 1}};
  SymbolicPlan plan = planPartitions(items, {100, 40, 10});
  auto placement = evaluateSymbolicPlan(plan, items, {100, 40, 10});
  ASSERT_TRUE(placement.has_value());
  EXPECT_EQ(placement->offsets, (std::vector<uint64_t>{0, 0, 100}));
  EXPECT_EQ(placement->arena, 110u);
  // Sizes change at run time: the partition grows with its largest member.
  placement = evaluateSymbolicPlan(plan, items, {10, 400, 10});
  ASSERT_TRUE(placement.has_value());
  EXPECT_EQ(placement->offsets, (std::vector<uint64_t>{0, 0, 400}));
}

TEST(SymbolicTest, AlignmentAndOverflow) {
  std::vector<SymbolicItem> items = {{{0, 2}, 1}, {{1, 3}, 64}};
  SymbolicPlan plan = planOrdered(items, {3, 8}, PackOptions());
  auto placement = evaluateSymbolicPlan(plan, items, {3, 8});
  ASSERT_TRUE(placement.has_value());
  EXPECT_EQ(placement->offsets[1] % 64, 0u);
  EXPECT_FALSE(
      evaluateSymbolicPlan(plan, items, {UINT64_MAX - 2, 8}).has_value());
  EXPECT_FALSE(
      evaluateSymbolicPlan(plan, items, {3, UINT64_MAX - 2}).has_value());
}

TEST(SymbolicTest, CheckFindsUnorderedPairs) {
  std::vector<SymbolicItem> items = {{{0, 2}, 1}, {{1, 3}, 1}};
  SymbolicPlan plan;
  plan.below = {{}, {}};
  plan.order = {0, 1};
  auto problem = checkSymbolicPlan(plan, items);
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("neither is below the other"), std::string::npos);
  plan.below[0] = {1};
  EXPECT_TRUE(checkSymbolicPlan(plan, items).has_value()); // not in order
  plan.below[0] = {};
  plan.below[1] = {0};
  EXPECT_EQ(checkSymbolicPlan(plan, items), std::nullopt);
}

} // namespace
