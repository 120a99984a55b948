//===- Remat.cpp - Rematerialization on an abstract graph -----------------===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/Remat.h"

#include "llvm/ADT/StringSwitch.h"

#include <algorithm>
#include <cmath>
#include <functional>

using namespace mlir::memplan;

std::optional<std::string> RematGraph::validate() const {
  for (auto [i, node] : llvm::enumerate(nodes)) {
    if (!std::isfinite(node.cost) || node.cost < 0)
      return "node " + std::to_string(node.id) +
             ": cost must be finite and non-negative";
    for (size_t in : node.inputs)
      if (in >= i)
        return "node " + std::to_string(node.id) +
               ": an input does not run before it (ids must be a "
               "topological order)";
  }
  return std::nullopt;
}

double RematGraph::totalCost() const {
  double total = 0;
  for (const RematNode &node : nodes)
    total += node.cost;
  return total;
}

std::optional<RematPolicy>
mlir::memplan::parseRematPolicy(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<RematPolicy>>(name)
      .Case("keep-all", RematPolicy::KeepAll)
      .Case("recompute-all", RematPolicy::RecomputeAll)
      .Case("every-n", RematPolicy::EveryN)
      .Case("cost-threshold", RematPolicy::CostThreshold)
      .Case("sqrt", RematPolicy::Sqrt)
      .Case("budget", RematPolicy::Budget)
      .Default(std::nullopt);
}

llvm::StringRef mlir::memplan::stringifyRematPolicy(RematPolicy policy) {
  switch (policy) {
  case RematPolicy::KeepAll:
    return "keep-all";
  case RematPolicy::RecomputeAll:
    return "recompute-all";
  case RematPolicy::EveryN:
    return "every-n";
  case RematPolicy::CostThreshold:
    return "cost-threshold";
  case RematPolicy::Sqrt:
    return "sqrt";
  case RematPolicy::Budget:
    return "budget";
  }
  return "unknown";
}

namespace {
/// Runs the memory model; optionally records the nodes resident at the
/// (first) peak.
class Simulator {
public:
  explicit Simulator(const RematGraph &g) : g(g) {
    size_t n = g.nodes.size();
    lastUse.assign(n, -1);
    lastForwardUse.assign(n, -1);
    for (size_t v = 0; v < n; ++v)
      for (size_t u : g.nodes[v].inputs) {
        lastUse[u] = std::max<int64_t>(lastUse[u], v);
        if (!g.nodes[v].backward)
          lastForwardUse[u] = std::max<int64_t>(lastForwardUse[u], v);
      }
  }

  RematCost run(llvm::ArrayRef<uint8_t> recompute,
                std::vector<size_t> *residentAtPeak = nullptr,
                std::vector<size_t> *executions = nullptr) {
    size_t n = g.nodes.size();
    trace = executions;
    death.assign(n, -1);
    resident.assign(n, 0);
    bytes = 0;
    result = RematCost();
    peakSet = residentAtPeak;
    for (size_t v = 0; v < n; ++v) {
      const RematNode &node = g.nodes[v];
      if (node.backward)
        for (size_t u : node.inputs)
          ensure(u, v, recompute);
      // Its own output: recomputed forward outputs die after their last
      // forward use; others after their last use; unused ones right away.
      int64_t d = recompute.size() > v && recompute[v] && !node.backward
                      ? lastForwardUse[v]
                      : lastUse[v];
      execute(v, v, std::max<int64_t>(d, v));
    }
    return result;
  }

private:
  /// Makes `u` resident before the node at schedule position `now` runs,
  /// as a memplan.recompute region would: non-resident ancestors are rebuilt
  /// as temporaries (freed once `u` exists); `u` stays until its last use.
  void ensure(size_t u, size_t now, llvm::ArrayRef<uint8_t> recompute) {
    if (resident[u])
      return;
    std::vector<size_t> temps;
    materialize(u, now, temps);
    death[u] = std::max<int64_t>(lastUse[u], int64_t(now) - 1);
    for (size_t t : temps)
      if (resident[t]) {
        resident[t] = 0;
        bytes -= g.nodes[t].bytes;
      }
  }

  void materialize(size_t x, size_t now, std::vector<size_t> &temps) {
    for (size_t w : g.nodes[x].inputs)
      if (!resident[w]) {
        materialize(w, now, temps);
        temps.push_back(w);
      }
    // Alive at least while the region runs.
    execute(x, now, INT64_MAX);
  }

