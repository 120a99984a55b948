//===- InsertRemat.cpp - Recompute saved activations under a budget -------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//
//
// The pass driver: builds each function's remat graph, plans (the policies,
// the budget search on predicted and measured arenas, the chain DP and the
// MILP: Planning/), records the decisions and has RematRewriter.h rewrite
// the function to run the chosen schedule.
//
//===----------------------------------------------------------------------===//

#include "RematRewriter.h"
#include "memplan/Analysis/Lifetimes.h"
#include "memplan/Analysis/RematGraph.h"
#include "memplan/Analysis/SymbolicSizes.h"
#include "memplan/IR/MemplanOps.h"
#include "memplan/Planning/Limits.h"
#include "memplan/Planning/RematArena.h"
#include "memplan/Planning/RematChain.h"
#include "memplan/Planning/RematGraphIO.h"
#include "memplan/Planning/RematMILP.h"
#include "memplan/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Process.h"

#include <chrono>

namespace mlir {
namespace memplan {
#define GEN_PASS_DEF_INSERTREMATPASS
#include "memplan/Transforms/Passes.h.inc"
} // namespace memplan
} // namespace mlir

using namespace mlir;
using namespace mlir::memplan;

#define DEBUG_TYPE "memplan-insert-remat"

/// Records the byte budget the function's packed arena must respect.
static void setBudget(FunctionOpInterface func, int64_t budget) {
  MLIRContext *ctx = func.getContext();
  MemplanDialect::BudgetAttrHelper(ctx).setAttr(
      func, IntegerAttr::get(IntegerType::get(ctx, 64), budget));
}

/// What makes `func` other than straight-line code ("'scf.if'", "several
/// blocks"), or nothing.
static std::optional<std::string> describeControlFlow(FunctionOpInterface f) {
  bool multiBlock = false;
  Operation *op = FunctionRematGraph::findControlFlow(f, multiBlock);
  if (multiBlock)
    return std::string("several blocks");
  if (op)
    return "'" + op->getName().getStringRef().str() + "'";
  return std::nullopt;
}

/// Whether some backward node reads a forward node (a training step).
static bool hasRecomputable(const RematGraph &graph) {
  return llvm::any_of(graph.nodes, [&](const RematNode &node) {
    return node.backward && llvm::any_of(node.inputs, [&](size_t in) {
             return !graph.nodes[in].backward;
           });
  });
}

