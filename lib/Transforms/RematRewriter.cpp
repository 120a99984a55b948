//===- RematRewriter.cpp - Rewrite a function to run a remat plan ---------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//
//
// The IR half of memplan-insert-remat: the plan (which executions, in which
// order) comes from Planning/Remat.h; this file turns it into
// memplan.recompute regions and memplan.checkpoint ops.
//
//===----------------------------------------------------------------------===//

#include "RematRewriter.h"
#include "memplan/IR/MemplanOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::memplan;

namespace {
/// Rewrites a function so that it executes a remat schedule (Remat.h): a
/// node's first execution is its ops where they stand; the recomputations
/// that precede it in the schedule become one memplan.recompute region
/// placed right before the first of its ops that reads what the region
/// yields (else before its last writer). Every read takes the instance the
/// schedule reads: the latest one before it.
class ScheduleRewriter {
public:
  ScheduleRewriter(FunctionOpInterface func, FunctionRematGraph &g)
      : func(func), g(g), body(func.getFunctionBody().front()) {}

  LogicalResult run(ArrayRef<size_t> schedule);

private:
  using Instance = DenseMap<Value, Value>;
  Operation *topLevel(Operation *op) {
    while (op->getBlock() != &body)
      op = op->getParentOp();
    return op;
  }
  /// The node whose chain defines `v`, if any.
  std::optional<size_t> nodeOfValue(Value v) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return std::nullopt;
    auto it = g.nodeOf.find(topLevel(def));
    if (it == g.nodeOf.end() || topLevel(def) != def)
      return std::nullopt;
    return it->second;
  }
  /// What a read of `v` outside its chain sees now.
  Value current(Value v) {
    std::optional<size_t> u = nodeOfValue(v);
    if (!u || !instance[*u])
      return v;
    auto it = instance[*u]->find(v);
    return it == instance[*u]->end() ? v : it->second;
  }
  /// Redirects the reads of `op` (and its payloads) of other nodes' values
  /// to their current instances; returns whether any changed.
  bool remap(Operation *op, std::optional<size_t> self) {
    bool changed = false;
    op->walk([&](Operation *nested) {
      for (OpOperand &use : nested->getOpOperands()) {
        std::optional<size_t> u = nodeOfValue(use.get());
        if (!u || u == self)
          continue;
        Value now = current(use.get());
        if (now != use.get()) {
          use.set(now);
          changed = true;
        }
      }
    });
    return changed;
  }
  /// Builds the region of the recomputations `group` that precede node t's
  /// first execution; `readLater[i]`: group[i]'s instance is read after the
  /// region; `readerNodes`: the nodes whose original ops read one of them.
  LogicalResult buildGroup(size_t t, ArrayRef<size_t> group,
                           ArrayRef<uint8_t> readLater,
                           ArrayRef<size_t> readerNodes);

  FunctionOpInterface func;
  FunctionRematGraph &g;
  Block &body;
  /// Per node: the values of its latest instance when it is a recomputed
  /// one (original chain value -> recomputed value).
  std::vector<std::optional<Instance>> instance;
};
} // namespace