  /// Runs `v` at schedule position `now`; its output dies after position
  /// `dies`.
  void execute(size_t v, size_t now, int64_t dies) {
    const RematNode &node = g.nodes[v];
    if (trace)
      trace->push_back(v);
    bytes += node.bytes;
    resident[v] = 1;
    death[v] = dies;
    result.cost += node.cost;
    if (bytes > result.peak) {
      result.peak = bytes;
      if (peakSet) {
        peakSet->clear();
        for (size_t i = 0; i < resident.size(); ++i)
          if (resident[i])
            peakSet->push_back(i);
      }
    }
    // Free what is no longer needed: inputs past their death (at the
    // scheduled node itself, also those dying now) and the output if unused.
    bool scheduled = v == now;
    auto dead = [&](size_t w) {
      return death[w] < int64_t(now) || (scheduled && death[w] == int64_t(now));
    };
    for (size_t w : node.inputs)
      if (resident[w] && dead(w)) {
        resident[w] = 0;
        bytes -= g.nodes[w].bytes;
      }
    if (dead(v)) {
      resident[v] = 0;
      bytes -= node.bytes;
    }
  }

  const RematGraph &g;
  std::vector<int64_t> lastUse, lastForwardUse, death;
  std::vector<uint8_t> resident;
  uint64_t bytes = 0;
  RematCost result;
  std::vector<size_t> *peakSet = nullptr;
  std::vector<size_t> *trace = nullptr;
};
} // namespace

RematCost mlir::memplan::simulateRemat(const RematGraph &graph,
                                       llvm::ArrayRef<uint8_t> recompute) {
  return Simulator(graph).run(recompute);
}

std::vector<size_t>
mlir::memplan::rematSchedule(const RematGraph &graph,
                             llvm::ArrayRef<uint8_t> recompute) {
  std::vector<size_t> executions;
  Simulator(graph).run(recompute, nullptr, &executions);
  return executions;
}

std::optional<std::string>
mlir::memplan::checkSchedule(const RematGraph &graph,
                             llvm::ArrayRef<size_t> schedule) {
  size_t n = graph.nodes.size();
  std::vector<uint32_t> runs(n, 0);
  for (auto [q, v] : llvm::enumerate(schedule)) {
    if (v >= n)
      return "execution " + std::to_string(q) + " names no node";
    for (size_t u : graph.nodes[v].inputs)
      if (!runs[u])
        return "execution " + std::to_string(q) + " (node " +
               std::to_string(graph.nodes[v].id) + ") reads node " +
               std::to_string(graph.nodes[u].id) + " before it has run";
    ++runs[v];
  }
  for (size_t v = 0; v < n; ++v) {
    if (!runs[v])
      return "node " + std::to_string(graph.nodes[v].id) + " never runs";
    if (graph.nodes[v].backward && runs[v] != 1)
      return "backward node " + std::to_string(graph.nodes[v].id) +
             " runs more than once";
  }
  return std::nullopt;
}

std::vector<size_t>
mlir::memplan::scheduleLastReads(const RematGraph &graph,
                                 llvm::ArrayRef<size_t> schedule) {
  std::vector<int64_t> latest(graph.nodes.size(), -1);
  std::vector<size_t> end(schedule.size());
  for (size_t q = 0; q < schedule.size(); ++q) {
    end[q] = q;
    for (size_t u : graph.nodes[schedule[q]].inputs)
      end[latest[u]] = q;
    latest[schedule[q]] = q;
  }
  return end;
}

RematCost mlir::memplan::simulateSchedule(const RematGraph &graph,
                                          llvm::ArrayRef<size_t> schedule) {
  size_t m = schedule.size();
  std::vector<size_t> end = scheduleLastReads(graph, schedule);
  std::vector<std::vector<size_t>> freedAfter(m);
  for (size_t p = 0; p < m; ++p)
    freedAfter[end[p]].push_back(p);
  RematCost result;
  uint64_t bytes = 0;
  for (size_t q = 0; q < m; ++q) {
    const RematNode &node = graph.nodes[schedule[q]];
    bytes += node.bytes;
    result.cost += node.cost;
    result.peak = std::max(result.peak, bytes);
    for (size_t p : freedAfter[q])
      bytes -= graph.nodes[schedule[p]].bytes;
  }
  return result;
}

std::vector<size_t>
mlir::memplan::pruneSchedule(const RematGraph &graph,
                             llvm::ArrayRef<size_t> schedule) {
  std::vector<size_t> current(schedule.begin(), schedule.end());
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<uint32_t> runs(graph.nodes.size(), 0);
    for (size_t v : current)
      ++runs[v];
    // An instance nobody reads lives only at its own position.
    std::vector<size_t> end = scheduleLastReads(graph, current);
    std::vector<size_t> kept;
    for (size_t q = 0; q < current.size(); ++q) {
      size_t v = current[q];
      if (end[q] == q && runs[v] > 1 && !graph.nodes[v].backward) {
        --runs[v];
        changed = true;
        continue;
      }
      kept.push_back(v);
    }
    current = std::move(kept);
  }
  return current;
}

