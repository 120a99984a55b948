//===- RandomRematGraph.h - Training graphs for tests ----------*- C++ -*-===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_UNITTESTS_PLANNING_RANDOMREMATGRAPH_H
#define MEMPLAN_UNITTESTS_PLANNING_RANDOMREMATGRAPH_H

#include "memplan/Planning/Remat.h"

#include <random>

namespace mlir {
namespace memplan {

/// A chain of `forward` nodes with occasional skip connections and a mirrored
/// backward pass; costs 1-9 (backward 2-18), sizes 1..maxBytes.
inline RematGraph randomGraph(std::mt19937_64 &rng, int forward, int maxBytes) {
  RematGraph g;
  std::uniform_int_distribution<int> bytes(1, maxBytes);
  std::uniform_int_distribution<int> cost(1, 9);
  for (int i = 0; i < forward; ++i) {
    std::vector<size_t> in;
    if (i > 0)
      in.push_back(i - 1);
    if (i > 1 && rng() % 3 == 0)
      in.push_back(rng() % (i - 1)); // a skip connection
    g.nodes.push_back(
        {i, "", double(cost(rng)), uint64_t(bytes(rng)), false, in});
  }
  // Backward mirror: grad_i reads grad_{i+1} and the forward value i - 1.
  for (int i = forward - 1; i >= 0; --i) {
    std::vector<size_t> in;
    if (i + 1 < forward)
      in.push_back(g.nodes.size() - 1);
    else
      in.push_back(forward - 1);
    if (i > 0)
      in.push_back(i - 1);
    if (rng() % 2)
      in.push_back(i);
    g.nodes.push_back({int64_t(g.nodes.size()), "", double(2 * cost(rng)),
                       uint64_t(bytes(rng)), true, in});
  }
  return g;
}

/// test/Tools/memplan-remat/Inputs/example.json: three layers, a loss, three
/// grads.
inline RematGraph exampleGraph() {
  RematGraph g;
  auto add = [&](bool backward, double cost, uint64_t bytes,
                 std::vector<size_t> inputs) {
    g.nodes.push_back(
        {int64_t(g.nodes.size()), "", cost, bytes, backward, inputs});
  };
  add(false, 10, 4096, {});
  add(false, 10, 4096, {0});
  add(false, 10, 4096, {1});
  add(false, 1, 4, {2});
  add(true, 20, 4096, {3, 2, 1});
  add(true, 20, 4096, {4, 1, 0});
  add(true, 20, 4096, {5, 0});
  return g;
}

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_UNITTESTS_PLANNING_RANDOMREMATGRAPH_H