namespace {
struct InsertRematPass
    : public memplan::impl::InsertRematPassBase<InsertRematPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    RematPolicyChoice choice = policy;
    if (choice == RematPolicyChoice::Auto)
      choice =
          budget > 0 ? RematPolicyChoice::Budget : RematPolicyChoice::KeepAll;
    solver = choice == RematPolicyChoice::Chain     ? Solver::Chain
             : choice == RematPolicyChoice::Optimal ? Solver::MILP
                                                    : Solver::None;
    std::optional<RematPolicy> parsed =
        solver != Solver::None ? RematPolicy::Budget : getRematPolicy(choice);
    if (*parsed == RematPolicy::Budget && budget <= 0) {
      module.emitError("policy '")
          << stringifyRematPolicyChoice(choice) << "' needs a budget";
      return signalPassFailure();
    }
    if (solver == Solver::MILP && !rematMILPAvailable()) {
      module.emitError("policy 'optimal' needs the MILP solver, and this "
                       "build has none (install coinor-libcbc-dev and "
                       "reconfigure)");
      return signalPassFailure();
    }
    if (std::optional<std::string> bad = checkTimeLimit(milpTimeLimit)) {
      module.emitError("milp-time-limit ") << *bad;
      return signalPassFailure();
    }
    if (milpNodeLimit < 0) {
      module.emitError("milp-node-limit must be >= 0, got ")
          << static_cast<int64_t>(milpNodeLimit);
      return signalPassFailure();
    }
    if (std::optional<std::string> bad =
            checkSearchBounds(workLimit, timeLimit, "time-limit")) {
      module.emitError(*bad);
      return signalPassFailure();
    }
    symbolBounds.clear();
    if (std::optional<std::string> bad =
            parseSymbolValues(bounds, symbolBounds)) {
      module.emitError("memplan-insert-remat: bad bounds option: ") << *bad;
      return signalPassFailure();
    }
    RematOptions options;
    options.policy = *parsed;
    options.every = std::max<int64_t>(1, every);
    options.threshold = threshold;
    options.budget = budget > 0 ? uint64_t(budget) : UINT64_MAX;
    options.workLimit = planWorkLimit ? uint64_t(planWorkLimit) : UINT64_MAX;
    SmallVector<FunctionOpInterface> funcs;
    // Functions with control flow under the budget policy, with what makes
    // them so.
    SmallVector<std::pair<FunctionOpInterface, std::string>> branching;
    WalkResult unplanned = module.walk([&](FunctionOpInterface f) {
      if (f.isExternal() || isHostFunction(f))
        return WalkResult::advance();
      WalkResult creates = f.walk([](Operation *op) {
        return llvm::any_of(op->getResultTypes(), llvm::IsaPred<ShapedType>)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      });
      if (!isUnplannedFunction(f)) {
        std::optional<std::string> controlFlow = describeControlFlow(f);
        // With the budget policy, a function with control flow (a driver
        // looping over steps, say) is not rewritten: its budget is
        // recorded and checked on its packed arena like any other
        // function's (with check-arena, measured after the others). Every
        // such function is measured, even one that creates no tensor:
        // bufferization may still give it buffers (a copy at a call).
        if (controlFlow && options.policy == RematPolicy::Budget &&
            budget > 0) {
          branching.push_back({f, *controlFlow});
          return WalkResult::advance();
        }
        // A fixed policy has nothing to recompute in a function with
        // control flow that creates no tensor or buffer (a driver that
        // only calls others): it is left alone.
        if (controlFlow && !creates.wasInterrupted() && budget <= 0)
          return WalkResult::advance();
        funcs.push_back(f);
        return WalkResult::advance();
      }
      // A function left unplanned has no arena: only one that creates no
      // tensor or buffer keeps a budget.
      if (!creates.wasInterrupted())
        return WalkResult::advance();
      f.emitError("memplan cannot keep a budget for @")
          << f.getName() << ": it is left unplanned ("
          << MemplanDialect::UnplannedAttrHelper(f.getContext())
                 .getAttr(f)
                 .getValue()
          << ")";
      return WalkResult::interrupt();
    });
    if (unplanned.wasInterrupted())
      return signalPassFailure();
    exported = 0;
    if (!exportGraph.empty())
      for (FunctionOpInterface func : funcs) {
        FailureOr<FunctionRematGraph> g =
            FunctionRematGraph::build(func, symbolBounds);
        exported += succeeded(g) && hasRecomputable(g->graph);
      }
    // The budget holds for every function: report each one that cannot
    // keep it (its own smallest budget), not only the first.
    bool anyFailed = false;
    for (FunctionOpInterface func : funcs)
      anyFailed |= failed(rewrite(func, options));
    for (auto &[func, controlFlow] : branching)
      anyFailed |= failed(keepBudgetWithoutRemat(func, controlFlow));
    if (anyFailed)
      return signalPassFailure();
  }

  /// A function with control flow under the budget policy: records the
  /// budget; with check-arena, measures its arena first and refuses a
  /// budget below it, or one it cannot check (the function is left
  /// unplanned, say).
  LogicalResult keepBudgetWithoutRemat(FunctionOpInterface f,
                                       StringRef controlFlow) {
    if (!checkArena) {
      setBudget(f, budget);
      return success();
    }
    // Measured before the budget is set: a copy that carries it would be
    // refused by pack-arena itself (dynamic shapes) instead of measured.
    std::string why, heap;
    std::optional<uint64_t> arena = measureArena(f, nullptr, why, &heap);
    if (!arena)
      return f.emitError("memplan cannot check the budget of @")
             << f.getName()
             << " on a bufferized, packed copy of the module: " << why;
    if (!heap.empty())
      return f.emitError("memplan cannot keep a budget for @")
             << f.getName() << ": a buffer of run-time size stays on the heap ("
             << heap << "), outside the arena the budget bounds";
    if (*arena <= static_cast<uint64_t>(budget)) {
      setBudget(f, budget);
      return success();
    }
    return f.emitError("the budget of ")
           << static_cast<int64_t>(budget) << " bytes is infeasible for @"
           << f.getName() << ": its arena is " << *arena
           << " bytes, and memplan-insert-remat does not rewrite functions "
              "with control flow ("
           << controlFlow << ")";
  }

  LogicalResult rewrite(FunctionOpInterface func, const RematOptions &options);
  /// The `bounds` option, parsed.
  llvm::StringMap<uint64_t> symbolBounds;
  /// `chain` and `optimal`: plans for a liveness target; fails with an
  /// error, or gives std::nullopt when no schedule fits the target.
  FailureOr<std::optional<RematPlan>>
  solve(FunctionOpInterface func, const FunctionRematGraph &g, uint64_t target);
  /// `chain` and `optimal` with check-arena: re-plans with a tighter target
  /// while the packed arena overshoots.
  LogicalResult rewriteWithSolver(FunctionOpInterface func,
                                  FunctionRematGraph &g,
                                  const RematOptions &options);
  enum class Solver { None, Chain, MILP } solver = Solver::None;
  /// When the last progress line was printed (one throttle for the run).
  std::optional<std::chrono::steady_clock::time_point> lastProgressLine;
  /// export-graph: how many functions will be written (decides file names).
  unsigned exported = 0;
  LogicalResult writeGraph(FunctionOpInterface func, FunctionRematGraph &g);
  /// Records the plan as `memplan.remat` on the function, for the reports.
  void recordDecisions(FunctionOpInterface func, FunctionRematGraph &g,
                       const RematPlan &plan);
  /// Applies `plan` (its schedule) to `func`.
  LogicalResult apply(FunctionOpInterface func, FunctionRematGraph &g,
                      const RematPlan &plan);

  /// The packed arena of `func` under `plan`, measured on a copy of the
  /// module; std::nullopt if the copy fails to bufferize or pack.
  /// The packed arena of `func` under `plan` (measured on a copy of the
  /// module); std::nullopt, with the copy's first error in `why`, when the
  /// copy cannot be rewritten, bufferized or packed.
  /// `heap`, when given, gets the first buffer of run-time size the copy
  /// leaves on the heap in the function (one no budget can count).
  std::optional<uint64_t> measureArena(FunctionOpInterface func,
                                       const RematPlan *plan, std::string &why,
                                       std::string *heap = nullptr);
};
} // namespace

