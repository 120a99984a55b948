//===- RematMILP.h - Optimal rematerialization by MILP ----------*- C++ -*-===//
//
// Part of memplan. IR-free: depends on LLVM Support and, when the build finds
// it, COIN-OR CBC (Debian's coinor-libcbc-dev). Without CBC the solver
// reports Status::Unavailable and everything else works.
//
//===----------------------------------------------------------------------===//
//
// A Checkmate-style formulation (Jain et al., MLSys 2020) in memplan's memory
// model (Remat.h). Stage t runs node t last, after recomputing any forward
// nodes i < t it chooses, in index order:
//
//   R[t][i] in {0,1}  node i runs in stage t (R[t][t] = 1; backward nodes run
//                     only in their own stage);
//   S[t][i] in {0,1}  the output of i < t is resident when stage t begins;
//   F[t][i][k] in [0,1]  the output of i (an input of k, or k itself) is
//                     freed right after k runs in stage t;
//   U[t][k] >= 0      bytes resident while k runs in stage t.
//
//   minimize  sum cost(i) R[t][i]
//   subject to
//     R[t][k] <= R[t][i] + S[t][i]          i an input of k (inputs present)
//     S[t+1][i] <= S[t][i] + R[t][i]        (only what is resident is kept)
//     F[t][i][k] <= R[t][k], F <= 1 - S[t+1][i], F <= 1 - R[t][j]
//                                           for every reader j of i with
//                                           k < j <= t (free only when dead)
//     U[t][first] = sum bytes(i) S[t][i] + bytes(first) R[t][first]
//     U[t][k'] = U[t][k] - sum bytes(i) F[t][i][k] + bytes(k') R[t][k']
//     U[t][k] <= budget
//
// Its schedules include the executions of every keep/recompute plan of
// planRemat, each stage reordered by index (a plan's recompute regions run
// depth-first, so peaks can differ slightly), and multi-level schedules that
// store intermediate states while recomputing; its optimum is what memplan's
// other policies are measured against. The
// returned schedule is re-executed by simulateSchedule, whose peak (frees as
// early as possible) never exceeds the model's U.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_PLANNING_REMATMILP_H
#define MEMPLAN_PLANNING_REMATMILP_H

#include "memplan/Planning/Remat.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <vector>

namespace mlir {
namespace memplan {

struct RematMILPResult {
  enum class Status {
    /// The schedule is optimal (proven by the solver).
    Optimal,
    /// A schedule fits; the time limit stopped the proof.
    Feasible,
    /// No schedule fits the budget (proven).
    Infeasible,
    /// The time limit passed before any schedule was found.
    NoSolution,
    /// The solver crashed (or overran the time limit and was stopped) and no
    /// start schedule was offered; `note` says what happened.
    Failed,
    /// Built without CBC.
    Unavailable,
  };
  Status status = Status::Unavailable;
  /// Set when the solver did not finish normally (it crashed, or ignored the
  /// time limit and was stopped): what happened. With a start schedule the
  /// status is then Feasible (the start, unproven).
  std::string note;
  /// The schedule found (Optimal or Feasible), node indices in order.
  std::vector<size_t> schedule;
  /// The schedule executed by simulateSchedule.
  RematCost result;
  /// The solver's lower bound on the optimal cost.
  double lowerBound = 0;
  /// CBC stopped on the time limit (not on a proof or the node limit): the
  /// answer then depends on the machine's speed.
  bool stoppedOnTime = false;
  size_t variables = 0, constraints = 0;
};

/// Whether this build has the MILP solver (CBC).
bool rematMILPAvailable();

/// CBC's branch-and-bound nodes a solve may explore by default: the bound
/// that makes the answer the same on any machine (CBC runs single-threaded).
constexpr int64_t kDefaultMILPNodes = 100000;

/// Solves the formulation above for `budget` bytes within `nodeLimit`
/// branch-and-bound nodes (0: none) and `timeLimitSeconds` (wall clock, a
/// safety net: `stoppedOnTime` says when it decided). `start`, when given, is a
/// valid schedule (for instance planRemat's): offered to CBC as its first
/// incumbent; returned as Optimal without a solve when it fits and costs the
/// baseline (no recomputation); returned as Feasible (unproven) when the
/// solver's answer contradicts it (an "infeasible" claim) or the solver fails.
/// Costs are scaled to at most 1 and bytes to units of min(budget, total bytes)
/// in the model. CBC runs in a child process (POSIX): a crash in it cannot take
/// the caller down, and a solve that overruns the limit (CBC does not check it
/// during its initial LP) is killed at 1.05 x the limit + 0.5 s. While the
/// child solves, `progress` (when given) is called about once a second with
/// the seconds elapsed, for a line a person watching can read; it never
/// changes the answer. (CBC 2.10's C interface reports no incumbents, so
/// the line can only say how long the solve has run.)
RematMILPResult solveRematMILP(const RematGraph &graph, uint64_t budget,
                               double timeLimitSeconds,
                               llvm::ArrayRef<size_t> start = {},
                               int64_t nodeLimit = kDefaultMILPNodes,
                               llvm::function_ref<void(double)> progress = {});

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_PLANNING_REMATMILP_H
