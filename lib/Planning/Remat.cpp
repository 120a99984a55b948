//===- Remat.cpp - Rematerialization on an abstract graph -----------------===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/Remat.h"
#include "memplan/Planning/Limits.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <tuple>

using namespace mlir::memplan;

std::optional<std::string> RematGraph::validate() const {
  uint64_t bytes = 0;
  double cost = 0;
  for (auto [i, node] : llvm::enumerate(nodes)) {
    if (!std::isfinite(node.cost) || node.cost < 0)
      return "node " + std::to_string(node.id) +
             ": cost must be finite and non-negative";
    // Every peak and schedule cost stays far from overflow: a node has one
    // live instance at a time, and runs at most once per node after it.
    cost += node.cost;
    if (!(cost <= kMaxTotalCost))
      return "node " + std::to_string(node.id) +
             ": the costs up to here total more than 1e30";
    std::optional<uint64_t> sum = llvm::checkedAddUnsigned(bytes, node.bytes);
    if (!sum || *sum > kMaxTotalBytes)
      return "node " + std::to_string(node.id) +
             ": the output sizes up to here total more than 2^63-1 bytes";
    bytes = *sum;
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
    toggles.clear();
    peakMark = 0;
    executed = 0;
    truncated = false;
    for (size_t v = 0; v < n && !truncated; ++v) {
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
    if (peakSet && !truncated) {
      // The resident set at the (first) peak: the toggles up to it replayed
      // (copying the set at every new peak was quadratic on a chain).
      std::vector<uint8_t> at(n, 0);
      for (size_t k = 0; k < peakMark; ++k)
        at[toggles[k] / 2] = toggles[k] % 2;
      peakSet->clear();
      for (size_t i = 0; i < n; ++i)
        if (at[i])
          peakSet->push_back(i);
    }
    return result;
  }

  /// run() under the work meter: at most the executions left in `work`
  /// (and kMaxRematScheduleLength when it records them); charges the nodes
  /// visited and the executions made. std::nullopt when it stopped early
  /// (`tooLong` then says whether the schedule's length did it).
  std::optional<RematCost> run(RematWork *work,
                               llvm::ArrayRef<uint8_t> recompute,
                               std::vector<size_t> *residentAtPeak = nullptr,
                               std::vector<size_t> *executions = nullptr) {
    uint64_t left = work ? work->left() : UINT64_MAX;
    maxExecutions = executions ? std::min(left, kMaxRematScheduleLength) : left;
    RematCost cost = run(recompute, residentAtPeak, executions);
    maxExecutions = UINT64_MAX;
    tooLong = truncated && executions && left > kMaxRematScheduleLength;
    if (work)
      work->charge(g.nodes.size() + executed);
    if (truncated) {
      if (work)
        work->stopped = true;
      return std::nullopt;
    }
    return cost;
  }

  bool tooLong = false;
  /// The executions the last run made.
  uint64_t executions() const { return executed; }

private:
  /// Makes `u` resident before the node at schedule position `now` runs,
  /// as a memplan.recompute region would: non-resident ancestors are rebuilt
  /// as temporaries (freed once `u` exists); `u` stays until its last use.
  void ensure(size_t u, size_t now, llvm::ArrayRef<uint8_t> recompute) {
    if (resident[u])
      return;
    std::vector<size_t> temps;
    materialize(u, now, temps);
    if (truncated)
      return;
    death[u] = std::max<int64_t>(lastUse[u], int64_t(now) - 1);
    for (size_t t : temps)
      if (resident[t]) {
        setResident(t, 0);
        bytes -= g.nodes[t].bytes;
      }
  }

  /// Rebuilds `x` and, first, its non-resident ancestors, inputs in order,
  /// depth first (an explicit stack: the chain of ancestors to rebuild can
  /// be as long as the graph). Each rebuilt ancestor goes into `temps`
  /// once it exists.
  void materialize(size_t x, size_t now, std::vector<size_t> &temps) {
    stack.clear();
    stack.push_back({x, 0});
    while (!stack.empty() && !truncated) {
      auto &[v, next] = stack.back();
      const std::vector<size_t> &inputs = g.nodes[v].inputs;
      while (next < inputs.size() && resident[inputs[next]])
        ++next;
      if (next < inputs.size()) {
        size_t w = inputs[next++];
        stack.push_back({w, 0}); // invalidates v and next
        continue;
      }
      size_t done = v;
      stack.pop_back();
      // Alive at least while the region runs.
      execute(done, now, INT64_MAX);
      if (!stack.empty())
        temps.push_back(done);
    }
  }

  /// Runs `v` at schedule position `now`; its output dies after position
  /// `dies`.
  void execute(size_t v, size_t now, int64_t dies) {
    const RematNode &node = g.nodes[v];
    if (++executed > maxExecutions) {
      truncated = true;
      return;
    }
    if (trace)
      trace->push_back(v);
    bytes += node.bytes;
    setResident(v, 1);
    death[v] = dies;
    result.cost += node.cost;
    if (bytes > result.peak) {
      result.peak = bytes;
      peakMark = toggles.size();
    }
    // Free what is no longer needed: inputs past their death (at the
    // scheduled node itself, also those dying now) and the output if unused.
    bool scheduled = v == now;
    auto dead = [&](size_t w) {
      return death[w] < int64_t(now) || (scheduled && death[w] == int64_t(now));
    };
    for (size_t w : node.inputs)
      if (resident[w] && dead(w)) {
        setResident(w, 0);
        bytes -= g.nodes[w].bytes;
      }
    if (dead(v)) {
      setResident(v, 0);
      bytes -= node.bytes;
    }
  }

  const RematGraph &g;
  std::vector<int64_t> lastUse, lastForwardUse, death;
  std::vector<uint8_t> resident;
  uint64_t bytes = 0;
  RematCost result;
  std::vector<size_t> *peakSet = nullptr;
  /// With peakSet: every change of `resident` in order (2 x + its new
  /// value), and how many of them had happened at the peak.
  std::vector<size_t> toggles;
  size_t peakMark = 0;
  void setResident(size_t x, uint8_t value) {
    resident[x] = value;
    if (peakSet)
      toggles.push_back(2 * x + value);
  }
  std::vector<size_t> *trace = nullptr;
  /// materialize's: (node, next input to look at).
  std::vector<std::pair<size_t, size_t>> stack;
  /// The bound on executions of the current run, the executions so far, and
  /// whether the run stopped at the bound.
  uint64_t maxExecutions = UINT64_MAX, executed = 0;
  bool truncated = false;
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
    std::vector<uint8_t> ran(graph.nodes.size(), 0);
    // An instance nobody reads lives only at its own position.
    std::vector<size_t> end = scheduleLastReads(graph, current);
    std::vector<size_t> kept;
    for (size_t q = 0; q < current.size(); ++q) {
      size_t v = current[q];
      if (end[q] == q && ran[v]) {
        changed = true;
        continue;
      }
      ran[v] = 1;
      kept.push_back(v);
    }
    current = std::move(kept);
  }
  return current;
}

