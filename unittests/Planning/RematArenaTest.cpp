//===- RematArenaTest.cpp - The packed arena of a remat schedule ----------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/RematArena.h"
#include "RandomRematGraph.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir::memplan;

namespace {

TEST(RematArenaTest, ExampleByHand) {
  // Keep-all: node k runs at step k and lives to its last reader. At step 4
  // nodes 0-3 and 4's output are live: 4 x 4096 + 4 bytes; the packer gets
  // that peak. Aligned to 64, the 4-byte loss takes 64.
  RematGraph g = exampleGraph();
  std::vector<size_t> keepAll = {0, 1, 2, 3, 4, 5, 6};
  std::vector<PackItem> items = rematScheduleItems(g, keepAll, 1);
  ASSERT_EQ(items.size(), 7u);
  EXPECT_EQ(items[0].live.start, 0);
  EXPECT_EQ(items[0].live.end, 7); // read by 1, 5 and 6
  EXPECT_EQ(items[3].live.end, 5); // the loss, read by 4
  EXPECT_EQ(items[6].live.end, 7); // read by nobody: its own step
  std::optional<RematArenaPrediction> p =
      predictRematArena(g, keepAll, 1, PackOptions());
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->lowerBound, 4u * 4096 + 4);
  EXPECT_EQ(p->arena, 4u * 4096 + 4);
  p = predictRematArena(g, keepAll, 64, PackOptions());
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->arena, 4u * 4096 + 64);
}

TEST(RematArenaTest, ItemsPeakIsTheScheduleModelsPeak) {
  // The buffers of a schedule peak exactly where the remat memory model
  // does (simulateSchedule), for every plan the budget search walks.
  std::mt19937_64 rng(3);
  int plans = 0;
  for (int iter = 0; iter < 200; ++iter) {
    RematGraph g = randomGraph(rng, 2 + iter % 10, 100);
    for (const RematPlan &plan : rematBudgetSequence(g, 16, true)) {
      std::vector<PackItem> items = rematScheduleItems(g, plan.schedule, 1);
      ASSERT_EQ(packLowerBound(items), plan.result.peak)
          << "graph " << iter << ", plan " << plans;
      std::optional<RematArenaPrediction> p =
          predictRematArena(g, plan.schedule, 8, PackOptions());
      ASSERT_TRUE(p.has_value());
      ASSERT_GE(p->arena, p->lowerBound);
      ASSERT_GE(p->lowerBound, plan.result.peak);
      ++plans;
    }
  }
  EXPECT_GT(plans, 400);
}

} // namespace
