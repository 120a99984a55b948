//===- InsertRemat.cpp - Recompute saved activations under a budget -------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Analysis/Lifetimes.h"
#include "memplan/Analysis/RematGraph.h"
#include "memplan/IR/MemplanOps.h"
#include "memplan/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace memplan {
#define GEN_PASS_DEF_INSERTREMATPASS
#include "memplan/Transforms/Passes.h.inc"
} // namespace memplan
} // namespace mlir

using namespace mlir;
using namespace mlir::memplan;

namespace {
struct InsertRematPass
    : public memplan::impl::InsertRematPassBase<InsertRematPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string name = policy.empty() ? (budget > 0 ? "budget" : "keep-all")
                                      : std::string(policy);
    std::optional<RematPolicy> parsed = parseRematPolicy(name);
    if (!parsed) {
      module.emitError("unknown remat policy '") << name << "'";
      return signalPassFailure();
    }
    if (*parsed == RematPolicy::Budget && budget <= 0) {
      module.emitError("policy 'budget' needs a budget");
      return signalPassFailure();
    }
    RematOptions options;
    options.policy = *parsed;
    options.every = std::max<int64_t>(1, every);
    options.threshold = threshold;
    options.budget = budget > 0 ? uint64_t(budget) : UINT64_MAX;
    SmallVector<FunctionOpInterface> funcs;
    module.walk([&](FunctionOpInterface f) {
      if (!f.isExternal())
        funcs.push_back(f);
    });
    for (FunctionOpInterface func : funcs)
      if (failed(rewrite(func, options)))
        return signalPassFailure();
  }

  LogicalResult rewrite(FunctionOpInterface func, const RematOptions &options);
  /// Records the plan as `memplan.remat` on the function, for the reports.
  void recordDecisions(FunctionOpInterface func, FunctionRematGraph &g,
                       const RematPlan &plan);
  /// Applies `plan` to `func`.
  void apply(FunctionOpInterface func, FunctionRematGraph &g,
             const RematPlan &plan);
  /// The packed arena of `func` under `plan`, measured on a copy of the
  /// module; std::nullopt if the copy fails to bufferize or pack.
  std::optional<uint64_t> measureArena(FunctionOpInterface func,
                                       const RematPlan &plan);
};
} // namespace

LogicalResult InsertRematPass::rewrite(FunctionOpInterface func,
                                       const RematOptions &options) {
  FailureOr<FunctionRematGraph> built = FunctionRematGraph::build(func);
  if (failed(built))
    return failure();
  FunctionRematGraph &g = *built;
  RematPlan plan = planRemat(g.graph, options);
  auto infeasible = [&](uint64_t smallest) {
    return func.emitError("the budget of ")
           << static_cast<int64_t>(budget) << " bytes is infeasible for @"
           << func.getName() << ": the smallest budget memplan can reach is "
           << smallest << " bytes";
  };
  bool arenaMode =
      budget > 0 && checkArena && options.policy == RematPolicy::Budget;
  // Without the arena check the budget bounds the graph's liveness peak.
  if (budget > 0 && !plan.feasible && !arenaMode)
    return infeasible(plan.smallestPeak);
  if (arenaMode) {
    // Keep the promise for the packed arena: take the first prefix of the
    // planner's budget-independent order whose measured arena fits (so a
    // smaller budget never gets a larger arena). Up to 48 prefixes are all
    // measured; longer orders are sampled with a stride, then the window
    // before the first sampled fit is scanned one by one.
    std::vector<size_t> order = rematGreedyOrder(g.graph);
    size_t n = g.graph.nodes.size();
    auto prefixPlan = [&](size_t k) {
      RematPlan p;
      p.recompute.assign(n, 0);
      for (size_t i = 0; i < k; ++i)
        p.recompute[order[i]] = 1;
      return p;
    };
    uint64_t smallestArena = UINT64_MAX;
    auto fitsAt = [&](size_t k) -> std::optional<bool> {
      std::optional<uint64_t> arena = measureArena(func, prefixPlan(k));
      if (!arena)
        return std::nullopt;
      smallestArena = std::min(smallestArena, *arena);
      return *arena <= uint64_t(budget);
    };
    size_t stride = std::max<size_t>(1, (order.size() + 47) / 48);
    std::optional<size_t> chosen;
    size_t lastMiss = 0;
    for (size_t k = 0;; k = std::min(k + stride, order.size())) {
      std::optional<bool> fits = fitsAt(k);
      if (!fits)
        return func.emitError("memplan-insert-remat could not bufferize and "
                              "pack a copy of the module to check the budget");
      if (*fits) {
        chosen = k;
        break;
      }
      lastMiss = k;
      if (k == order.size())
        break;
    }
    if (chosen && stride > 1)
      for (size_t k = lastMiss + 1; k < *chosen; ++k)
        if (fitsAt(k).value_or(false)) {
          chosen = k;
          break;
        }
    if (!chosen)
      return infeasible(smallestArena);
    plan = prefixPlan(*chosen);
    plan.result = simulateRemat(g.graph, plan.recompute); // for the report
  }
  recordDecisions(func, g, plan);
  if (budget > 0)
    func->setAttr(MemplanDialect::getBudgetAttrName(),
                  IntegerAttr::get(IntegerType::get(func.getContext(), 64),
                                   static_cast<int64_t>(budget)));
  apply(func, g, plan);
  return success();
}