/// The greedy order's prefixes: the node each adds (SIZE_MAX for the empty
/// one) and the prefix's peak (rematGreedyOrder's contract).
static std::vector<std::pair<size_t, uint64_t>>
greedyPrefixes(const RematGraph &graph, uint64_t stopAtPeak, RematWork *work) {
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
  std::vector<size_t> atPeak;
  // The empty prefix (keep-all) runs each node once: never cut short.
  std::optional<RematCost> now = sim.run(nullptr, current, &atPeak);
  if (work)
    work->charge(2 * n);
  std::vector<std::pair<size_t, uint64_t>> order{{SIZE_MAX, now->peak}};
  while (now->peak > stopAtPeak) {
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
      std::optional<RematCost> trial = sim.run(work, current);
      current[c] = 0;
      // Out of work: the order ends here (a step decided on part of its
      // candidates would depend on where the work ran out).
      if (!trial)
        return order;
      double gain = double(now->peak) - double(trial->peak);
      double added = trial->cost - now->cost;
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
    // best's trial ran in full: so does this run (charged the same).
    now = sim.run(nullptr, current, &atPeak);
    if (work)
      work->charge(n + sim.executions());
    order.push_back({best, now->peak});
  }
  return order;
}

std::vector<size_t> mlir::memplan::rematGreedyOrder(const RematGraph &graph,
                                                    uint64_t stopAtPeak,
                                                    RematWork *work) {
  std::vector<size_t> order;
  for (auto [node, peak] : greedyPrefixes(graph, stopAtPeak, work))
    if (node != SIZE_MAX)
      order.push_back(node);
  return order;
}

