//===- Lifetimes.cpp - Buffer lifetimes of a function ---------------------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Analysis/Lifetimes.h"
#include "memplan/IR/MemplanOps.h"

#include "mlir/Analysis/Liveness.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/Interfaces/MaskingOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::memplan;

static bool isBufferType(Type type) {
  return isa<TensorType, BaseMemRefType>(type);
}

/// Region ops that are not region branches but whose regions run as control
/// flow, in place, possibly many times: loops (affine.parallel, ...) and
/// masks (vector.mask). Their nested ops get steps and may create buffers.
/// Nothing forwards values across their region boundaries (their results are
/// destination-style, a mask's masked results, or rejected), so a buffer
/// created inside stays inside: one slot serves every iteration. Regions of
/// other ops (linalg bodies, ...) are payloads.
static bool isControlRegionOp(Operation *op) {
  if (isa<RegionBranchOpInterface, linalg::LinalgOp>(op))
    return false;
  return isa<LoopLikeOpInterface, vector::MaskingOpInterface>(op);
}

/// Ranked and static, or a located error.
static LogicalResult checkStaticShape(Location loc, Type type) {
  auto shaped = cast<ShapedType>(type);
  if (!shaped.hasRank())
    return emitError(loc) << "unranked type " << type
                          << " is not supported: memplan plans ranked shapes";
  if (!shaped.hasStaticShape())
    return emitError(loc) << "dynamic shape " << type
                          << " is not supported here: budgets and "
                             "rematerialization plan static shapes";
  return success();
}

FailureOr<uint64_t>
mlir::memplan::getCheckedStorageBytes(Location loc, Type type,
                                      const DataLayout &layout) {
  if (failed(checkStaticShape(loc, type)))
    return failure();
  auto shaped = cast<ShapedType>(type);
  if (!getElementStorageBytes(shaped.getElementType(), layout))
    return emitError(loc) << "element type " << shaped.getElementType()
                          << " of " << type
                          << " has no storage size in the data layout";
  std::optional<uint64_t> bytes = getStaticStorageBytes(shaped, layout);
  if (!bytes)
    return emitError(loc) << "the size of " << type << " overflows 64 bits";
  return *bytes;
}

/// MLIR's runner utilities that print a memref and keep no reference.
static bool isRunnerPrinter(StringRef name) {
  return name.starts_with("printMemref") ||
         name.starts_with("_mlir_ciface_printMemref");
}

bool mlir::memplan::calleeKeepsNoReference(CallOpInterface call,
                                           unsigned argIndex) {
  // (call, argument) pairs still to check; calls inside a callee are
  // followed to a fixed depth, iteratively.
  constexpr unsigned kMaxDepth = 4;
  constexpr size_t kMaxUses = 1 << 16;
  struct Pending {
    CallOpInterface call;
    unsigned arg;
    unsigned depth;
  };
  SmallVector<Pending> pending{{call, argIndex, 0}};
  size_t visited = 0;
  while (!pending.empty()) {
    Pending next = pending.pop_back_val();
    auto callee =
        dyn_cast_or_null<FunctionOpInterface>(next.call.resolveCallable());
    if (!callee)
      return false;
    if (callee.isExternal()) {
      if (!isRunnerPrinter(callee.getName()))
        return false;
      continue;
    }
    if (next.depth >= kMaxDepth ||
        next.arg >= callee.getFunctionBody().getNumArguments())
      return false;
    SmallVector<Value> work{callee.getFunctionBody().getArgument(next.arg)};
    while (!work.empty()) {
      Value value = work.pop_back_val();
      for (OpOperand &use : value.getUses()) {
        if (++visited > kMaxUses)
          return false;
        Operation *user = use.getOwner();
        if (auto view = dyn_cast<ViewLikeOpInterface>(user);
            view && view.getViewSource() == value) {
          llvm::append_range(work, user->getResults());
          continue;
        }
        if (auto inner = dyn_cast<CallOpInterface>(user)) {
          OperandRange args = inner.getArgOperands();
          if (args.empty() ||
              use.getOperandNumber() < args.getBeginOperandIndex() ||
              use.getOperandNumber() >=
                  args.getBeginOperandIndex() + args.size())
            return false;
          pending.push_back(
              {inner, use.getOperandNumber() - args.getBeginOperandIndex(),
               next.depth + 1});
          continue;
        }
        if (isa<memref::DeallocOp, RegionBranchOpInterface>(user) ||
            user->hasTrait<OpTrait::IsTerminator>())
          return false;
        // Storing the memref itself (not into it) keeps a reference.
        if (isa<memref::StoreOp>(user) && use.getOperandNumber() == 0)
          return false;
        if (llvm::any_of(user->getResultTypes(), isBufferType))
          return false;
      }
    }
  }
  return true;
}