std::vector<size_t> mlir::memplan::rematGreedyOrder(const RematGraph &graph,
                                                    uint64_t stopAtPeak) {
  size_t n = graph.nodes.size();
  Simulator sim(graph);
  // Only forward nodes read by a backward node matter (others die after the
  // forward pass anyway).
  std::vector<uint8_t> readByBackward(n, 0);
  for (const RematNode &node : graph.nodes)
    if (node.backward)
      for (size_t u : node.inputs)
        readByBackward[u] = 1;
  std::vector<size_t> forward;
  for (size_t i = 0; i < n; ++i)
    if (!graph.nodes[i].backward && readByBackward[i])
      forward.push_back(i);
  std::vector<uint8_t> current(n, 0);
  std::vector<size_t> atPeak, order;
  RematCost now = sim.run(current, &atPeak);
  while (now.peak > stopAtPeak) {
    // Candidates: kept forward nodes resident at the peak; once none is
    // left, any kept forward node the backward pass reads (the order then
    // continues towards recompute-all).
    std::vector<size_t> candidates;
    for (size_t c : atPeak)
      if (!graph.nodes[c].backward && !current[c] && readByBackward[c])
        candidates.push_back(c);
    if (candidates.empty())
      for (size_t c : forward)
        if (!current[c])
          candidates.push_back(c);
    size_t best = SIZE_MAX;
    double bestScore = -1;
    for (size_t c : candidates) {
      current[c] = 1;
      RematCost trial = sim.run(current);
      current[c] = 0;
      double gain = double(now.peak) - double(trial.peak);
      double added = trial.cost - now.cost;
      // Lower the peak most per unit of added cost; ties: more bytes.
      double score = gain > 0 ? gain / (added + 1e-9) : 0;
      if (best == SIZE_MAX || score > bestScore ||
          (score == bestScore &&
           graph.nodes[c].bytes > graph.nodes[best].bytes)) {
        best = c;
        bestScore = score;
      }
    }
    if (best == SIZE_MAX)
      break; // everything the backward pass reads is recomputed
    current[best] = 1;
    order.push_back(best);
    now = sim.run(current, &atPeak);
  }
  return order;
}

RematPlan mlir::memplan::planRemat(const RematGraph &graph,
                                   const RematOptions &options) {
  size_t n = graph.nodes.size();
  Simulator sim(graph);
  RematPlan plan;
  plan.recompute.assign(n, 0);
  std::vector<size_t> forward;
  for (size_t i = 0; i < n; ++i)
    if (!graph.nodes[i].backward)
      forward.push_back(i);
  auto finish = [&] {
    plan.result = sim.run(plan.recompute);
    plan.feasible = plan.result.peak <= options.budget;
    plan.smallestPeak = plan.result.peak;
    return plan;
  };
  switch (options.policy) {
  case RematPolicy::KeepAll:
    return finish();
  case RematPolicy::RecomputeAll:
    for (size_t i : forward)
      plan.recompute[i] = 1;
    return finish();
  case RematPolicy::EveryN:
  case RematPolicy::Sqrt: {
    uint64_t every = options.every;
    if (options.policy == RematPolicy::Sqrt)
      every = std::max<uint64_t>(
          1, uint64_t(std::ceil(std::sqrt(double(forward.size())))));
    for (size_t k = 0; k < forward.size(); ++k)
      plan.recompute[forward[k]] = k % std::max<uint64_t>(every, 1) != 0;
    return finish();
  }
  case RematPolicy::CostThreshold:
    for (size_t i : forward)
      plan.recompute[i] = graph.nodes[i].cost < options.threshold;
    return finish();
  case RematPolicy::Budget:
    break;
  }

  // The greedy order, independent of the budget, until a prefix fits.
  struct Prefix {
    uint64_t peak;
    size_t added; // node recomputed by this step (SIZE_MAX for the start)
  };
  std::vector<Prefix> prefixes{{sim.run(plan.recompute).peak, SIZE_MAX}};
  std::vector<uint8_t> current(n, 0);
  for (size_t node : rematGreedyOrder(graph, options.budget)) {
    current[node] = 1;
    prefixes.push_back({sim.run(current).peak, node});
  }
  // The shortest prefix that fits; the smallest peak of any prefix.
  plan.smallestPeak = UINT64_MAX;
  size_t chosen = SIZE_MAX;
  for (size_t k = 0; k < prefixes.size(); ++k) {
    plan.smallestPeak = std::min(plan.smallestPeak, prefixes[k].peak);
    if (chosen == SIZE_MAX && prefixes[k].peak <= options.budget)
      chosen = k;
  }
  plan.feasible = chosen != SIZE_MAX;
  if (!plan.feasible) {
    // Report the plan with the smallest peak.
    chosen = 0;
    for (size_t k = 1; k < prefixes.size(); ++k)
      if (prefixes[k].peak < prefixes[chosen].peak)
        chosen = k;
  }
  for (size_t k = 1; k <= chosen; ++k)
    plan.recompute[prefixes[k].added] = 1;
  plan.result = sim.run(plan.recompute);
  return plan;
}