/// rematSchedule under the work meter: std::nullopt when it stopped early.
static std::optional<std::vector<size_t>>
boundedSchedule(const RematGraph &graph, llvm::ArrayRef<uint8_t> recompute,
                RematWork *work, bool *tooLong = nullptr) {
  Simulator sim(graph);
  std::vector<size_t> executions;
  bool complete = sim.run(work, recompute, nullptr, &executions).has_value();
  if (tooLong)
    *tooLong = sim.tooLong;
  if (!complete)
    return std::nullopt;
  return executions;
}

RematPlan mlir::memplan::rematPlanOfSchedule(const RematGraph &graph,
                                             std::vector<size_t> schedule) {
  RematPlan plan;
  plan.recompute.assign(graph.nodes.size(), 0);
  std::vector<uint8_t> ran(graph.nodes.size(), 0);
  for (size_t v : schedule) {
    if (ran[v])
      plan.recompute[v] = 1;
    ran[v] = 1;
  }
  plan.result = simulateSchedule(graph, schedule);
  plan.schedule = std::move(schedule);
  return plan;
}

std::vector<RematPlan>
mlir::memplan::rematBudgetSequence(const RematGraph &graph, unsigned steps,
                                   bool pastFloor, RematWork *work) {
  size_t n = graph.nodes.size();
  std::vector<std::pair<size_t, uint64_t>> prefixes =
      greedyPrefixes(graph, 0, work);
  uint64_t top = prefixes.front().second, floor = top;
  for (auto [node, peak] : prefixes)
    floor = std::min(floor, peak);
  // A prefix's schedule: its simulation ran in full above, so only the
  // length bound can stop it; charged like the simulation.
  auto scheduleOf = [&](llvm::ArrayRef<uint8_t> recompute) {
    std::optional<std::vector<size_t>> schedule =
        boundedSchedule(graph, recompute, nullptr);
    if (schedule && work)
      work->charge(n + schedule->size());
    return schedule;
  };
  steps = std::max(1u, steps);
  // S_i for caps from the top down to the floor.
  std::vector<RematPlan> s;
  for (unsigned i = 0; i <= steps; ++i) {
    uint64_t cap =
        top - uint64_t((long double)(top - floor) * i / steps + 0.5L);
    if (i == steps)
      cap = floor;
    if (!s.empty() && cap == s.back().smallestPeak)
      continue; // the same cap again (a narrow range)
    std::vector<uint8_t> recompute(n, 0);
    for (auto [node, peak] : prefixes) {
      if (node != SIZE_MAX)
        recompute[node] = 1;
      if (peak <= cap)
        break;
    }
    std::optional<std::vector<size_t>> schedule = scheduleOf(recompute);
    if (!schedule)
      break; // longer than a schedule may be: smaller caps need longer ones
    RematPlan plan = rematPlanOfSchedule(
        graph, improveSchedule(graph, *schedule, cap, work));
    plan.smallestPeak = cap; // the cap, for now
    s.push_back(std::move(plan));
  }
  if (s.empty())
    return {};
  // Plan j: the cheapest of S_j ... S_K.
  std::vector<RematPlan> out(s.size());
  for (size_t j = s.size(); j-- > 0;) {
    out[j] = s[j];
    if (j + 1 < s.size()) {
      const RematCost &a = out[j + 1].result, &b = s[j].result;
      if (a.cost < b.cost || (a.cost == b.cost && a.peak <= b.peak))
        out[j] = out[j + 1];
    }
  }
  std::vector<RematPlan> merged;
  uint64_t smallest = UINT64_MAX;
  for (RematPlan &plan : out) {
    smallest = std::min(smallest, plan.result.peak);
    if (merged.empty() || merged.back().schedule != plan.schedule)
      merged.push_back(std::move(plan));
  }
  if (pastFloor) {
    size_t floorAt = 0;
    while (prefixes[floorAt].second != floor)
      ++floorAt;
    std::vector<uint8_t> recompute(n, 0);
    for (size_t k = 1; k < prefixes.size(); ++k) {
      recompute[prefixes[k].first] = 1;
      if (k <= floorAt)
        continue;
      if (work && work->stopped)
        break;
      std::optional<std::vector<size_t>> schedule = scheduleOf(recompute);
      if (!schedule)
        break;
      RematPlan plan = rematPlanOfSchedule(graph, std::move(*schedule));
      if (plan.result.cost >= merged.back().result.cost)
        merged.push_back(std::move(plan));
    }
  }
  for (RematPlan &plan : merged)
    plan.smallestPeak = smallest;
  return merged;
}