void InsertRematPass::recordDecisions(FunctionOpInterface func,
                                      FunctionRematGraph &g,
                                      const RematPlan &plan) {
  MLIRContext *ctx = func.getContext();
  Builder b(ctx);
  // Only buffers the backward pass reads carry a decision.
  std::vector<uint8_t> readByBackward(g.graph.nodes.size(), 0);
  for (const RematNode &node : g.graph.nodes)
    if (node.backward)
      for (size_t in : node.inputs)
        readByBackward[in] = 1;
  SmallVector<Attribute> decisions;
  for (size_t k = 0; k < g.graph.nodes.size(); ++k) {
    const RematNode &node = g.graph.nodes[k];
    if (node.backward || g.external[k] || node.bytes == 0 || !readByBackward[k])
      continue;
    Operation *root = g.chains[k].front();
    decisions.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("value", b.getStringAttr(describeOp(root))),
         b.getNamedAttr(
             "decision",
             b.getStringAttr(plan.recompute[k] ? "recompute" : "keep")),
         b.getNamedAttr("bytes", b.getI64IntegerAttr(node.bytes)),
         b.getNamedAttr("cost", b.getF64FloatAttr(node.cost))}));
  }
  double baseline = g.graph.totalCost();
  func->setAttr(
      MemplanDialect::getRematAttrName(),
      b.getDictionaryAttr(
          {b.getNamedAttr("budget_bytes",
                          b.getI64IntegerAttr(std::max<int64_t>(0, budget))),
           b.getNamedAttr("recompute_cost",
                          b.getF64FloatAttr(plan.result.cost - baseline)),
           b.getNamedAttr("baseline_cost", b.getF64FloatAttr(baseline)),
           b.getNamedAttr("decisions", b.getArrayAttr(decisions))}));
}

std::optional<uint64_t> InsertRematPass::measureArena(FunctionOpInterface func,
                                                      const RematPlan &plan) {
  auto module = func->getParentOfType<ModuleOp>();
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone()));
  auto copyFunc = dyn_cast_or_null<FunctionOpInterface>(
      SymbolTable::lookupSymbolIn(*copy, func.getName()));
  if (!copyFunc)
    return std::nullopt;
  FailureOr<FunctionRematGraph> g = FunctionRematGraph::build(copyFunc);
  if (failed(g))
    return std::nullopt;
  apply(copyFunc, *g, plan);
  PassManager pm(copy->getContext(), ModuleOp::getOperationName());
  std::string pipeline =
      "memplan-materialize-remat,one-shot-bufferize{bufferize-function-"
      "boundaries function-boundary-type-conversion=identity-layout-map},"
      "memplan-pack-arena{algorithm=" +
      std::string(algorithm) + " alignment=" + std::to_string(alignment) +
      " time-limit=" + std::to_string(timeLimit) + "}";
  if (failed(parsePassPipeline(pipeline, pm)))
    return std::nullopt;
  // Diagnostics of the copy are not the user's: keep them quiet.
  ScopedDiagnosticHandler quiet(copy->getContext(),
                                [](Diagnostic &) { return success(); });
  if (failed(pm.run(*copy)))
    return std::nullopt;
  uint64_t arena = 0;
  copyFunc.walk([&](ArenaOp op) { arena = op.getSizeInBytes(); });
  return arena;
}