LogicalResult InsertRematPass::writeGraph(FunctionOpInterface func,
                                          FunctionRematGraph &g) {
  if (!hasRecomputable(g.graph))
    return success();
  std::string path = exportGraph;
  if (exported > 1) {
    StringRef stem = StringRef(path).rsplit('.').first;
    path = (stem + "-" + qualifiedFunctionName(func) + ".json").str();
  }
  // Names for the reader: each node's op and location.
  RematGraph named = g.graph;
  for (auto [k, node] : llvm::enumerate(named.nodes))
    node.name = describeOp(g.chains[k].front());
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return func.emitError("cannot write the remat graph to '")
           << path << "': " << ec.message();
  os << llvm::formatv("{0:2}",
                      rematGraphToJSON(named, qualifiedFunctionName(func)))
     << "\n";
  return success();
}

/// The first k in [0, last] where `fits(k)` holds: every k when there are
/// at most 49, else every stride-th (the last always) and then the window
/// after the last miss, one by one. When `fits` is monotone (a k that fits
/// one budget fits every larger one), so is the result: a smaller budget
/// never gets an earlier k. Fails when `fits` fails (returns std::nullopt).
static FailureOr<std::optional<size_t>>
firstFit(size_t last, llvm::function_ref<std::optional<bool>(size_t)> fits) {
  size_t stride = std::max<size_t>(1, (last + 47) / 48);
  std::optional<size_t> chosen;
  std::optional<size_t> lastMiss;
  for (size_t k = 0;; k = std::min(k + stride, last)) {
    std::optional<bool> fit = fits(k);
    if (!fit)
      return failure();
    if (*fit) {
      chosen = k;
      break;
    }
    lastMiss = k;
    if (k == last)
      break;
  }
  if (chosen && lastMiss)
    for (size_t k = *lastMiss + 1; k < *chosen; ++k) {
      std::optional<bool> fit = fits(k);
      if (!fit)
        return failure();
      if (*fit)
        return std::optional<size_t>(k);
    }
  return chosen;
}