RematPlan mlir::memplan::planRemat(const RematGraph &graph,
                                   const RematOptions &options) {
  size_t n = graph.nodes.size();
  RematWork work;
  work.limit = options.workLimit;
  std::vector<uint8_t> recompute(n, 0);
  std::vector<size_t> forward;
  for (size_t i = 0; i < n; ++i)
    if (!graph.nodes[i].backward)
      forward.push_back(i);
  auto finish = [&] {
    RematPlan plan;
    // Keep-all runs each node once: never cut by the work meter (only by
    // the schedule's length bound), as in the budget sequence.
    bool keepAll = llvm::none_of(recompute, [](uint8_t r) { return r; });
    bool tooLong = false;
    std::optional<std::vector<size_t>> schedule =
        boundedSchedule(graph, recompute, keepAll ? nullptr : &work, &tooLong);
    if (keepAll && schedule)
      work.charge(2 * n);
    if (!schedule) {
      // No plan: its schedule is longer than the work or the length bound.
      plan.recompute = recompute;
      plan.feasible = false;
      plan.stoppedOnWork = true;
      plan.scheduleTooLong = tooLong;
      plan.work = work.used;
      return plan;
    }
    plan = rematPlanOfSchedule(graph, std::move(*schedule));
    // A keep/recompute plan: its decisions as given (a recomputed node with
    // no backward reader still runs once).
    plan.recompute = recompute;
    plan.feasible = plan.result.peak <= options.budget;
    plan.smallestPeak = plan.result.peak;
    plan.work = work.used;
    return plan;
  };
  switch (options.policy) {
  case RematPolicy::KeepAll:
    return finish();
  case RematPolicy::RecomputeAll:
    for (size_t i : forward)
      recompute[i] = 1;
    return finish();
  case RematPolicy::EveryN:
  case RematPolicy::Sqrt: {
    uint64_t every = options.every;
    if (options.policy == RematPolicy::Sqrt)
      every = std::max<uint64_t>(
          1, uint64_t(std::ceil(std::sqrt(double(forward.size())))));
    for (size_t k = 0; k < forward.size(); ++k)
      recompute[forward[k]] = k % std::max<uint64_t>(every, 1) != 0;
    return finish();
  }
  case RematPolicy::CostThreshold:
    for (size_t i : forward)
      recompute[i] = graph.nodes[i].cost < options.threshold;
    return finish();
  case RematPolicy::Budget:
    break;
  }
  // The sequence's first plan is keep-all (nothing is cheaper): when it
  // fits, it is the answer, without building the sequence.
  RematPlan keep = finish();
  if (keep.feasible || keep.stoppedOnWork)
    return keep;
  std::vector<RematPlan> sequence =
      rematBudgetSequence(graph, 64, false, &work);
  if (sequence.empty()) {
    keep.stoppedOnWork = true;
    return keep;
  }
  for (RematPlan &plan : sequence) {
    plan.stoppedOnWork = work.stopped;
    plan.work = work.used;
  }
  for (RematPlan &plan : sequence)
    if (plan.result.peak <= options.budget) {
      plan.feasible = true;
      return std::move(plan);
    }
  // Infeasible: report the plan with the smallest peak (the last).
  RematPlan plan = std::move(sequence.back());
  plan.feasible = false;
  return plan;
}

