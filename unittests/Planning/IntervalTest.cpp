//===- IntervalTest.cpp - Tests for intervals and the lower bound ---------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/Interval.h"

#include "gtest/gtest.h"

#include <random>
#include <vector>

using namespace mlir::memplan;

namespace {

/// The oracle: sums the live sizes at every step.
LowerBound bruteForce(const std::vector<LiveRange> &ranges) {
  LowerBound best;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const LiveRange &r : ranges) {
    lo = std::min(lo, r.live.start);
    hi = std::max(hi, r.live.end);
  }
  for (int64_t t = lo; t < hi; ++t) {
    uint64_t live = 0;
    for (const LiveRange &r : ranges)
      if (r.live.contains(t))
        live += r.size;
    if (live > best.bytes) {
      best.bytes = live;
      best.step = t;
    }
  }
  return best;
}

TEST(IntervalTest, Overlap) {
  EXPECT_TRUE((Interval{0, 3}.overlaps(Interval{2, 5})));
  EXPECT_FALSE((Interval{0, 3}.overlaps(Interval{3, 5}))); // half-open
  EXPECT_FALSE((Interval{3, 5}.overlaps(Interval{0, 3})));
  EXPECT_TRUE((Interval{1, 2}.overlaps(Interval{0, 10})));
  EXPECT_FALSE((Interval{2, 2}.isValid()));
}

TEST(LowerBoundTest, Empty) {
  LowerBound lb = computeLowerBound({});
  EXPECT_EQ(lb.bytes, 0u);
  EXPECT_EQ(lb.step, 0);
}

TEST(LowerBoundTest, DesignExample) {
  // The worked example of design.md: a [0, 6) and b [2, 8), 32 B each.
  std::vector<LiveRange> ranges = {{{0, 6}, 32}, {{2, 8}, 32}};
  LowerBound lb = computeLowerBound(ranges);
  EXPECT_EQ(lb.bytes, 64u);
  EXPECT_EQ(lb.step, 2);
}

TEST(LowerBoundTest, EndsBeforeStartsAtTheSameStep) {
  // [0, 3) and [3, 6) never share a step.
  std::vector<LiveRange> ranges = {{{0, 3}, 100}, {{3, 6}, 100}};
  EXPECT_EQ(computeLowerBound(ranges).bytes, 100u);
  EXPECT_EQ(computeLowerBound(ranges).step, 0);
}

TEST(LowerBoundTest, FirstStepOfThePeak) {
  std::vector<LiveRange> ranges = {{{5, 6}, 10}, {{1, 2}, 10}, {{8, 9}, 10}};
  EXPECT_EQ(computeLowerBound(ranges).bytes, 10u);
  EXPECT_EQ(computeLowerBound(ranges).step, 1);
}

TEST(LowerBoundTest, RandomAgainstBruteForce) {
  std::mt19937_64 rng(20261122);
  for (int iter = 0; iter < 10000; ++iter) {
    int n = std::uniform_int_distribution<int>(1, 12)(rng);
    int64_t horizon = std::uniform_int_distribution<int64_t>(1, 20)(rng);
    std::vector<LiveRange> ranges;
    for (int i = 0; i < n; ++i) {
      int64_t a = std::uniform_int_distribution<int64_t>(0, horizon)(rng);
      int64_t b = std::uniform_int_distribution<int64_t>(0, horizon)(rng);
      if (a > b)
        std::swap(a, b);
      if (a == b)
        ++b;
      uint64_t size = std::uniform_int_distribution<uint64_t>(1, 1000)(rng);
      ranges.push_back({{a, b}, size});
    }
    LowerBound expected = bruteForce(ranges);
    LowerBound got = computeLowerBound(ranges);
    ASSERT_EQ(got.bytes, expected.bytes) << "instance " << iter;
    ASSERT_EQ(got.step, expected.step) << "instance " << iter;
  }
}

} // namespace
