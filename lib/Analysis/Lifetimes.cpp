//===- Lifetimes.cpp - Buffer lifetimes of a function ---------------------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Analysis/Lifetimes.h"
#include "memplan/IR/MemplanOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::memplan;

static bool isBufferType(Type type) {
  return isa<TensorType, BaseMemRefType>(type);
}

/// Ranked and static, or a located error.
static LogicalResult checkStaticShape(Location loc, Type type) {
  auto shaped = cast<ShapedType>(type);
  if (!shaped.hasRank())
    return emitError(loc) << "unranked type " << type
                          << " is not supported: memplan plans static shapes";
  if (!shaped.hasStaticShape())
    return emitError(loc) << "dynamic shape " << type
                          << " is not supported: memplan plans static shapes";
  return success();
}

FailureOr<uint64_t> mlir::memplan::getCheckedStorageBytes(Location loc,
                                                          Type type) {
  if (failed(checkStaticShape(loc, type)))
    return failure();
  auto shaped = cast<ShapedType>(type);
  if (!getElementStorageBytes(shaped.getElementType()))
    return emitError(loc) << "element type " << shaped.getElementType()
                          << " of " << type << " has no fixed bit width";
  std::optional<uint64_t> bytes = getStaticStorageBytes(shaped);
  if (!bytes)
    return emitError(loc) << "the size of " << type << " overflows 64 bits";
  return *bytes;
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
  LifetimeBuilder(FunctionOpInterface func, FunctionLifetimes &out)
      : func(func), out(out) {}

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

  mutable FunctionOpInterface func;
  FunctionLifetimes &out;
  SmallVector<Operation *> steppedOps;
  // Every analysed tensor/memref value, its id and union-find parent.
  SmallVector<Value> values;
  DenseMap<Value, unsigned> ids;
  SmallVector<unsigned> parent;
  DenseMap<unsigned, RootKind> rootKind;
  SmallVector<std::pair<Value, Value>> edges;
  // Region-branch results and region arguments must be reached by an edge.
  SmallVector<Value> needIncoming;
  DenseSet<Value> hasIncoming;
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
    if (!isa<RegionBranchOpInterface>(op)) {
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
      failed(checkStaticShape(loc, value.getType())))
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
  if (isa<ViewOp>(op))
    return markAll(RootKind::Placed);
  // New buffers.
  if (isa<memref::AllocOp, memref::ReallocOp, bufferization::AllocTensorOp,
          bufferization::CloneOp, tensor::EmptyOp, tensor::SplatOp,
          tensor::FromElementsOp, tensor::GenerateOp, tensor::PadOp,
          tensor::ConcatOp>(op) ||
      (op->hasTrait<OpTrait::Elementwise>() &&
       llvm::all_of(op->getResultTypes(),
                    [](Type t) { return isa<TensorType>(t); }))) {
    for (Value result : results)
      if (failed(getCheckedStorageBytes(op->getLoc(), result.getType())))
        return failure();
    return markAll(RootKind::Allocated);
  }
  // Aliases of one operand.
  if (Value source = getAliasedSource(op)) {
    for (Value result : results)
      edges.push_back({source, result});
    return success();
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
    Operation *owner = arg.getOwner()->getParentOp();
    return owner == func.getOperation() ? 0 : out.getStep(owner);
  }
  // Results of a region op exist once it finishes: at its last nested step.
  Operation *def = value.getDefiningOp();
  if (isa<RegionBranchOpInterface>(def))
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
    if (kind == rootKind.end() || (kind->second != RootKind::Allocated &&
                                   kind->second != RootKind::Placed))
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

LogicalResult LifetimeBuilder::run() {
  Region &body = func.getFunctionBody();
  if (body.empty())
    return success();
  if (!body.hasOneBlock())
    return func.emitError("function has ")
           << llvm::range_size(body.getBlocks())
           << " blocks; memplan supports single-block functions only";

  int64_t next = 0;
  if (failed(numberSteps(body.front(), next)))
    return failure();
  out.numSteps = next;

  // Classify every tensor/memref value in program order.
  for (BlockArgument arg : body.getArguments()) {
    if (failed(addValue(arg, arg.getLoc())))
      return failure();
    if (isBufferType(arg.getType()))
      markRoot(arg, RootKind::Argument);
  }
  for (Operation *op : steppedOps) {
    if (failed(classifyResults(op)))
      return failure();
    if (auto branch = dyn_cast<RegionBranchOpInterface>(op)) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (failed(addValue(arg, arg.getLoc())))
              return failure();
    }
  }
  for (Operation *op : steppedOps)
    if (auto branch = dyn_cast<RegionBranchOpInterface>(op))
      if (failed(addBranchEdges(branch)))
        return failure();
  for (Value value : needIncoming)
    if (!hasIncoming.count(value)) {
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

  // Each class lives on the hull of its members' definitions and uses.
  Operation *returnOp = body.front().getTerminator();
  SmallVector<Interval> classLive(classes.size());
  SmallVector<bool> classReturned(classes.size(), false);
  for (auto [index, members] : llvm::enumerate(classes)) {
    if (failed(checkLoopCarried(members)))
      return failure();
    int64_t start = INT64_MAX, last = -1;
    for (unsigned id : members) {
      Value value = values[id];
      out.classOf[value] = index;
      int64_t d = defStep(value);
      start = std::min(start, d);
      last = std::max(last, d);
      for (OpOperand &use : value.getUses()) {
        Operation *user = use.getOwner();
        if (isa<memref::DeallocOp>(user))
          continue; // the plan decides when memory is free
        if (user == returnOp)
          classReturned[index] = true;
        last = std::max(last, useStep(value, user));
      }
    }
    classLive[index] = {start, last + 1};
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
    root.returned = classReturned[index];
    if (root.kind == RootKind::Placed)
      root.size =
          cast<ViewOp>(root.value.getDefiningOp()).getPlacement().getSize();
    else if (root.kind == RootKind::Allocated)
      root.size =
          *getStaticStorageBytes(cast<ShapedType>(root.value.getType()));
    else
      root.size = getStaticStorageBytes(cast<ShapedType>(root.value.getType()))
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
FunctionLifetimes::analyze(FunctionOpInterface func) {
  FunctionLifetimes result;
  if (failed(LifetimeBuilder(func, result).run()))
    return failure();
  return result;
}

FailureOr<std::optional<FunctionLifetimes>>
mlir::memplan::analyzeForPlanning(FunctionOpInterface func, bool strict) {
  if (isUnplannedFunction(func))
    return std::optional<FunctionLifetimes>();
  if (strict) {
    FailureOr<FunctionLifetimes> lifetimes = FunctionLifetimes::analyze(func);
    if (failed(lifetimes))
      return failure();
    return std::optional<FunctionLifetimes>(std::move(*lifetimes));
  }
  // Hold the analysis' errors back; the first becomes the warning.
  SmallVector<Diagnostic> errors;
  FailureOr<FunctionLifetimes> lifetimes = failure();
  {
    ScopedDiagnosticHandler hold(func.getContext(), [&](Diagnostic &diag) {
      if (diag.getSeverity() != DiagnosticSeverity::Error)
        return failure(); // not ours to hold: pass it on
      errors.push_back(std::move(diag));
      return success();
    });
    lifetimes = FunctionLifetimes::analyze(func);
  }
  if (succeeded(lifetimes))
    return std::optional<FunctionLifetimes>(std::move(*lifetimes));
  std::string why = errors.empty() ? std::string("the lifetime analysis failed")
                                   : errors.front().str();
  Location loc = errors.empty() ? func.getLoc() : errors.front().getLocation();
  InFlightDiagnostic warning = emitWarning(loc)
                               << "memplan leaves @" << func.getName()
                               << " unplanned: " << why;
  if (!errors.empty())
    for (Diagnostic &note : errors.front().getNotes())
      warning.attachNote(note.getLocation()) << note.str();
  func->setAttr(MemplanDialect::getUnplannedAttrName(),
                StringAttr::get(func.getContext(), why));
  return std::optional<FunctionLifetimes>();
}
