//===- RematMILPTest.cpp - Tests for the optimal remat MILP ---------------===//
//
// Part of memplan. Skipped when the build has no CBC.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/RematMILP.h"
#include "RandomRematGraph.h"

#include "gtest/gtest.h"

#include <functional>
#include <random>

using namespace mlir::memplan;

namespace {

/// The cheapest stage-ordered schedule within `budget` by exhaustive search:
/// stage t recomputes any subset of the forward nodes before t, in index
/// order, then runs t. Returns the cost, or infinity when none fits.
double exhaustive(const RematGraph &g, uint64_t budget) {
  size_t n = g.nodes.size();
  double best = std::numeric_limits<double>::infinity();
  std::vector<size_t> schedule;
  std::function<void(size_t)> stage = [&](size_t t) {
    // A prefix's peak never exceeds the whole schedule's (later reads only
    // extend lifetimes), and costs only grow: prune on both.
    RematCost sofar = simulateSchedule(g, schedule);
    if (sofar.peak > budget || sofar.cost >= best)
      return;
    if (t == n) {
      best = sofar.cost;
      return;
    }
    std::vector<size_t> candidates;
    for (size_t i = 0; i < t; ++i)
      if (!g.nodes[i].backward)
        candidates.push_back(i);
    for (uint32_t mask = 0; mask < (1u << candidates.size()); ++mask) {
      size_t mark = schedule.size();
      for (size_t k = 0; k < candidates.size(); ++k)
        if (mask >> k & 1)
          schedule.push_back(candidates[k]);
      schedule.push_back(t);
      stage(t + 1);
      schedule.resize(mark);
    }
  };
  stage(0);
  return best;
}

TEST(RematMILPTest, EqualsExhaustiveSearch) {
  if (!rematMILPAvailable())
    GTEST_SKIP() << "built without CBC";
  std::mt19937_64 rng(3);
  int solved = 0;
  for (int iter = 0; iter < 60; ++iter) {
    int f = std::uniform_int_distribution<int>(2, 4)(rng);
    RematGraph g = randomGraph(rng, f, 40);
    std::vector<size_t> keepAll(g.nodes.size());
    for (size_t i = 0; i < keepAll.size(); ++i)
      keepAll[i] = i;
    uint64_t top = simulateSchedule(g, keepAll).peak;
    for (uint64_t budget : {top, top * 3 / 4, top / 2}) {
      double optimum = exhaustive(g, budget);
      RematMILPResult r = solveRematMILP(g, budget, 60);
      if (std::isinf(optimum)) {
        EXPECT_EQ(r.status, RematMILPResult::Status::Infeasible)
            << "instance " << iter << " budget " << budget;
        continue;
      }
      ASSERT_EQ(r.status, RematMILPResult::Status::Optimal)
          << "instance " << iter << " budget " << budget;
      ASSERT_FALSE(checkSchedule(g, r.schedule).has_value());
      RematCost c = simulateSchedule(g, r.schedule);
      EXPECT_LE(c.peak, budget) << "instance " << iter;
      EXPECT_NEAR(c.cost, optimum, 1e-6)
          << "instance " << iter << " budget " << budget;
      ++solved;
    }
  }
  EXPECT_GT(solved, 60);
}

TEST(RematMILPTest, StartScheduleIsAccepted) {
  if (!rematMILPAvailable())
    GTEST_SKIP() << "built without CBC";
  // Offering the greedy plan's schedule never makes the optimum worse.
  std::mt19937_64 rng(9);
  for (int iter = 0; iter < 20; ++iter) {
    RematGraph g = randomGraph(rng, 4, 40);
    RematOptions options;
    options.policy = RematPolicy::Budget;
    options.budget = planRemat(g, options).result.peak * 3 / 4 + 1;
    RematPlan plan = planRemat(g, options);
    if (!plan.feasible)
      continue;
    RematMILPResult with =
        solveRematMILP(g, options.budget, 60, rematSchedule(g, plan.recompute));
    RematMILPResult without = solveRematMILP(g, options.budget, 60);
    ASSERT_EQ(with.status, RematMILPResult::Status::Optimal);
    ASSERT_EQ(without.status, RematMILPResult::Status::Optimal);
    EXPECT_NEAR(with.result.cost, without.result.cost, 1e-6);
    EXPECT_LE(with.result.cost, plan.result.cost + 1e-6);
  }
}

} // namespace
