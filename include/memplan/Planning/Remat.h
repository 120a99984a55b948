//===- Remat.h - Rematerialization on an abstract graph ---------*- C++ -*-===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//
//
// A training step as a graph: nodes run once each in schedule order (the
// order of `nodes`, a topological order); each produces one output of
// `bytes` and costs `cost`; forward nodes may be recomputed, backward nodes
// never are. The memory model (docs/Remat.md):
//
//  * A node's output is allocated when it runs; its inputs must be resident.
//  * A kept output stays resident until its last consumer has run (an output
//    nobody consumes is freed right after it is computed).
//  * A recomputed forward output is freed after its last forward consumer
//    (or right away when it has none). Before a backward node runs, each of
//    its inputs that is not resident is recomputed as memplan.recompute does
//    it: from resident values, rebuilding non-resident ancestors as
//    temporaries that are freed once the input exists; the recomputed input
//    then stays resident until its last consumer has run.
//  * The peak is the most bytes resident while some node (or recomputation)
//    runs, its inputs and output included. The cost is the sum of the costs
//    of every execution, recomputations included.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_PLANNING_REMAT_H
#define MEMPLAN_PLANNING_REMAT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace memplan {

struct RematNode {
  int64_t id = 0;
  std::string name;
  double cost = 0;
  uint64_t bytes = 0;
  bool backward = false;
  /// Indices (into RematGraph::nodes) of the nodes whose outputs it reads.
  std::vector<size_t> inputs;
};

struct RematGraph {
  std::vector<RematNode> nodes;
  /// Checks that inputs point to earlier nodes, costs are finite and
  /// non-negative and total at most kMaxTotalCost, and the output sizes total
  /// at most kMaxTotalBytes (memplan/Planning/Limits.h: no peak or schedule
  /// cost can overflow); returns a message naming the node, or std::nullopt.
  std::optional<std::string> validate() const;
  double totalCost() const;
};

/// The outcome of executing a plan under the memory model above.
struct RematCost {
  double cost = 0;
  uint64_t peak = 0;
};

/// The planners' deterministic work meter: a simulation charges one unit per
/// node it visits and per execution it performs, improveSchedule one per
/// candidate removal it plans and per tree update it makes. A planner that
/// reaches `limit` stops where it is and returns what it has (each says
/// what that is); `stopped` records that it did. The same graph and limit
/// give the same plans on any machine.
struct RematWork {
  uint64_t limit = UINT64_MAX;
  uint64_t used = 0;
  bool stopped = false;
  uint64_t left() const { return used >= limit ? 0 : limit - used; }
  /// Charges `units`; false (and `stopped`) once the limit is reached.
  bool charge(uint64_t units) {
    used = units > UINT64_MAX - used ? UINT64_MAX : used + units;
    if (used >= limit)
      stopped = true;
    return !stopped;
  }
};

/// The longest schedule a planner writes out: 2^24 executions (128 MiB of
/// indices). A plan that needs more is refused, whatever the work limit.
constexpr uint64_t kMaxRematScheduleLength = uint64_t(1) << 24;

/// The default work limit of the remat planners: about 25 s of planning on
/// this project's machines (6.5 ns a unit); the zoo's largest step
/// (GPT-2-small-sized) uses well under 1% of it.
constexpr uint64_t kDefaultRematWorkLimit = 4000000000ULL;

/// Simulates the plan: `recompute[i]` set for forward nodes to recompute.
RematCost simulateRemat(const RematGraph &graph,
                        llvm::ArrayRef<uint8_t> recompute);

/// The executions simulateRemat performs for the plan, in order (node
/// indices; a recomputed node appears more than once).
std::vector<size_t> rematSchedule(const RematGraph &graph,
                                  llvm::ArrayRef<uint8_t> recompute);

/// A general schedule: node indices in execution order, a node possibly more
/// than once (the form the `chain` and `optimal` solvers produce, which may
/// store intermediate checkpoints while recomputing). Checks that every node
/// runs, backward nodes exactly once, and every input has run before each
/// execution that reads it; returns a message or std::nullopt.
std::optional<std::string> checkSchedule(const RematGraph &graph,
                                         llvm::ArrayRef<size_t> schedule);

/// Executes a valid schedule: each execution allocates its output; a read
/// uses the latest instance of the input; an instance is freed after the
/// last execution that reads it before its node runs again (right after it
/// is computed when nothing reads it). The peak counts, as in the memory
/// model above, the inputs and the output of the running execution.
RematCost simulateSchedule(const RematGraph &graph,
                           llvm::ArrayRef<size_t> schedule);

/// For each execution of a valid schedule, the position of the last
/// execution that reads its output before its node runs again (its own
/// position when nothing does): the instance lives until then.
std::vector<size_t> scheduleLastReads(const RematGraph &graph,
                                      llvm::ArrayRef<size_t> schedule);

/// Drops, until none is left, the recomputations whose output nothing reads
/// (a node's first execution always stays: it is the op in the program). On
/// a valid schedule the result is valid and neither costs more nor peaks
/// higher.
std::vector<size_t> pruneSchedule(const RematGraph &graph,
                                  llvm::ArrayRef<size_t> schedule);