std::string mlir::memplan::qualifiedFunctionName(Operation *func) {
  std::string name;
  if (auto symbol =
          func->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
    name = symbol.str();
  for (auto module = func->getParentOfType<ModuleOp>();
       module && module->getParentOp();
       module = module->getParentOfType<ModuleOp>())
    name =
        (module.getSymName() ? module.getSymName()->str() : std::string("_")) +
        "::" + name;
  return name;
}

Value mlir::memplan::getMemRefStoredAsData(Operation *op) {
  Value stored;
  if (auto store = dyn_cast<memref::StoreOp>(op))
    stored = store.getValueToStore();
  else if (auto store = dyn_cast<affine::AffineWriteOpInterface>(op))
    stored = store.getValueToStore();
  return stored && isa<BaseMemRefType>(stored.getType()) ? stored : Value();
}

std::string mlir::memplan::describeOp(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getName() << " @ ";
  Location where = op->getLoc();
  if (auto named = dyn_cast<NameLoc>(where);
      named && named.getName() == kRecomputeLocName)
    where = named.getChildLoc();
  if (auto loc = dyn_cast<FileLineColLoc>(where))
    os << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
       << loc.getColumn();
  else
    where.print(os);
  return text;
}

int64_t FunctionLifetimes::getLastNestedStep(Operation *op) const {
  auto it = lastNestedSteps.find(op);
  return it != lastNestedSteps.end() ? it->second : getStep(op);
}

int64_t FunctionLifetimes::getRootIndex(Value value) const {
  auto it = classOf.find(value);
  if (it == classOf.end())
    return -1;
  return classRoots[it->second].front();
}

SmallVector<const Root *> FunctionLifetimes::getRootsOf(Value value) const {
  SmallVector<const Root *> result;
  auto it = classOf.find(value);
  if (it == classOf.end())
    return result;
  for (unsigned index : classRoots[it->second])
    result.push_back(&roots[index]);
  return result;
}

LowerBound FunctionLifetimes::getPeak() const {
  SmallVector<LiveRange> ranges;
  for (const Root &root : roots)
    if (root.isPlanned())
      ranges.push_back({root.live, root.size});
  return computeLowerBound(ranges);
}

namespace mlir {
namespace memplan {
/// Builds a FunctionLifetimes in four passes: number the steps, classify
/// every tensor/memref value (root, alias of another value, or forwarded by a
/// region branch), merge aliases with a union-find, and give each class the
/// hull of its members' definitions and uses.
class LifetimeBuilder {
public:
  LifetimeBuilder(FunctionOpInterface func, FunctionLifetimes &out,
                  bool allowDynamicShapes)
      : func(func), out(out), layout(DataLayout::closest(func)),
        allowDynamicShapes(allowDynamicShapes) {}

  LogicalResult run();

private:
  LogicalResult numberSteps(Block &block, int64_t &next);
  LogicalResult checkPayload(Operation *op);
  LogicalResult addValue(Value value, Location loc);
  LogicalResult classifyResults(Operation *op);
  LogicalResult addBranchEdges(RegionBranchOpInterface branch);
  LogicalResult addForwarding(Operation *op, ValueRange operands,
                              ValueRange inputs);
  LogicalResult checkLoopCarried(ArrayRef<unsigned> members);
  /// Whether `id` is an allocation whose buffer reaches the function's
  /// return: it is then the caller's and never planned, so it may be carried
  /// across iterations (each iteration's instance stays on the heap). Placed
  /// buffers (views of an arena) always count: the verifier checks them.
  bool isReturnedRoot(unsigned id) {
    auto kind = rootKind.find(id);
    return kind != rootKind.end() && kind->second == RootKind::Allocated &&
           returnedClasses.count(find(id));
  }
  LogicalResult addCFGEdges(Operation *terminator);
  void extendByBlockLiveness(const Liveness &liveness,
                             MutableArrayRef<Interval> valueLive);
  LogicalResult checkCFGLoopCarried(const Liveness &liveness);
  bool isLiveAcross(const Liveness &liveness, Value value, Operation *op);
  Operation *getTopLevelAncestor(Operation *op) const;
  int64_t defStep(Value value) const;
  int64_t useStep(Value value, Operation *user) const;
  bool isStepped(Operation *op) const { return out.steps.count(op); }

  unsigned find(unsigned x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  }
  void unite(Value a, Value b) {
    unsigned ra = find(ids.lookup(a)), rb = find(ids.lookup(b));
    if (ra != rb)
      parent[std::max(ra, rb)] = std::min(ra, rb);
  }
  void markRoot(Value value, RootKind kind) {
    rootKind[ids.lookup(value)] = kind;
  }

  /// The shape check for arguments and new buffers.
  LogicalResult checkShape(Location loc, Type type) const;

  mutable FunctionOpInterface func;
  FunctionLifetimes &out;
  DataLayout layout;
  bool allowDynamicShapes = false;
  SmallVector<Operation *> steppedOps;
  // Every analysed tensor/memref value, its id and union-find parent.
  SmallVector<Value> values;
  DenseMap<Value, unsigned> ids;
  SmallVector<unsigned> parent;
  DenseMap<unsigned, RootKind> rootKind;
  /// The classes (union-find representatives) with a returned value.
  DenseSet<unsigned> returnedClasses;
  SmallVector<std::pair<Value, Value>> edges;
  // Region-branch results and region arguments must be reached by an edge.
  SmallVector<Value> needIncoming;
  DenseSet<Value> hasIncoming;
  // The first and last step of each block of the function body.
  DenseMap<Block *, std::pair<int64_t, int64_t>> blockSteps;
};
} // namespace memplan
} // namespace mlir

LogicalResult LifetimeBuilder::checkPayload(Operation *op) {
  // Payload regions (linalg bodies, tensor.generate, ...) get no steps; they
  // must not create buffers of their own.
  WalkResult walk = op->walk([&](Operation *nested) {
    if (nested == op)
      return WalkResult::advance();
    for (Value result : nested->getResults())
      if (isBufferType(result.getType())) {
        nested->emitError("tensor or memref produced inside the payload "
                          "region of '")
            << op->getName() << "' is not supported";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult LifetimeBuilder::numberSteps(Block &block, int64_t &next) {
  for (Operation &op : block) {
    out.steps[&op] = ++next; // stored as step + 1
    steppedOps.push_back(&op);
    if (op.getNumRegions() == 0)
      continue;
    if (!isa<RegionBranchOpInterface>(op) && !isControlRegionOp(&op)) {
      if (failed(checkPayload(&op)))
        return failure();
      continue;
    }
    for (Region &region : op.getRegions()) {
      if (region.empty())
        continue;
      if (!region.hasOneBlock())
        return op.emitError("region #")
               << region.getRegionNumber() << " of '" << op.getName()
               << "' has " << llvm::range_size(region.getBlocks())
               << " blocks; memplan supports single-block regions only";
      if (failed(numberSteps(region.front(), next)))
        return failure();
    }
    out.lastNestedSteps[&op] = next - 1;
  }
  return success();
}

LogicalResult LifetimeBuilder::addValue(Value value, Location loc) {
  if (!isBufferType(value.getType()))
    return success();
  // Only values that own storage need a static size (roots are checked when
  // classified, arguments here); an alias may be a dynamic or unranked view.
  if (auto arg = dyn_cast<BlockArgument>(value);
      arg && arg.getOwner()->getParentOp() == func.getOperation() &&
      arg.getOwner()->isEntryBlock() &&
      failed(checkShape(loc, value.getType())))
    return failure();
  ids[value] = values.size();
  parent.push_back(values.size());
  values.push_back(value);
  return success();
}

/// The value a view-like or cast-like op aliases, if `op` is one.
static Value getAliasedSource(Operation *op) {
  if (auto checkpoint = dyn_cast<CheckpointOp>(op))
    return checkpoint.getInput();
  if (auto view = dyn_cast<ViewLikeOpInterface>(op))
    return view.getViewSource();
  // Each of these aliases its first operand.
  if (isa<tensor::CastOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp,
          tensor::ExtractSliceOp, tensor::ReshapeOp, tensor::BitcastOp,
          bufferization::ToTensorOp, bufferization::ToBufferOp>(op))
    return op->getOperand(0);
  return Value();
}

LogicalResult LifetimeBuilder::classifyResults(Operation *op) {
  SmallVector<Value> results;
  for (Value result : op->getResults()) {
    if (!isBufferType(result.getType()))
      continue;
    if (failed(addValue(result, op->getLoc())))
      return failure();
    results.push_back(result);
  }
  if (results.empty())
    return success();

  auto markAll = [&](RootKind kind) {
    for (Value result : results)
      markRoot(result, kind);
    return success();
  };
  // Storage that is not the arena's.
  if (op->hasTrait<OpTrait::ConstantLike>() ||
      isa<memref::GetGlobalOp, memref::AllocaOp, ArenaOp, CallOpInterface>(op))
    return markAll(RootKind::External);
  // Already placed.
  if (isa<ViewOp, DynamicViewOp>(op))
    return markAll(RootKind::Placed);
  // New buffers.
  if (isa<memref::AllocOp, memref::ReallocOp, bufferization::AllocTensorOp,
          bufferization::CloneOp, tensor::EmptyOp, tensor::SplatOp,
          tensor::FromElementsOp, tensor::GenerateOp, tensor::PadOp,
          tensor::ConcatOp>(op) ||
      (op->hasTrait<OpTrait::Elementwise>() &&
       llvm::all_of(op->getResultTypes(),
                    [](Type t) { return isa<TensorType>(t); }))) {
    for (Value result : results) {
      if (failed(checkShape(op->getLoc(), result.getType())))
        return failure();
      if (!cast<ShapedType>(result.getType()).hasStaticShape()) {
        // Sized at run time (allowDynamicShapes): only the element type.
        if (!getElementStorageBytes(
                cast<ShapedType>(result.getType()).getElementType(), layout))
          return op->emitError("element type of ")
                 << result.getType()
                 << " has no storage size in the data layout";
        continue;
      }
      if (failed(
              getCheckedStorageBytes(op->getLoc(), result.getType(), layout)))
        return failure();
    }
    return markAll(RootKind::Allocated);
  }
  // Aliases of one operand.
  if (Value source = getAliasedSource(op)) {
    for (Value result : results)
      edges.push_back({source, result});
    return success();
  }
  // A select may be either of its values (memplan-double-buffer's slots).
  if (auto select = dyn_cast<arith::SelectOp>(op)) {
    edges.push_back({select.getTrueValue(), select.getResult()});
    edges.push_back({select.getFalseValue(), select.getResult()});
    return success();
  }
  // A mask's results are what its masked op yields.
  if (isa<vector::MaskingOpInterface>(op) && op->getNumRegions() == 1 &&
      !op->getRegion(0).empty()) {
    Operation *yield = op->getRegion(0).front().getTerminator();
    if (yield && yield->getNumOperands() == op->getNumResults()) {
      for (auto [yielded, result] :
           llvm::zip(yield->getOperands(), op->getResults()))
        if (isBufferType(result.getType()))
          edges.push_back({yielded, result});
      return success();
    }
  }
  // Destination-style results share the buffer of their init.
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op)) {
    for (Value result : results)
      edges.push_back(
          {dps.getTiedOpOperand(cast<OpResult>(result))->get(), result});
    return success();
  }
  // Values forwarded by region terminators (scf.if/for/while results).
  if (isa<RegionBranchOpInterface>(op)) {
    llvm::append_range(needIncoming, results);
    return success();
  }
  return op->emitError("memplan cannot analyse '")
         << op->getName()
         << "': it produces a tensor or memref and memplan does not know "
            "whether it allocates a new buffer or aliases an operand";
}

LogicalResult LifetimeBuilder::addForwarding(Operation *op, ValueRange operands,
                                             ValueRange inputs) {
  bool anyBuffer = llvm::any_of(inputs.getTypes(), isBufferType);
  if (operands.size() != inputs.size()) {
    if (!anyBuffer)
      return success();
    return op->emitError("memplan cannot match the ")
           << operands.size() << " values forwarded by '" << op->getName()
           << "' to " << inputs.size() << " successor inputs";
  }
  for (auto [operand, input] : llvm::zip(operands, inputs)) {
    if (!isBufferType(input.getType()))
      continue;
    if (!ids.count(operand) || !ids.count(input))
      return op->emitError("memplan cannot follow a tensor or memref "
                           "forwarded by '")
             << op->getName() << "'";
    edges.push_back({operand, input});
    hasIncoming.insert(input);
  }
  return success();
}

LogicalResult LifetimeBuilder::addBranchEdges(RegionBranchOpInterface branch) {
  SmallVector<RegionSuccessor> successors;
  branch.getSuccessorRegions(RegionBranchPoint::parent(), successors);
  for (RegionSuccessor &successor : successors)
    if (failed(addForwarding(branch,
                             branch.getEntrySuccessorOperands(successor),
                             successor.getSuccessorInputs())))
      return failure();
  for (Region &region : branch->getRegions()) {
    for (Block &block : region) {
      for (BlockArgument arg : block.getArguments())
        if (isBufferType(arg.getType()))
          needIncoming.push_back(arg);
      auto terminator = dyn_cast_or_null<RegionBranchTerminatorOpInterface>(
          block.empty() ? nullptr : &block.back());
      if (!terminator)
        continue;
      successors.clear();
      branch.getSuccessorRegions(RegionBranchPoint(terminator), successors);
      for (RegionSuccessor &successor : successors)
        if (failed(addForwarding(terminator,
                                 terminator.getSuccessorOperands(successor),
                                 successor.getSuccessorInputs())))
          return failure();
    }
  }
  return success();
}

int64_t LifetimeBuilder::defStep(Value value) const {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Block *block = arg.getOwner();
    if (block->getParentOp() != func.getOperation())
      return out.getStep(block->getParentOp());
    // Arguments of the entry block are live from step 0, those of another
    // block from its first step.
    return block->isEntryBlock() ? 0 : blockSteps.lookup(block).first;
  }
  // Results of a region op exist once it finishes: at its last nested step.
  Operation *def = value.getDefiningOp();
  if (isa<RegionBranchOpInterface>(def) || isControlRegionOp(def))
    return out.getLastNestedStep(def);
  return out.getStep(def);
}

int64_t LifetimeBuilder::useStep(Value value, Operation *user) const {
  // The stepped op that holds the use (payload uses count at their op).
  Operation *stepped = user;
  while (stepped && !isStepped(stepped))
    stepped = stepped->getParentOp();
  assert(stepped && "use outside the analysed function");
  // The outermost region op that contains the use but not the definition.
  Operation *scope = value.getParentRegion()->getParentOp();
  Operation *outermost = nullptr;
  for (Operation *p = stepped->getParentOp(); p && p != func.getOperation();
       p = p->getParentOp()) {
    if (p->isAncestor(scope))
      break;
    outermost = p;
  }
  return outermost ? out.getLastNestedStep(outermost) : out.getStep(stepped);
}

LogicalResult LifetimeBuilder::checkLoopCarried(ArrayRef<unsigned> members) {
  // Loops whose iteration arguments or results share this class.
  SmallVector<Operation *> loops;
  for (unsigned id : members) {
    Value value = values[id];
    Operation *owner =
        isa<BlockArgument>(value)
            ? cast<BlockArgument>(value).getOwner()->getParentOp()
            : value.getDefiningOp();
    auto branch = dyn_cast_or_null<RegionBranchOpInterface>(owner);
    if (branch && owner != func.getOperation() && branch.hasLoop())
      loops.push_back(owner);
  }
  if (loops.empty())
    return success();
  for (unsigned id : members) {
    auto kind = rootKind.find(id);
    if (kind == rootKind.end() ||
        (kind->second != RootKind::Allocated &&
         kind->second != RootKind::Placed) ||
        isReturnedRoot(id))
      continue;
    Operation *def = values[id].getDefiningOp();
    for (Operation *loop : loops)
      if (loop->isProperAncestor(def)) {
        InFlightDiagnostic diag = def->emitError(
            "buffer allocated inside a loop is carried across iterations; "
            "memplan cannot plan loop-carried allocations");
        diag.attachNote(loop->getLoc()) << "carried by this loop";
        return diag;
      }
  }
  return success();
}

LogicalResult LifetimeBuilder::addCFGEdges(Operation *terminator) {
  if (terminator->getNumSuccessors() == 0)
    return success();
  auto branch = dyn_cast<BranchOpInterface>(terminator);
  for (auto [index, successor] : llvm::enumerate(terminator->getSuccessors())) {
    ValueRange inputs = successor->getArguments();
    if (!branch) {
      if (llvm::any_of(inputs.getTypes(), isBufferType))
        return terminator->emitError("memplan cannot follow the tensors or "
                                     "memrefs passed to a successor by '")
               << terminator->getName()
               << "': it does not implement BranchOpInterface";
      continue;
    }
    SuccessorOperands operands = branch.getSuccessorOperands(index);
    // Arguments the terminator produces itself are new values, not buffers
    // forwarded from the block.
    unsigned produced = operands.getProducedOperandCount();
    if (llvm::any_of(inputs.take_front(produced).getTypes(), isBufferType))
      return terminator->emitError("memplan cannot analyse a tensor or memref "
                                   "produced by the terminator '")
             << terminator->getName() << "' for its successor";
    if (failed(addForwarding(terminator, operands.getForwardedOperands(),
                             inputs.drop_front(produced))))
      return failure();
  }
  return success();
}

Operation *LifetimeBuilder::getTopLevelAncestor(Operation *op) const {
  Region &body = func.getFunctionBody();
  return body.findAncestorOpInRegion(*op);
}

void LifetimeBuilder::extendByBlockLiveness(
    const Liveness &liveness, MutableArrayRef<Interval> valueLive) {
  // A value live into (out of) a block is live at its first (last) step:
  // around a loop of blocks, that covers every block of the loop whatever
  // their order in the region.
  for (Block &block : func.getFunctionBody()) {
    auto [first, last] = blockSteps.lookup(&block);
    auto extend = [&](const Liveness::ValueSetT &set, int64_t step) {
      for (Value value : set) {
        auto it = ids.find(value);
        if (it == ids.end())
          continue;
        Interval &live = valueLive[it->second];
        live.start = std::min(live.start, step);
        live.end = std::max(live.end, step + 1);
      }
    };
    extend(liveness.getLiveIn(&block), first);
    extend(liveness.getLiveOut(&block), last);
  }
}

bool LifetimeBuilder::isLiveAcross(const Liveness &liveness, Value value,
                                   Operation *alloc) {
  // Compared by steps, which follow program order within a block of the
  // body, nested ops included; a use in another branch of a region op after
  // the allocation counts as after it (conservative).
  Block *block = getTopLevelAncestor(alloc)->getBlock();
  int64_t at = out.getStep(alloc);
  // Live just before the allocation: live into its block of the body, or
  // defined in that block before it (nested definitions included).
  bool before = liveness.getLiveIn(block).contains(value);
  if (!before) {
    Operation *owner = isa<BlockArgument>(value)
                           ? value.getParentRegion()->getParentOp()
                           : value.getDefiningOp();
    bool inBlock = owner == func.getOperation()
                       ? cast<BlockArgument>(value).getOwner() == block
                       : getTopLevelAncestor(owner)->getBlock() == block;
    before =
        inBlock && defStep(value) <= at && !(value.getDefiningOp() == alloc);
  }
  if (!before)
    return false;
  // Still needed after it: live out of the block, or used later in it.
  if (liveness.getLiveOut(block).contains(value))
    return true;
  for (Operation *user : value.getUsers()) {
    if (isa<memref::DeallocOp>(user))
      continue;
    if (getTopLevelAncestor(user)->getBlock() == block &&
        useStep(value, user) > at)
      return true;
  }
  return false;
}

LogicalResult LifetimeBuilder::checkCFGLoopCarried(const Liveness &liveness) {
  // Values each value's buffer may flow to.
  DenseMap<unsigned, SmallVector<unsigned, 2>> successors;
  for (auto [source, target] : edges)
    successors[ids.lookup(source)].push_back(ids.lookup(target));
  for (auto [id, kind] : rootKind) {
    if ((kind != RootKind::Allocated && kind != RootKind::Placed) ||
        isReturnedRoot(id))
      continue;
    // A tensor is given no slot at tensor level: whether its buffer can be
    // planned is decided after bufferization, where memplan-double-buffer
    // gives a buffer carried around a loop of blocks two slots when that
    // suffices and this check rejects the buffers it leaves.
    if (isa<TensorType>(values[id].getType()))
      continue;
    Operation *def = values[id].getDefiningOp();
    // Every value that may hold this root's buffer: if one of them is still
    // live when the root is created again, an earlier instance of the buffer
    // is (a cycle of blocks carries it), and one static slot cannot hold
    // both.
    SmallVector<unsigned> work{id};
    DenseSet<unsigned> seen{id};
    while (!work.empty()) {
      unsigned current = work.pop_back_val();
      Value value = values[current];
      if (current != id && isLiveAcross(liveness, value, def)) {
        InFlightDiagnostic diag = def->emitError(
            "buffer allocated inside a loop of blocks is carried across "
            "iterations; memplan cannot plan loop-carried allocations");
        diag.attachNote(value.getLoc())
            << "an earlier instance is still live here";
        return diag;
      }
      for (unsigned next : successors.lookup(current))
        if (seen.insert(next).second)
          work.push_back(next);
    }
  }
  return success();
}

LogicalResult LifetimeBuilder::checkShape(Location loc, Type type) const {
  auto shaped = cast<ShapedType>(type);
  if (allowDynamicShapes && shaped.hasRank())
    return success();
  return checkStaticShape(loc, type);
}

LogicalResult LifetimeBuilder::run() {
  Region &body = func.getFunctionBody();
  if (body.empty())
    return success();

  // Steps: the blocks of the body in their order, each in program order.
  int64_t next = 0;
  for (Block &block : body) {
    if (block.empty())
      return func.emitError("memplan cannot analyse a block without a "
                            "terminator");
    int64_t first = next;
    if (failed(numberSteps(block, next)))
      return failure();
    blockSteps[&block] = {first, out.getStep(&block.back())};
  }
  out.numSteps = next;

  // Classify every tensor/memref value in program order.
  for (BlockArgument arg : body.getArguments()) {
    if (failed(addValue(arg, arg.getLoc())))
      return failure();
    if (isBufferType(arg.getType()))
      markRoot(arg, RootKind::Argument);
  }
  // Arguments of the other blocks are forwarded by their predecessors.
  for (Block &block : llvm::drop_begin(body))
    for (BlockArgument arg : block.getArguments()) {
      if (failed(addValue(arg, arg.getLoc())))
        return failure();
      if (isBufferType(arg.getType()))
        needIncoming.push_back(arg);
    }
  for (Operation *op : steppedOps) {
    if (failed(classifyResults(op)))
      return failure();
    if (isa<RegionBranchOpInterface>(op) || isControlRegionOp(op)) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments()) {
            if (failed(addValue(arg, arg.getLoc())))
              return failure();
            // Nothing says where a buffer argument of a control region
            // comes from.
            if (!isa<RegionBranchOpInterface>(op) &&
                isBufferType(arg.getType()))
              needIncoming.push_back(arg);
          }
    }
  }
  for (Operation *op : steppedOps)
    if (auto branch = dyn_cast<RegionBranchOpInterface>(op))
      if (failed(addBranchEdges(branch)))
        return failure();
  for (Block &block : body)
    if (failed(addCFGEdges(&block.back())))
      return failure();
  for (Value value : needIncoming)
    if (!hasIncoming.count(value)) {
      if (auto arg = dyn_cast<BlockArgument>(value);
          arg && arg.getOwner()->getParent() == &body)
        return emitError(arg.getLoc(),
                         "memplan cannot tell where the buffer of this block "
                         "argument comes from: no predecessor forwards it");
      Operation *owner =
          isa<BlockArgument>(value)
              ? cast<BlockArgument>(value).getOwner()->getParentOp()
              : value.getDefiningOp();
      return owner->emitError("memplan cannot tell where the buffer of a "
                              "tensor or memref of '")
             << owner->getName() << "' comes from";
    }
  for (auto [source, target] : edges) {
    if (!ids.count(source))
      return target.getDefiningOp()->emitError(
          "memplan cannot follow the aliased operand of this op");
    unite(source, target);
  }

  // Group values by class.
  DenseMap<unsigned, unsigned> classIndex;
  SmallVector<SmallVector<unsigned>> classes;
  for (unsigned id = 0, e = values.size(); id < e; ++id) {
    auto [it, inserted] = classIndex.try_emplace(find(id), classes.size());
    if (inserted)
      classes.emplace_back();
    classes[it->second].push_back(id);
  }

  // Each value lives from its definition to its last use; in a function of
  // several blocks, also wherever the CFG's liveness says it is live.
  SmallVector<Interval> valueLive(values.size());
  for (unsigned id = 0, e = values.size(); id < e; ++id) {
    Value value = values[id];
    int64_t d = defStep(value), last = d;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (isa<memref::DeallocOp>(user))
        continue; // the plan decides when memory is free
      if (user->getParentRegion() == &body &&
          user->hasTrait<OpTrait::ReturnLike>())
        returnedClasses.insert(find(id));
      last = std::max(last, useStep(value, user));
    }
    valueLive[id] = {d, last + 1};
  }
  if (!body.hasOneBlock()) {
    Liveness liveness(func.getOperation());
    extendByBlockLiveness(liveness, valueLive);
    if (failed(checkCFGLoopCarried(liveness)))
      return failure();
  }

  // Each class lives on the hull of its members' intervals.
  SmallVector<Interval> classLive(classes.size());
  for (auto [index, members] : llvm::enumerate(classes)) {
    if (failed(checkLoopCarried(members)))
      return failure();
    int64_t start = INT64_MAX, end = 0;
    for (unsigned id : members) {
      out.classOf[values[id]] = index;
      start = std::min(start, valueLive[id].start);
      end = std::max(end, valueLive[id].end);
    }
    classLive[index] = {start, end};
  }

  // Roots in value order: arguments first, then program order.
  out.classRoots.resize(classes.size());
  for (unsigned id = 0, e = values.size(); id < e; ++id) {
    auto kind = rootKind.find(id);
    if (kind == rootKind.end())
      continue;
    unsigned index = classIndex.lookup(find(id));
    Root root;
    root.value = values[id];
    root.kind = kind->second;
    root.live = classLive[index];
    root.returned = returnedClasses.count(find(id));
    auto shaped = cast<ShapedType>(root.value.getType());
    if (auto view = root.value.getDefiningOp<ViewOp>())
      root.size = view.getPlacement().getSize();
    else if (root.kind == RootKind::Placed || root.kind == RootKind::Allocated)
      root.dynamicSize = !shaped.hasStaticShape();
    if (root.kind == RootKind::Placed || root.kind == RootKind::Allocated) {
      if (!root.dynamicSize && !root.value.getDefiningOp<ViewOp>())
        root.size = *getStaticStorageBytes(shaped, layout);
    } else
      root.size =
          getStaticStorageBytes(cast<ShapedType>(root.value.getType()), layout)
              .value_or(0);
    out.classRoots[index].push_back(out.roots.size());
    out.roots.push_back(root);
  }
  // Every chain of aliases ends at a root or an argument.
  for (auto &rootsOfClass : out.classRoots)
    if (rootsOfClass.empty())
      return func.emitError("memplan internal error: a buffer without a root");
  return success();
}