LogicalResult InsertRematPass::rewrite(FunctionOpInterface func,
                                       const RematOptions &options) {
  FailureOr<FunctionRematGraph> built =
      FunctionRematGraph::build(func, symbolBounds);
  if (failed(built))
    return failure();
  FunctionRematGraph &g = *built;
  if (!exportGraph.empty() && failed(writeGraph(func, g)))
    return failure();
  if (solver != Solver::None)
    return rewriteWithSolver(func, g, options);
  auto infeasible = [&](uint64_t smallest) {
    return func.emitError("the budget of ")
           << static_cast<int64_t>(budget) << " bytes is infeasible for @"
           << func.getName() << ": the smallest budget policy '"
           << stringifyRematPolicy(options.policy) << "' reaches is "
           << smallest << " bytes";
  };
  auto stoppedOnWork = [&] {
    func.emitWarning("the remat planner stopped on its work limit "
                     "(plan-work-limit=")
        << options.workLimit << ") for @" << func.getName()
        << ": cheaper plans and smaller budgets may be reachable with a "
           "larger limit";
  };
  bool arenaMode =
      budget > 0 && checkArena && options.policy == RematPolicy::Budget;
  RematPlan plan;
  if (!arenaMode) {
    plan = planRemat(g.graph, options);
    if (plan.stoppedOnWork && plan.schedule.empty()) {
      InFlightDiagnostic error = func.emitError("policy '")
                                 << stringifyRematPolicy(options.policy)
                                 << "' needs ";
      if (plan.scheduleTooLong)
        error << "a schedule of more than " << kMaxRematScheduleLength
              << " executions";
      else
        error << "more work than plan-work-limit=" << options.workLimit
              << " allows";
      return error << " for @" << func.getName();
    }
    if (plan.stoppedOnWork)
      stoppedOnWork();
  }
  // Without the arena check the budget bounds the graph's liveness peak.
  if (budget > 0 && !plan.feasible && !arenaMode)
    return infeasible(plan.smallestPeak);
  if (arenaMode) {
    // Keep the promise for the packed arena: take the first plan of the
    // planner's budget-independent sequence whose predicted arena, and then
    // whose arena measured on a copy of the module, fits (below; scans:
    // firstFit).
    RematWork work;
    work.limit = options.workLimit;
    std::vector<RematPlan> order =
        rematBudgetSequence(g.graph, 64, /*pastFloor=*/true, &work);
    if (order.empty())
      return func.emitError("policy 'budget' needs a schedule of more than ")
             << kMaxRematScheduleLength << " executions for @"
             << func.getName();
    if (work.stopped)
      stoppedOnWork();
    std::string why;
    // Progress for a person watching a long budgeted compile: the clock
    // only decides when to print, never what is planned.
    bool progress = !quiet && llvm::sys::Process::StandardErrIsDisplayed();
    size_t measured = 0;
    // Each plan is measured once (the fallback below walks plans the first
    // scan may have measured).
    std::vector<std::optional<uint64_t>> measuredArena(order.size());
    auto fitsAt = [&](size_t k) -> std::optional<bool> {
      if (measuredArena[k])
        return *measuredArena[k] <= uint64_t(budget);
      std::optional<uint64_t> arena = measureArena(func, &order[k], why);
      if (!arena)
        return std::nullopt;
      measuredArena[k] = *arena;
      ++measured;
      auto now = std::chrono::steady_clock::now();
      if (progress && (!lastProgressLine ||
                       now - *lastProgressLine >= std::chrono::seconds(1))) {
        lastProgressLine = now;
        llvm::errs() << "memplan-insert-remat: @" << qualifiedFunctionName(func)
                     << ": plan " << k + 1 << " of " << order.size() << " ("
                     << measured << " measured): arena " << *arena
                     << " bytes, budget " << budget << "\n";
      }
      return *arena <= uint64_t(budget);
    };
    // Rank the plans on the arena predicted without IR (RematArena.h): a
    // plan fits when its prediction fits and then, measured, its arena does
    // too, so only plans predicted to fit are measured (normally one). The
    // first plan that fits is taken; the test is monotone in the budget, so
    // a smaller budget never gets an earlier plan. When no plan passes it,
    // the plans' arenas are measured (firstFit by measured arena): the
    // choice, and the smallest arena an infeasible budget's error names, are
    // measured ones.
    PackOptions predictOptions;
    predictOptions.algorithm = algorithm;
    predictOptions.workLimit = workLimit;
    predictOptions.timeLimitSeconds = timeLimit;
    size_t predicted = 0;
    auto predictedThenMeasured = [&](size_t k) -> std::optional<bool> {
      std::optional<RematArenaPrediction> p = predictRematArena(
          g.graph, order[k].schedule, alignment, predictOptions);
      ++predicted;
      // No prediction (sizes past what packing takes): measure.
      if (p && p->arena > uint64_t(budget))
        return false;
      std::optional<bool> fits = fitsAt(k);
      if (fits && !*fits && p && progress)
        llvm::errs() << "memplan-insert-remat: @" << qualifiedFunctionName(func)
                     << ": plan " << k + 1 << " was predicted at " << p->arena
                     << " bytes and measured at " << *measuredArena[k]
                     << ", above the budget\n";
      return fits;
    };
    size_t last = order.size() - 1;
    // Every plan in turn (predictions are cheap): the first that passes is
    // normally the only one measured.
    FailureOr<std::optional<size_t>> found = std::optional<size_t>();
    for (size_t k = 0; k <= last; ++k) {
      std::optional<bool> fits = predictedThenMeasured(k);
      if (!fits) {
        found = failure();
        break;
      }
      if (*fits) {
        found = std::optional<size_t>(k);
        break;
      }
    }
    if (succeeded(found) && !*found)
      found = firstFit(last, fitsAt);
    if (failed(found))
      return func.emitError("memplan-insert-remat could not bufferize and "
                            "pack a copy of the module to check the budget: ")
             << why;
    std::optional<size_t> chosen = *found;
    if (!chosen) {
      uint64_t smallest = UINT64_MAX;
      for (const std::optional<uint64_t> &arena : measuredArena)
        if (arena)
          smallest = std::min(smallest, *arena);
      return infeasible(smallest);
    }
    plan = order[*chosen];
    if (progress)
      llvm::errs() << "memplan-insert-remat: @" << qualifiedFunctionName(func)
                   << ": chose plan " << *chosen + 1 << " of " << order.size()
                   << " after " << predicted << " predicted, " << measured
                   << " measured\n";
  }
  recordDecisions(func, g, plan);
  if (budget > 0)
    setBudget(func, budget);
  return apply(func, g, plan);
}