namespace {
/// Range add and global maximum over positions 0..n-1.
class MaxTree {
public:
  explicit MaxTree(const std::vector<int64_t> &values) {
    size = 1;
    while (size < values.size())
      size *= 2;
    top.assign(2 * size, INT64_MIN / 4);
    pending.assign(2 * size, 0);
    for (size_t i = 0; i < values.size(); ++i)
      top[size + i] = values[i];
    for (size_t i = size - 1; i >= 1; --i)
      top[i] = std::max(top[2 * i], top[2 * i + 1]);
  }
  /// Adds `delta` on [lo, hi] (inclusive; nothing when lo > hi).
  void add(size_t lo, size_t hi, int64_t delta) {
    if (lo <= hi && delta != 0)
      add(1, 0, size - 1, lo, hi, delta);
  }
  int64_t max() const { return top[1]; }

private:
  void add(size_t at, size_t l, size_t r, size_t lo, size_t hi, int64_t d) {
    if (hi < l || r < lo)
      return;
    if (lo <= l && r <= hi) {
      top[at] += d;
      pending[at] += d;
      return;
    }
    size_t mid = (l + r) / 2;
    add(2 * at, l, mid, lo, hi, d);
    add(2 * at + 1, mid + 1, r, lo, hi, d);
    top[at] = std::max(top[2 * at], top[2 * at + 1]) + pending[at];
  }
  size_t size;
  std::vector<int64_t> top, pending;
};

/// The state of improveSchedule: executions at fixed positions, removed ones
/// marked dead; who reads which instance.
class ScheduleImprover {
public:
  ScheduleImprover(const RematGraph &g, llvm::ArrayRef<size_t> schedule)
      : g(g), node(schedule.begin(), schedule.end()) {
    size_t m = node.size();
    alive.assign(m, 1);
    first.assign(m, 0);
    previous.assign(m, SIZE_MAX);
    sources.resize(m);
    readers.resize(m);
    std::vector<size_t> latest(g.nodes.size(), SIZE_MAX);
    for (size_t q = 0; q < m; ++q) {
      size_t v = node[q];
      for (size_t u : g.nodes[v].inputs) {
        sources[q].push_back(latest[u]);
        readers[latest[u]].push_back(q);
      }
      first[q] = latest[v] == SIZE_MAX;
      previous[q] = latest[v];
      latest[v] = q;
    }
    std::vector<int64_t> diff(m + 1, 0);
    for (size_t q = 0; q < m; ++q) {
      diff[q] += int64_t(g.nodes[node[q]].bytes);
      diff[end(q) + 1] -= int64_t(g.nodes[node[q]].bytes);
    }
    std::vector<int64_t> profile(m);
    int64_t running = 0;
    for (size_t q = 0; q < m; ++q)
      profile[q] = running += diff[q];
    tree = std::make_unique<MaxTree>(profile);
  }

  size_t end(size_t q) const {
    return readers[q].empty() ? q : readers[q].back();
  }

  /// The changes removing `q` makes: the removed executions (q first) and
  /// the memory deltas.
  struct Move {
    std::vector<size_t> removed;
    double saving = 0;
    std::vector<std::tuple<size_t, size_t, int64_t>> deltas;
  };

  Move plan(size_t q) {
    Move move;
    move.removed.push_back(q);
    for (size_t i = 0; i < move.removed.size(); ++i) {
      size_t x = move.removed[i];
      move.saving += g.nodes[node[x]].cost;
      for (size_t s : sources[x]) {
        if (++lost[s] == readers[s].size() && !first[s])
          move.removed.push_back(s);
      }
    }
    auto bytes = [&](size_t x) { return int64_t(g.nodes[node[x]].bytes); };
    // q's readers move to the previous instance, which lives on until them.
    size_t p = previous[q];
    move.deltas.push_back({end(p) + 1, q - 1, bytes(q)});
    for (size_t i = 1; i < move.removed.size(); ++i) {
      size_t x = move.removed[i];
      move.deltas.push_back({x, end(x), -bytes(x)});
    }
    for (auto &[s, count] : lost) {
      if (count == readers[s].size() && !first[s])
        continue; // removed
      size_t newEnd = s;
      for (size_t k = readers[s].size(); k-- > 0;)
        if (!isRemoved(move, readers[s][k])) {
          newEnd = readers[s][k];
          break;
        }
      move.deltas.push_back({newEnd + 1, end(s), -bytes(s)});
    }
    lost.clear();
    return move;
  }

