//===- pack_random.cpp - Every packing algorithm on random instances ------===//
//
// Part of memplan's benchmarks (issue 13: "a million random packing
// instances"). For each of --count random instances (seeded: the same
// --seed gives the same instances and the same plans: best and exact are
// bounded by --work-limit),
// runs every algorithm — greedy-size, greedy-time, first-fit-size,
// first-fit-start, best, exact, and best
// under a random capacity — and checks, with code of its own (not
// checkPacking):
//   * the plan: one aligned offset per buffer, no two buffers that overlap
//     in time share a byte, the arena is the highest end;
//   * the lower bound: the peak of live bytes, recomputed here;
//   * every claim: `optimal` only when the arena is the optimum (brute force
//     for instances of at most --brute-max buffers; otherwise the arena must
//     equal the lower bound or be matched by `exact` at its default work
//     limit, which may only confirm it), `provenInfeasible` only when the
//     optimum exceeds the capacity.
// Prints one summary line and exits 1 on any violation, printing the
// instance as CSV.
//
//   memplan-bench-pack-random [--count=N] [--seed=S] [--max-items=K]
//                             [--brute-max=B] [--work-limit=W]
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/Packing.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace llvm;
using namespace mlir::memplan;

static cl::opt<uint64_t> instances("count", cl::desc("Instances"),
                                   cl::init(1000));
static cl::opt<uint64_t> seed("seed", cl::desc("First seed"), cl::init(1));
static cl::opt<unsigned>
    maxItems("max-items", cl::desc("Most buffers per instance"), cl::init(24));
static cl::opt<unsigned>
    bruteMax("brute-max",
             cl::desc("Instances up to this many buffers get the brute-force "
                      "optimum"),
             cl::init(7));
static cl::opt<uint64_t>
    workLimit("work-limit",
              cl::desc("Work units for best and exact per call (the default "
                       "is about 5 ms)"),
              cl::init(2500000));

namespace {
/// A random instance: a few shapes of lifetimes (short, nested, long, all
/// overlapping), sizes of a few scales, alignments up to 64.
std::vector<PackItem> makeInstance(std::mt19937_64 &rng) {
  auto pick = [&](uint64_t lo, uint64_t hi) {
    return lo + rng() % (hi - lo + 1);
  };
  unsigned n = unsigned(pick(1, maxItems));
  if (rng() % 3 == 0)
    n = unsigned(pick(1, std::min<unsigned>(bruteMax, maxItems)));
  int64_t horizon = int64_t(pick(1, 3 * n + 2));
  unsigned shape = unsigned(rng() % 4);
  uint64_t scale = uint64_t(1) << (rng() % 3 == 0 ? pick(10, 40) : 0);
  std::vector<PackItem> items(n);
  for (PackItem &item : items) {
    int64_t start = int64_t(rng() % uint64_t(horizon));
    int64_t length = shape == 0   ? 1 + int64_t(rng() % 3)
                     : shape == 1 ? 1 + int64_t(rng() % uint64_t(horizon))
                     : shape == 2 ? horizon
                                  : 1 + int64_t(rng() % 8);
    if (shape == 2)
      start = 0;
    item.live = {start, start + length};
    item.size = pick(1, 100) * (rng() % 4 == 0 ? scale : 1);
    item.alignment = rng() % 3 == 0 ? uint64_t(1) << pick(0, 6) : 1;
  }
  return items;
}

bool overlapInTime(const PackItem &a, const PackItem &b) {
  return a.live.start < b.live.end && b.live.start < a.live.end;
}

/// The plan's arena, or a message.
std::string checkPlan(const std::vector<PackItem> &items, const PackResult &r) {
  if (r.offsets.size() != items.size())
    return "wrong number of offsets";
  uint64_t arena = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    if (r.offsets[i] % items[i].alignment != 0)
      return "buffer " + std::to_string(i) + " misaligned";
    arena = std::max(arena, r.offsets[i] + items[i].size);
    for (size_t j = 0; j < i; ++j)
      if (overlapInTime(items[i], items[j]) &&
          r.offsets[i] < r.offsets[j] + items[j].size &&
          r.offsets[j] < r.offsets[i] + items[i].size)
        return "buffers " + std::to_string(j) + " and " + std::to_string(i) +
               " share bytes";
  }
  if (arena != r.arena)
    return "arena " + std::to_string(r.arena) + " but the plan ends at " +
           std::to_string(arena);
  return "";
}

uint64_t peakLiveBytes(const std::vector<PackItem> &items) {
  uint64_t peak = 0;
  // The peak is reached at some buffer's start.
  for (const PackItem &at : items) {
    uint64_t live = 0;
    for (const PackItem &item : items)
      if (item.live.start <= at.live.start && at.live.start < item.live.end)
        live += item.size;
    peak = std::max(peak, live);
  }
  return peak;
}