FailureOr<std::optional<RematPlan>>
InsertRematPass::solve(FunctionOpInterface func, const FunctionRematGraph &g,
                       uint64_t target) {
  const RematGraph &graph = g.graph;
  // Nothing the backward pass reads can be recomputed (e.g. a driver
  // function): the plan is to keep everything.
  if (!hasRecomputable(graph)) {
    RematPlan keep = planRemat(graph, RematOptions());
    if (keep.result.peak > target)
      return std::optional<RematPlan>();
    return std::optional<RematPlan>(std::move(keep));
  }
  if (solver == Solver::Chain) {
    ChainSchedule chain;
    if (std::optional<std::string> error =
            planChainSchedule(graph, target, chain)) {
      // Point at the op that writes the offending buffer.
      Operation *at = chain.offendingNode
                          ? g.finals[*chain.offendingNode].getDefiningOp()
                          : func.getOperation();
      return at->emitError("memplan-insert-remat cannot plan @")
             << func.getName() << ": " << *error
             << " (nodes as --test-memplan-print-remat numbers them)";
    }
    if (chain.schedule.empty())
      return std::optional<RematPlan>();
    return std::optional<RematPlan>(
        rematPlanOfSchedule(graph, std::move(chain.schedule)));
  }
  RematOptions greedy;
  greedy.policy = RematPolicy::Budget;
  greedy.budget = target;
  greedy.workLimit = planWorkLimit ? uint64_t(planWorkLimit) : UINT64_MAX;
  RematPlan start = planRemat(graph, greedy);
  RematMILPResult solved = solveRematMILP(
      graph, target, milpTimeLimit,
      start.feasible ? start.schedule : std::vector<size_t>(), milpNodeLimit);
  using Status = RematMILPResult::Status;
  if (solved.stoppedOnTime &&
      (solved.status == Status::Feasible || solved.status == Status::Optimal))
    func.emitWarning("policy 'optimal' on @")
        << func.getName() << ": the MILP stopped on its time limit ("
        << static_cast<double>(milpTimeLimit)
        << " s), so this plan depends on the machine's speed; lower "
           "milp-node-limit (or raise milp-time-limit) for a plan that does "
           "not";
  if (!solved.note.empty() && solved.status == Status::Feasible)
    func.emitWarning("policy 'optimal' on @")
        << func.getName() << ": " << solved.note
        << "; using the greedy planner's schedule (not proven optimal)";
  if (solved.status == Status::Infeasible)
    return std::optional<RematPlan>();
  if (solved.status == Status::NoSolution) {
    InFlightDiagnostic error =
        func.emitError("policy 'optimal' found no schedule for @")
        << func.getName() << " within ";
    if (solved.stoppedOnTime)
      error << static_cast<double>(milpTimeLimit)
            << " s (raise milp-time-limit)";
    else
      error << static_cast<int64_t>(milpNodeLimit)
            << " nodes (raise milp-node-limit)";
    return error;
  }
  if (solved.status == Status::Failed)
    return func.emitError("policy 'optimal' found no schedule for @")
           << func.getName() << ": " << solved.note;
  if (std::optional<std::string> error = checkSchedule(graph, solved.schedule))
    return func.emitError("memplan-insert-remat: internal error: the MILP's "
                          "schedule is invalid: ")
           << *error;
  return std::optional<RematPlan>(
      rematPlanOfSchedule(graph, pruneSchedule(graph, solved.schedule)));
}