/// Multi-level recomputation: improves a valid schedule by keeping recomputed
/// values longer instead of recomputing them again. One step removes a
/// recomputation q of node v — its readers then read v's previous instance,
/// which lives until q's last reader — together with the recomputations
/// that existed only to feed q (pruned). Greedy: each step takes the
/// removal that saves the most cost among those whose schedule still peaks
/// at most `cap` (ties: the lower peak, then the earlier position), until
/// none is left. First executions are never removed. The result is pruned,
/// valid, peaks at most max(cap, the input's peak) and costs no more than
/// the input. Each candidate is evaluated incrementally (the memory profile
/// in a max segment tree), so a step costs O(L log L) for L executions.
/// With `work`, it stops (and returns the schedule so far, which meets the
/// same contract) once the meter reaches its limit.
std::vector<size_t> improveSchedule(const RematGraph &graph,
                                    llvm::ArrayRef<size_t> schedule,
                                    uint64_t cap, RematWork *work = nullptr);

enum class RematPolicy {
  KeepAll,
  RecomputeAll,
  EveryN,
  CostThreshold,
  Sqrt,
  Budget,
};

std::optional<RematPolicy> parseRematPolicy(llvm::StringRef name);
llvm::StringRef stringifyRematPolicy(RematPolicy policy);

struct RematOptions {
  RematPolicy policy = RematPolicy::KeepAll;
  /// EveryN: keep every n-th forward node (the first included).
  uint64_t every = 2;
  /// CostThreshold: keep forward nodes that cost at least this much.
  double threshold = 0;
  /// Budget: the most bytes the peak may reach.
  uint64_t budget = UINT64_MAX;
  /// The work the planner may spend (RematWork). A keep/recompute policy
  /// whose schedule needs more fails (RematPlan::stoppedOnWork); `budget`
  /// then plans with the part of its search it finished.
  uint64_t workLimit = kDefaultRematWorkLimit;
};

struct RematPlan {
  /// Forward nodes that run more than once.
  std::vector<uint8_t> recompute;
  /// What runs, in order (checkSchedule-valid, pruned): for keep/recompute
  /// policies rematSchedule(recompute); for `budget` a multi-level schedule.
  std::vector<size_t> schedule;
  /// simulateSchedule(schedule).
  RematCost result;
  /// Budget policy: the plan fits the budget. Other policies: the plan's
  /// peak is at most the budget.
  bool feasible = true;
  /// The smallest peak any plan memplan tried reaches (the smallest budget
  /// it can meet).
  uint64_t smallestPeak = 0;
  /// The planner reached RematOptions::workLimit. A keep/recompute policy:
  /// there is no plan (schedule empty, feasible false). `budget`: the plan
  /// is valid, but a longer search might find a cheaper plan or a smaller
  /// smallestPeak.
  bool stoppedOnWork = false;
  /// With stoppedOnWork and no plan: the schedule was longer than
  /// kMaxRematScheduleLength (else the work ran out).
  bool scheduleTooLong = false;
  /// The work the planner used.
  uint64_t work = 0;
};

/// The plan that executes a valid schedule: `recompute` marks the nodes
/// that run more than once, `result` is simulateSchedule's.
RematPlan rematPlanOfSchedule(const RematGraph &graph,
                              std::vector<size_t> schedule);

/// Plans rematerialization. Budget takes the first plan of
/// rematBudgetSequence whose peak fits the budget.
RematPlan planRemat(const RematGraph &graph, const RematOptions &options);

/// The budget planner's plans, computed without a budget: for caps c_0 > c_1
/// > ... > c_K spread evenly from the keep-all peak down to the floor F (the
/// smallest peak of any prefix of rematGreedyOrder), S_i is
/// improveSchedule(schedule of the shortest greedy prefix peaking at most
/// c_i, c_i); plan j is the cheapest of S_j ... S_K (ties: the lower peak).
/// Costs never decrease along the sequence and every plan peaks at most its
/// cap, so "the first plan that fits" by peak (planRemat) is monotone: a
/// smaller budget never gets a larger peak nor a smaller cost. (By packed
/// arena, --memplan-insert-remat's rule, a smaller budget never gets an
/// earlier plan: docs/Remat.md says when.) Consecutive equal plans
/// are merged. `steps` is K. With `pastFloor`, the greedy prefixes longer
/// than the floor's follow as one-level plans (their liveness peaks are
/// higher, but their packed arenas can be smaller; costs still never
/// decrease: a prefix cheaper than the plan before it is left out).
///
/// With `work`, every step charges the meter; once it reaches its limit the
/// greedy order is cut where it stands (a higher floor), the remaining
/// plans are not improved, and the past-floor plans stop: the sequence is
/// still valid and monotone, and depends on the graph and the limit only.
std::vector<RematPlan> rematBudgetSequence(const RematGraph &graph,
                                           unsigned steps = 64,
                                           bool pastFloor = false,
                                           RematWork *work = nullptr);

/// The budget planner's order: the forward nodes it recomputes, one by one,
/// until the peak is at most `stopAtPeak` or every forward node the backward
/// pass reads is recomputed (`stopAtPeak` 0: the whole order). It depends on
/// the graph only, never on a budget: any rule that takes "the first prefix
/// of this order that fits" is monotone in the budget.
/// With `work`, the order stops once the meter reaches its limit.
std::vector<size_t> rematGreedyOrder(const RematGraph &graph,
                                     uint64_t stopAtPeak = 0,
                                     RematWork *work = nullptr);

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_PLANNING_REMAT_H