void InsertRematPass::apply(FunctionOpInterface func, FunctionRematGraph &g,
                            const RematPlan &plan) {
  MLIRContext *ctx = func.getContext();
  size_t n = g.graph.nodes.size();
  Block &body = func.getFunctionBody().front();
  DenseMap<Operation *, size_t> position;
  for (auto [i, op] : llvm::enumerate(body))
    position[&op] = i;
  // Backward ops: in a backward node's chain, or outside chains after the
  // last forward buffer is complete.
  size_t lastForward = 0;
  for (size_t k = 0; k < n; ++k)
    if (!g.graph.nodes[k].backward)
      for (Operation *op : g.chains[k])
        lastForward = std::max(lastForward, position[op]);
  auto isBackward = [&](Operation *user) {
    while (user->getBlock() != &body)
      user = user->getParentOp();
    auto it = g.nodeOf.find(user);
    if (it != g.nodeOf.end())
      return g.graph.nodes[it->second].backward;
    return position[user] > lastForward;
  };
  auto backwardUses = [&](size_t k) {
    SmallVector<OpOperand *> uses;
    for (Operation *op : g.chains[k])
      for (Value v : op->getResults())
        for (OpOperand &use : v.getUses())
          if (isBackward(use.getOwner()))
            uses.push_back(&use);
    return uses;
  };
  auto topLevel = [&](Operation *op) {
    while (op->getBlock() != &body)
      op = op->getParentOp();
    return op;
  };
  // The backward uses of every buffer, taken before any rewriting: once a
  // kept buffer is checkpointed its backward uses read the checkpoint, and
  // asking the IR again would mistake it for a buffer nothing saves.
  std::vector<SmallVector<OpOperand *>> saved(n);
  for (size_t k = 0; k < n; ++k)
    if (!g.graph.nodes[k].backward && !g.external[k])
      saved[k] = backwardUses(k);

  for (size_t k = 0; k < n; ++k) {
    const RematNode &node = g.graph.nodes[k];
    if (node.backward || g.external[k])
      continue;
    ArrayRef<OpOperand *> uses = saved[k];
    if (uses.empty())
      continue; // dead saved state: nothing backward reads it
    if (!plan.recompute[k]) {
      // Kept: backward uses read a checkpoint of the buffer's final value.
      Value final = g.finals[k];
      if (!isa<RankedTensorType>(final.getType()) ||
          !cast<RankedTensorType>(final.getType()).hasStaticShape())
        continue;
      OpBuilder b(ctx);
      b.setInsertionPointAfterValue(final);
      auto checkpoint =
          b.create<CheckpointOp>(final.getLoc(), final.getType(), final);
      for (OpOperand *use : uses)
        if (use->get() == final)
          use->set(checkpoint.getResult());
      continue;
    }
    // Recomputed: clone its chain and those of recomputed buffers it reads.
    llvm::SetVector<size_t> slice;
    SmallVector<size_t> work{k};
    while (!work.empty()) {
      size_t q = work.pop_back_val();
      if (!slice.insert(q))
        continue;
      // Rebuild every forward ancestor except kept ones the backward pass
      // reads (checkpointed): reading any other original value would keep
      // it alive into the backward pass.
      for (size_t in : g.graph.nodes[q].inputs)
        if (!g.graph.nodes[in].backward && !g.external[in] &&
            (plan.recompute[in] || saved[in].empty()))
          work.push_back(in);
    }
    SmallVector<Operation *> ops;
    for (size_t q : slice)
      llvm::append_range(ops, g.chains[q]);
    llvm::sort(ops, [&](Operation *a, Operation *b) {
      return position[a] < position[b];
    });
    llvm::SmallPtrSet<Operation *, 16> inSlice(ops.begin(), ops.end());
    // Inputs: every value the slice reads that it does not define.
    llvm::SetVector<Value> inputs;
    for (Operation *op : ops)
      op->walk([&](Operation *nested) {
        for (Value operand : nested->getOperands()) {
          Operation *def = operand.getDefiningOp();
          if (def && (inSlice.count(topLevel(def)) || op->isAncestor(def)))
            continue;
          if (!def && op->isAncestor(operand.getParentRegion()->getParentOp()))
            continue; // a payload block argument
          inputs.insert(operand);
        }
      });
    // The values of this buffer that backward ops read.
    llvm::SetVector<Value> needed;
    Operation *first = nullptr;
    for (OpOperand *use : uses) {
      needed.insert(use->get());
      Operation *owner = topLevel(use->getOwner());
      if (!first || position[owner] < position[first])
        first = owner;
    }
    OpBuilder b(first);
    SmallVector<Type> types;
    for (Value v : needed)
      types.push_back(v.getType());
    auto recompute =
        b.create<RecomputeOp>(first->getLoc(), types, inputs.getArrayRef());
    Block *block = b.createBlock(&recompute.getBody());
    IRMapping mapping;
    for (Value in : inputs)
      mapping.map(in, block->addArgument(in.getType(), in.getLoc()));
    b.setInsertionPointToStart(block);
    for (Operation *op : ops) {
      Operation *copy = b.clone(*op, mapping);
      // Recomputed buffers keep this mark through bufferization (allocations
      // take their tensor's location): reports show them as recomputed.
      copy->setLoc(
          NameLoc::get(StringAttr::get(ctx, kRecomputeLocName), op->getLoc()));
    }
    SmallVector<Value> yielded;
    for (Value v : needed)
      yielded.push_back(mapping.lookup(v));
    b.create<YieldOp>(first->getLoc(), yielded);
    for (OpOperand *use : uses) {
      auto it = llvm::find(needed, use->get());
      use->set(recompute.getResult(it - needed.begin()));
    }
  }
}