FailureOr<FunctionLifetimes>
FunctionLifetimes::analyze(FunctionOpInterface func, bool allowDynamicShapes) {
  FunctionLifetimes result;
  if (failed(LifetimeBuilder(func, result, allowDynamicShapes).run()))
    return failure();
  return result;
}

FailureOr<bool> mlir::memplan::attemptWithFallback(
    FunctionOpInterface func, bool strict,
    llvm::function_ref<LogicalResult()> attempt) {
  if (strict)
    return failed(attempt()) ? FailureOr<bool>(failure())
                             : FailureOr<bool>(true);
  // Hold the attempt's errors back; the first becomes the warning.
  SmallVector<Diagnostic> errors;
  LogicalResult result = failure();
  {
    ScopedDiagnosticHandler hold(func.getContext(), [&](Diagnostic &diag) {
      if (diag.getSeverity() != DiagnosticSeverity::Error)
        return failure(); // not ours to hold: pass it on
      errors.push_back(std::move(diag));
      return success();
    });
    result = attempt();
  }
  if (succeeded(result))
    return true;
  std::string why = errors.empty() ? std::string("the lifetime analysis failed")
                                   : errors.front().str();
  Location loc = errors.empty() ? func.getLoc() : errors.front().getLocation();
  InFlightDiagnostic warning = emitWarning(loc)
                               << "memplan leaves @" << func.getName()
                               << " unplanned: " << why;
  if (!errors.empty())
    for (Diagnostic &note : errors.front().getNotes())
      warning.attachNote(note.getLocation()) << note.str();
  MemplanDialect::UnplannedAttrHelper(func.getContext())
      .setAttr(func, StringAttr::get(func.getContext(), why));
  return false;
}

FailureOr<std::optional<FunctionLifetimes>>
mlir::memplan::analyzeForPlanning(FunctionOpInterface func, bool strict,
                                  bool allowDynamicShapes) {
  if (isUnplannedFunction(func))
    return std::optional<FunctionLifetimes>();
  FailureOr<FunctionLifetimes> lifetimes = failure();
  FailureOr<bool> analysed = attemptWithFallback(func, strict, [&] {
    lifetimes = FunctionLifetimes::analyze(func, allowDynamicShapes);
    return failed(lifetimes) ? failure() : success();
  });
  if (failed(analysed))
    return failure();
  if (!*analysed)
    return std::optional<FunctionLifetimes>();
  return std::optional<FunctionLifetimes>(std::move(*lifetimes));
}
