//===- remat_chains.cpp - Chain checkpointing vs revolve's optimum --------===//
//
// Part of memplan's benchmarks. For uniform chains N in {16, 64, 256, 1024}
// and slots s in {2, 4, 8, sqrt N}: the extra forward steps of memplan's DP
// and of revolve's closed form (they must be equal), and the DP's time.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/Chain.h"

#include <chrono>
#include <cmath>
#include <cstdio>

using namespace mlir::memplan;

int main() {
  std::printf("| N | s | revolve extra | memplan DP extra | equal | DP ms |\n");
  std::printf("|---|---|---|---|---|---|\n");
  bool allEqual = true;
  for (uint64_t n : {16, 64, 256, 1024}) {
    uint64_t root = uint64_t(std::lround(std::sqrt(double(n))));
    for (uint64_t s : {uint64_t(2), uint64_t(4), uint64_t(8), root}) {
      if (s == root && (s == 2 || s == 4 || s == 8))
        continue; // already measured above
      auto begin = std::chrono::steady_clock::now();
      uint64_t dp = chainForwardStepsDP(n, s);
      double ms = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - begin)
                      .count();
      uint64_t closed = revolveForwardSteps(n, s);
      allEqual &= dp == closed;
      std::printf("| %llu | %llu%s | %llu | %llu | %s | %.2f |\n",
                  (unsigned long long)n, (unsigned long long)s,
                  s == root && s > 8 ? " (√N)" : "",
                  (unsigned long long)(closed - (n - 1)),
                  (unsigned long long)(dp - (n - 1)),
                  dp == closed ? "yes" : "NO", ms);
    }
  }
  return allEqual ? 0 : 1;
}