/// The optimum: the least arena over all orders of placing each buffer at
/// the lowest aligned offset where it fits among those placed before it
/// that it overlaps in time (pushing an optimal packing down in offset
/// order gives such a placement, so the minimum is the optimum).
uint64_t bruteForceOptimum(const std::vector<PackItem> &items) {
  std::vector<size_t> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  uint64_t best = UINT64_MAX;
  std::vector<uint64_t> offset(items.size());
  do {
    uint64_t arena = 0;
    for (size_t k = 0; k < order.size() && arena < best; ++k) {
      const PackItem &item = items[order[k]];
      // Candidates: 0 and the aligned tops of the placed overlapping ones.
      std::vector<uint64_t> candidates{0};
      for (size_t q = 0; q < k; ++q)
        if (overlapInTime(item, items[order[q]]))
          candidates.push_back(offset[order[q]] + items[order[q]].size);
      uint64_t chosen = UINT64_MAX;
      for (uint64_t c : candidates) {
        uint64_t at =
            (c + item.alignment - 1) / item.alignment * item.alignment;
        bool fits = true;
        for (size_t q = 0; q < k && fits; ++q) {
          const PackItem &other = items[order[q]];
          fits = !overlapInTime(item, other) ||
                 at + item.size <= offset[order[q]] ||
                 offset[order[q]] + other.size <= at;
        }
        if (fits)
          chosen = std::min(chosen, at);
      }
      offset[order[k]] = chosen;
      arena = std::max(arena, chosen + item.size);
    }
    best = std::min(best, arena);
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

void printInstance(const std::vector<PackItem> &items) {
  std::fprintf(stderr, "id,lower,upper,size,alignment\n");
  for (size_t i = 0; i < items.size(); ++i)
    std::fprintf(stderr, "b%zu,%lld,%lld,%llu,%llu\n", i,
                 (long long)items[i].live.start, (long long)items[i].live.end,
                 (unsigned long long)items[i].size,
                 (unsigned long long)items[i].alignment);
}
} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv,
                              "memplan-bench-pack-random: every packing "
                              "algorithm on random instances, checked\n");
  auto begin = std::chrono::steady_clock::now();
  uint64_t plans = 0, optimalClaims = 0, bruteChecked = 0, infeasibleClaims = 0,
           unconfirmed = 0;
  struct Run {
    const char *name;
    PackAlgorithm algorithm;
    bool capacity;
  };
  const Run runs[] = {{"greedy-size", PackAlgorithm::GreedySize, false},
                      {"greedy-time", PackAlgorithm::GreedyTime, false},
                      {"first-fit-size", PackAlgorithm::FirstFitSize, false},
                      {"first-fit-start", PackAlgorithm::FirstFitStart, false},
                      {"best", PackAlgorithm::Best, false},
                      {"exact", PackAlgorithm::Exact, false},
                      {"best --capacity", PackAlgorithm::Best, true},
                      {"exact --capacity", PackAlgorithm::Exact, true}};
  for (uint64_t k = 0; k < instances; ++k) {
    std::mt19937_64 rng(seed + k);
    std::vector<PackItem> items = makeInstance(rng);
    auto fail = [&](const Run &run, const std::string &what) {
      std::fprintf(stderr, "instance %llu (seed %llu), %s: %s\n",
                   (unsigned long long)k, (unsigned long long)(seed + k),
                   run.name, what.c_str());
      printInstance(items);
      std::exit(1);
    };
    if (std::optional<std::string> error = validatePackItems(items))
      fail(runs[0], "generated an invalid instance: " + *error);
    uint64_t bound = peakLiveBytes(items);
    std::optional<uint64_t> optimum;
    if (items.size() <= bruteMax)
      optimum = bruteForceOptimum(items);
    for (const Run &run : runs) {
      PackOptions options;
      options.algorithm = run.algorithm;
      options.workLimit = workLimit;
      options.seed = k;
      uint64_t capacity = 0;
      if (run.capacity) {
        // Around the lower bound: below, at, and above it.
        capacity = bound - std::min(bound, uint64_t(rng() % 3)) +
                   rng() % (bound / 4 + 2);
        options.capacity = capacity;
      }
      PackResult r = pack(items, options);
      ++plans;
      if (std::string error = checkPlan(items, r); !error.empty())
        fail(run, "invalid plan: " + error);
      if (r.lowerBound != bound)
        fail(run, "lower bound " + std::to_string(r.lowerBound) +
                      ", the live peak is " + std::to_string(bound));
      if (r.arena < bound)
        fail(run, "arena below the lower bound");
      if (optimum && r.arena < *optimum)
        fail(run, "arena below the brute-force optimum");
      if (r.provenInfeasible) {
        ++infeasibleClaims;
        if (!run.capacity || r.arena <= capacity)
          fail(run, "provenInfeasible without a capacity it misses");
        if (optimum && *optimum <= capacity)
          fail(run, "proven infeasible, but the optimum " +
                        std::to_string(*optimum) + " fits " +
                        std::to_string(capacity));
      }
      if (!r.optimal)
        continue;
      ++optimalClaims;
      if (optimum) {
        ++bruteChecked;
        if (r.arena != *optimum)
          fail(run, "optimal claimed for " + std::to_string(r.arena) +
                        ", the optimum is " + std::to_string(*optimum));
      } else if (r.arena != bound) {
        // Proven by an exhausted search: a longer exact search may only
        // agree (it cannot find less).
        PackOptions exact;
        exact.algorithm = PackAlgorithm::Exact;
        PackResult check = pack(items, exact);
        if (check.arena < r.arena)
          fail(run, "optimal claimed for " + std::to_string(r.arena) +
                        ", exact found " + std::to_string(check.arena));
        ++unconfirmed;
      }
    }
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
          .count();
  std::printf("instances=%llu plans=%llu invalid=0 optimal_claims=%llu "
              "brute_force_checked=%llu checked_by_exact=%llu "
              "infeasible_claims=%llu false_claims=0 seconds=%.1f\n",
              (unsigned long long)instances.getValue(),
              (unsigned long long)plans, (unsigned long long)optimalClaims,
              (unsigned long long)bruteChecked, (unsigned long long)unconfirmed,
              (unsigned long long)infeasibleClaims, seconds);
  return 0;
}