  /// The peak after `move`, without applying it.
  int64_t peakAfter(const Move &move) {
    for (auto [lo, hi, d] : move.deltas)
      if (lo <= hi)
        tree->add(lo, hi, d);
    int64_t peak = tree->max();
    for (auto [lo, hi, d] : move.deltas)
      if (lo <= hi)
        tree->add(lo, hi, -d);
    return peak;
  }

  void apply(const Move &move) {
    for (auto [lo, hi, d] : move.deltas)
      if (lo <= hi)
        tree->add(lo, hi, d);
    size_t q = move.removed.front(), p = previous[q];
    for (size_t r : readers[q]) {
      for (size_t &s : sources[r])
        if (s == q)
          s = p;
      readers[p].push_back(r);
    }
    readers[q].clear();
    for (size_t x : move.removed) {
      alive[x] = 0;
      // The next execution of the same node now follows x's predecessor.
      for (size_t y = x + 1; y < node.size(); ++y)
        if (alive[y] && node[y] == node[x]) {
          previous[y] = previous[x];
          break;
        }
      for (size_t s : sources[x])
        llvm::erase(readers[s], x);
    }
  }

  std::vector<size_t> candidates() const {
    std::vector<size_t> out;
    for (size_t q = 0; q < node.size(); ++q)
      if (alive[q] && !first[q])
        out.push_back(q);
    return out;
  }

  std::vector<size_t> schedule() const {
    std::vector<size_t> out;
    for (size_t q = 0; q < node.size(); ++q)
      if (alive[q])
        out.push_back(node[q]);
    return out;
  }

  int64_t peak() const { return tree->max(); }

private:
  static bool isRemoved(const Move &move, size_t x) {
    return llvm::is_contained(move.removed, x);
  }

  const RematGraph &g;
  std::vector<size_t> node;
  std::vector<uint8_t> alive, first;
  std::vector<size_t> previous;
  std::vector<std::vector<size_t>> sources, readers;
  llvm::DenseMap<size_t, size_t> lost;
  std::unique_ptr<MaxTree> tree;
};
} // namespace

std::vector<size_t>
mlir::memplan::improveSchedule(const RematGraph &graph,
                               llvm::ArrayRef<size_t> schedule, uint64_t cap,
                               RematWork *work) {
  std::vector<size_t> pruned = pruneSchedule(graph, schedule);
  if (work && !work->charge(pruned.size()))
    return pruned;
  ScheduleImprover state(graph, pruned);
  int64_t limit = std::max<int64_t>(int64_t(cap), state.peak());
  // A tree update touches about 2 log2(L) nodes.
  uint64_t update = 2 * (llvm::Log2_64_Ceil(pruned.size() + 1) + 1);
  for (;;) {
    // Each candidate's move, planned once per step.
    std::vector<ScheduleImprover::Move> moves;
    uint64_t planned = pruned.size();
    for (size_t q : state.candidates()) {
      moves.push_back(state.plan(q));
      planned += moves.back().removed.size() + moves.back().deltas.size();
    }
    // Out of work: the schedule so far (each step kept it valid, within
    // the limit and no more costly).
    if (work && !work->charge(planned))
      return state.schedule();
    // Largest saving first; then the earlier position.
    std::vector<size_t> order(moves.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    llvm::stable_sort(order, [&](size_t a, size_t b) {
      return moves[a].saving > moves[b].saving;
    });
    ScheduleImprover::Move *best = nullptr;
    int64_t bestPeak = 0;
    for (size_t i : order) {
      if (best && moves[i].saving < best->saving)
        break;
      int64_t peak = state.peakAfter(moves[i]);
      if (work)
        work->charge(2 * update * moves[i].deltas.size());
      if (peak > limit || (best && peak >= bestPeak))
        continue;
      best = &moves[i];
      bestPeak = peak;
    }
    if (!best || best->saving <= 0)
      return state.schedule();
    state.apply(*best);
  }
}