LogicalResult InsertRematPass::rewriteWithSolver(FunctionOpInterface func,
                                                 FunctionRematGraph &g,
                                                 const RematOptions &options) {
  bool arenaMode = checkArena;
  uint64_t target = options.budget;
  uint64_t smallestArena = UINT64_MAX;
  std::optional<RematPlan> chosen;
  // Each round lowers the liveness target by the arena's overshoot.
  for (int round = 0; round < 8 && !chosen; ++round) {
    FailureOr<std::optional<RematPlan>> plan = solve(func, g, target);
    if (failed(plan))
      return failure();
    if (!*plan)
      break;
    if (!arenaMode) {
      chosen = std::move(**plan);
      break;
    }
    std::string why;
    std::optional<uint64_t> arena = measureArena(func, &**plan, why);
    if (!arena)
      return func.emitError("memplan-insert-remat could not bufferize and "
                            "pack a copy of the module to check the budget: ")
             << why;
    smallestArena = std::min(smallestArena, *arena);
    if (*arena <= options.budget) {
      chosen = std::move(**plan);
      break;
    }
    uint64_t over = *arena - options.budget;
    if (over >= target)
      break;
    target -= over;
  }
  if (!chosen) {
    RematOptions greedy = options;
    greedy.policy = RematPolicy::Budget;
    uint64_t smallest = arenaMode && smallestArena != UINT64_MAX
                            ? smallestArena
                            : planRemat(g.graph, greedy).smallestPeak;
    return func.emitError("the budget of ")
           << static_cast<int64_t>(budget) << " bytes is infeasible for @"
           << func.getName() << " with policy '"
           << stringifyRematPolicyChoice(policy) << "': the smallest budget "
           << (arenaMode && smallestArena != UINT64_MAX
                   ? "this policy reached is "
                   : "policy 'budget' reaches is ")
           << smallest << " bytes";
  }
  recordDecisions(func, g, *chosen);
  setBudget(func, budget);
  return apply(func, g, *chosen);
}