LogicalResult ScheduleRewriter::run(ArrayRef<size_t> schedule) {
  size_t n = g.graph.nodes.size();
  instance.assign(n, std::nullopt);
  // First executions must come in node order (the program's order).
  std::vector<uint8_t> ran(n, 0);
  size_t next = 0;
  for (size_t v : schedule) {
    if (ran[v])
      continue;
    if (v != next)
      return func.emitError("memplan-insert-remat: internal error: the "
                            "schedule runs nodes out of program order");
    ran[v] = 1;
    ++next;
  }
  if (next != n)
    return func.emitError(
        "memplan-insert-remat: internal error: the schedule misses a node");
  // Ops in no chain, by the node whose stage they belong to (the first node
  // whose last writer follows them; n: after every node).
  DenseMap<Operation *, size_t> position;
  for (auto [i, op] : llvm::enumerate(body))
    position[&op] = i;
  std::vector<size_t> writerAt(n);
  for (size_t k = 0; k < n; ++k)
    writerAt[k] = position[topLevel(g.finals[k].getDefiningOp())];
  std::vector<SmallVector<Operation *>> loose(n + 1);
  for (Operation &op : body) {
    if (g.nodeOf.count(&op))
      continue;
    size_t stage = llvm::partition_point(
                       writerAt, [&](size_t w) { return w < position[&op]; }) -
                   writerAt.begin();
    loose[std::min(stage, n)].push_back(&op);
  }
  std::vector<size_t> lastRead = scheduleLastReads(g.graph, schedule);
  // The first executions that read each execution's instance.
  std::vector<SmallVector<size_t, 2>> firstReaders(schedule.size());
  {
    std::vector<size_t> latest(n, SIZE_MAX);
    std::vector<uint8_t> seen(n, 0);
    for (size_t q = 0; q < schedule.size(); ++q) {
      size_t v = schedule[q];
      if (!seen[v])
        for (size_t u : g.graph.nodes[v].inputs)
          firstReaders[latest[u]].push_back(v);
      seen[v] = 1;
      latest[v] = q;
    }
  }
  SmallVector<size_t> group, readerNodes;
  std::vector<uint8_t> readLater;
  std::fill(ran.begin(), ran.end(), 0);
  size_t t = 0;
  size_t groupStart = 0;
  for (size_t q = 0; q < schedule.size(); ++q) {
    size_t v = schedule[q];
    if (ran[v]) {
      if (group.empty())
        groupStart = q;
      group.push_back(v);
      continue;
    }
    ran[v] = 1;
    // Ops outside chains in this stage read the state before the region.
    for (Operation *op : loose[t])
      remap(op, std::nullopt);
    if (!group.empty()) {
      readLater.clear();
      readerNodes.clear();
      for (size_t i = 0; i < group.size(); ++i) {
        readLater.push_back(lastRead[groupStart + i] >= q);
        llvm::append_range(readerNodes, firstReaders[groupStart + i]);
      }
      if (failed(buildGroup(t, group, readLater, readerNodes)))
        return failure();
      group.clear();
    }
    for (Operation *op : g.chains[t])
      remap(op, t);
    ++t;
  }
  for (Operation *op : loose[n])
    remap(op, std::nullopt);
  // Every read must follow what it reads (a region placed after an early op
  // of a later node would not).
  DominanceInfo dominance(func);
  WalkResult walk = func.walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (!dominance.properlyDominates(operand, op))
        return op->emitError("memplan-insert-remat: internal error: cannot "
                             "order this op after the recomputation it "
                             "reads"),
               WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult ScheduleRewriter::buildGroup(size_t t, ArrayRef<size_t> group,
                                           ArrayRef<uint8_t> readLater,
                                           ArrayRef<size_t> readerNodes) {
  MLIRContext *ctx = func.getContext();
  auto block = std::make_unique<Block>();
  OpBuilder b(ctx);
  b.setInsertionPointToStart(block.get());
  SmallVector<Value> inputs;
  DenseMap<Value, Value> argOf;
  auto argFor = [&](Value outer) {
    auto [it, inserted] = argOf.try_emplace(outer, Value());
    if (inserted) {
      it->second = block->addArgument(outer.getType(), outer.getLoc());
      inputs.push_back(outer);
    }
    return it->second;
  };
  // The latest instance of each node inside the region.
  DenseMap<size_t, Instance> local;
  for (auto [i, v] : llvm::enumerate(group)) {
    IRMapping mapping;
    llvm::SmallPtrSet<Operation *, 8> chainOps(g.chains[v].begin(),
                                               g.chains[v].end());
    for (Operation *op : g.chains[v]) {
      // Values read from outside this chain: from a local instance, else
      // a block argument for the current outer value.
      op->walk([&](Operation *nested) {
        for (Value operand : nested->getOperands()) {
          if (mapping.contains(operand))
            continue;
          Operation *def = operand.getDefiningOp();
          if (def && (op->isAncestor(def) || chainOps.count(topLevel(def))))
            continue; // inside the op, or earlier in this chain
          if (!def && op->isAncestor(operand.getParentRegion()->getParentOp()))
            continue; // a payload block argument
          std::optional<size_t> u = nodeOfValue(operand);
          if (u) {
            auto it = local.find(*u);
            if (it != local.end() && it->second.count(operand)) {
              mapping.map(operand, it->second.lookup(operand));
              continue;
            }
          }
          mapping.map(operand, argFor(current(operand)));
        }
      });
      Operation *copy = b.clone(*op, mapping);
      // Recomputed buffers keep this mark through bufferization (allocations
      // take their tensor's location): reports show them as recomputed.
      copy->setLoc(
          NameLoc::get(StringAttr::get(ctx, kRecomputeLocName), op->getLoc()));
    }
    Instance values;
    for (Operation *op : g.chains[v])
      for (Value r : op->getResults())
        values[r] = mapping.lookup(r);
    local[v] = std::move(values);
  }
  // Yield the instances read after the region: the values of their chains
  // that something outside the chain reads.
  SmallVector<Value> yielded, originals;
  for (auto [i, v] : llvm::enumerate(group)) {
    if (!readLater[i])
      continue;
    llvm::SmallPtrSet<Operation *, 8> chainOps(g.chains[v].begin(),
                                               g.chains[v].end());
    for (Operation *op : g.chains[v])
      for (Value r : op->getResults())
        if (llvm::any_of(r.getUsers(), [&](Operation *user) {
              return !chainOps.count(topLevel(user));
            })) {
          originals.push_back(r);
          yielded.push_back(local[v].lookup(r));
        }
  }
  // Right before the first op that reads what the region yields — an op of
  // node t or of a later node whose first execution reads it (a chain may
  // start early) — else before t's last writer.
  Operation *at = topLevel(g.finals[t].getDefiningOp());
  llvm::SmallPtrSet<Value, 16> yieldedSet(originals.begin(), originals.end());
  SmallVector<size_t> readers(readerNodes.begin(), readerNodes.end());
  readers.push_back(t);
  for (size_t r : readers)
    for (Operation *op : g.chains[r]) {
      if (!op->isBeforeInBlock(at))
        break;
      bool reads = false;
      op->walk([&](Operation *nested) {
        for (Value operand : nested->getOperands())
          reads |= yieldedSet.count(operand) != 0;
      });
      if (reads) {
        at = op;
        break;
      }
    }
  for (Value in : inputs) {
    Operation *def = in.getDefiningOp();
    if (def && !topLevel(def)->isBeforeInBlock(at))
      return at->emitError("memplan-insert-remat: internal error: cannot "
                           "place a recomputation before this op: it reads "
                           "a value defined later");
  }
  b.setInsertionPointToEnd(block.get());
  YieldOp::create(b, at->getLoc(), yielded);
  b.setInsertionPoint(at);
  SmallVector<Type> types;
  for (Value v : yielded)
    types.push_back(v.getType());
  auto recompute = RecomputeOp::create(b, at->getLoc(), types, inputs);
  recompute.getBody().push_back(block.release());
  // The chains that read the region may start before it (a tensor.empty and
  // its fill, say): their buffers would then be live across the
  // recomputation, which the schedule model (and the arena predicted from
  // it, RematArena.h) does not count. Their pure leading ops move to right
  // after the region, last first, each only while every op that reads it
  // still comes after where it goes (ops moved before it included).
  llvm::SmallDenseSet<size_t, 8> movedChains;
  for (size_t r : readers) {
    if (!movedChains.insert(r).second)
      continue;
    SmallVector<Operation *> early;
    for (Operation *op : g.chains[r]) {
      if (!op->isBeforeInBlock(recompute))
        break;
      early.push_back(op);
    }
    Operation *before = at;
    for (Operation *op : llvm::reverse(early)) {
      if (!isPure(op))
        break;
      bool readBefore = llvm::any_of(op->getUsers(), [&](Operation *user) {
        return topLevel(user)->isBeforeInBlock(before);
      });
      if (readBefore)
        break;
      op->moveBefore(before);
      before = op;
    }
  }
  // From now on, reads of these nodes see the region's results.
  DenseMap<size_t, Instance> fresh;
  for (auto [k, original] : llvm::enumerate(originals))
    fresh[*nodeOfValue(original)][original] = recompute.getResult(k);
  for (auto &[u, values] : fresh)
    instance[u] = std::move(values);
  return success();
}

LogicalResult mlir::memplan::applyRematPlan(FunctionOpInterface func,
                                            FunctionRematGraph &g,
                                            const RematPlan &plan) {
  if (failed(ScheduleRewriter(func, g).run(plan.schedule)))
    return failure();
  // Kept saved values: the backward pass reads a checkpoint of them.
  Block &body = func.getFunctionBody().front();
  DenseMap<Operation *, size_t> position;
  for (auto [i, op] : llvm::enumerate(body))
    position[&op] = i;
  size_t n = g.graph.nodes.size();
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
  for (size_t k = 0; k < n; ++k) {
    if (g.graph.nodes[k].backward || g.external[k])
      continue;
    Value final = g.finals[k];
    auto type = dyn_cast<RankedTensorType>(final.getType());
    if (!type || !type.hasStaticShape())
      continue;
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : final.getUses())
      if (isBackward(use.getOwner()))
        uses.push_back(&use);
    if (uses.empty())
      continue; // dead saved state, or only recomputed copies are read
    OpBuilder b(func.getContext());
    b.setInsertionPointAfterValue(final);
    auto checkpoint = CheckpointOp::create(b, final.getLoc(), type, final);
    for (OpOperand *use : uses)
      use->set(checkpoint.getResult());
  }
  return success();
}