void InsertRematPass::recordDecisions(FunctionOpInterface func,
                                      FunctionRematGraph &g,
                                      const RematPlan &plan) {
  MLIRContext *ctx = func.getContext();
  // Only buffers the backward pass reads carry a decision.
  std::vector<uint8_t> readByBackward(g.graph.nodes.size(), 0);
  for (const RematNode &node : g.graph.nodes)
    if (node.backward)
      for (size_t in : node.inputs)
        readByBackward[in] = 1;
  SmallVector<RematDecisionAttr> decisions;
  for (size_t k = 0; k < g.graph.nodes.size(); ++k) {
    const RematNode &node = g.graph.nodes[k];
    if (node.backward || g.external[k] || node.bytes == 0 || !readByBackward[k])
      continue;
    Operation *root = g.chains[k].front();
    ++(plan.recompute[k] ? numRecomputed : numKept);
    decisions.push_back(RematDecisionAttr::get(
        ctx, describeOp(root), static_cast<bool>(plan.recompute[k]),
        static_cast<int64_t>(node.bytes), APFloat(node.cost)));
  }
  double baseline = g.graph.totalCost();
  LLVM_DEBUG(llvm::dbgs() << "memplan-insert-remat: @" << func.getName()
                          << ": budget " << budget << ", " << decisions.size()
                          << " decisions, cost " << plan.result.cost
                          << " against " << baseline << "\n");
  MemplanDialect::RematAttrHelper(ctx).setAttr(
      func, RematAttr::get(ctx, std::max<int64_t>(0, budget),
                           APFloat(std::max(0.0, plan.result.cost - baseline)),
                           APFloat(baseline), decisions));
}

std::optional<uint64_t> InsertRematPass::measureArena(FunctionOpInterface func,
                                                      const RematPlan *plan,
                                                      std::string &why,
                                                      std::string *heap) {
  ++numMeasured;
  why = "unknown reason";
  // Diagnostics of the copy are not the user's: kept quiet, the first
  // error kept for the message.
  bool first = true;
  auto record = [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error && first) {
      first = false;
      why = diag.str();
    }
    return success();
  };
  auto module = func->getParentOfType<ModuleOp>();
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone()));
  auto copyFunc = dyn_cast_or_null<FunctionOpInterface>(
      SymbolTable::lookupSymbolIn(*copy, func.getName()));
  if (!copyFunc)
    return std::nullopt;
  // Without a plan: the function as it is.
  if (plan) {
    FailureOr<FunctionRematGraph> g =
        FunctionRematGraph::build(copyFunc, symbolBounds);
    if (failed(g))
      return std::nullopt;
    ScopedDiagnosticHandler quiet(copy->getContext(), record);
    if (failed(apply(copyFunc, *g, *plan)))
      return std::nullopt;
  }
  // What the pipeline runs from here to the plan (buildMemplanPipeline),
  // fallbacks included: another function left unplanned does not stop the
  // measurement; this one left unplanned is reported below.
  PassManager pm(copy->getContext(), ModuleOp::getOperationName());
  pm.addPass(createMaterializeRematPass());
  buildBufferizeStage(pm);
  pm.addPass(createDoubleBufferPass());
  PackArenaPassOptions pack;
  pack.strict = false;
  pack.algorithm = algorithm;
  pack.alignment = alignment;
  pack.workLimit = workLimit;
  pack.timeLimit = timeLimit;
  // Dynamic shapes: the budget applies at the bounds, so the copy gets one
  // static plan there.
  pack.bounded = true;
  pack.boundsOption = bounds;
  pm.addPass(createPackArenaPass(pack));
  ScopedDiagnosticHandler quiet(copy->getContext(), record);
  if (failed(pm.run(*copy)))
    return std::nullopt;
  if (StringAttr unplanned =
          MemplanDialect::UnplannedAttrHelper(copy->getContext())
              .getAttr(copyFunc)) {
    why = "it is left unplanned (" + unplanned.str() + ")";
    return std::nullopt;
  }
  if (heap)
    copyFunc.walk([&](memref::AllocOp alloc) {
      bool returned = llvm::any_of(alloc->getUsers(), [](Operation *user) {
        return user->hasTrait<OpTrait::ReturnLike>();
      });
      if (alloc.getType().hasStaticShape() || returned)
        return WalkResult::advance();
      *heap = describeOp(alloc);
      return WalkResult::interrupt();
    });
  uint64_t arena = 0;
  copyFunc.walk([&](ArenaOp op) { arena = op.getSizeInBytes(); });
  return arena;
}

LogicalResult InsertRematPass::apply(FunctionOpInterface func,
                                     FunctionRematGraph &g,
                                     const RematPlan &plan) {
  return applyRematPlan(func, g, plan);
}
