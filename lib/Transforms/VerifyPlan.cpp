//===- VerifyPlan.cpp - Check a packed plan independently -----------------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "PlanProof.h"

#include "memplan/Analysis/Lifetimes.h"
#include "memplan/Analysis/SymbolicSizes.h"
#include "memplan/IR/MemplanOps.h"
#include "memplan/Planning/Packing.h"
#include "memplan/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/CheckedArithmetic.h"

namespace mlir {
namespace memplan {
#define GEN_PASS_DEF_VERIFYPLANPASS
#include "memplan/Transforms/Passes.h.inc"
} // namespace memplan
} // namespace mlir

using namespace mlir;
using namespace mlir::memplan;

namespace {
/// The views of one arena with their bytes at some sizes: the checked unit.
struct PlacedViews {
  std::vector<PackItem> items;
  std::vector<uint64_t> offsets;
  SmallVector<Operation *> views;

  /// A located error on the later of two views that overlap in time and
  /// share a byte, with a note on the other; success when none do. `where`
  /// prefixes the message ("at B=64: ").
  LogicalResult check(StringRef where) const {
    auto clash = findPackingClash(items, offsets);
    if (!clash)
      return success();
    auto [first, second] = *clash;
    InFlightDiagnostic diag =
        views[second]->emitError(where)
        << "buffers overlap in time and share bytes: [" << offsets[second]
        << ", " << offsets[second] + items[second].size << ") live on ["
        << items[second].live.start << ", " << items[second].live.end << ")";
    diag.attachNote(views[first]->getLoc())
        << "clashes with this buffer: [" << offsets[first] << ", "
        << offsets[first] + items[first].size << ") live on ["
        << items[first].live.start << ", " << items[first].live.end << ")";
    return diag;
  }
};

struct VerifyPlanPass
    : public memplan::impl::VerifyPlanPassBase<VerifyPlanPass> {
  using Base::Base;

  void runOnOperation() override {
    WalkResult walk = getOperation()->walk([&](FunctionOpInterface func) {
      if (func.isExternal() || isHostFunction(func) ||
          isUnplannedFunction(func) || succeeded(verifyFunction(func)))
        return WalkResult::advance();
      return WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
    markAllAnalysesPreserved();
  }

  /// A view's offset is a multiple of its alignment from the arena's
  /// start: the address is that well aligned only if the arena is too.
  static LogicalResult checkAlignment(Operation *view, int64_t alignment,
                                      ArenaOp arena) {
    if (alignment <= static_cast<int64_t>(arena.getAlignment()))
      return success();
    return view->emitError("view aligned to ")
           << alignment << " bytes in an arena aligned to "
           << arena.getAlignment()
           << ": its address is not guaranteed to be aligned";
  }

  LogicalResult verifySampled(FunctionOpInterface func,
                              ArrayRef<ArenaOp> arenas,
                              const FunctionLifetimes &lifetimes);

  LogicalResult verifyFunction(FunctionOpInterface func) {
    // At most one arena per memory space.
    SmallVector<ArenaOp> arenas;
    DenseMap<Attribute, ArenaOp> arenaOfSpace;
    WalkResult walk = func.walk([&](ArenaOp op) {
      auto [it, inserted] =
          arenaOfSpace.try_emplace(op.getType().getMemorySpace(), op);
      if (!inserted) {
        InFlightDiagnostic diag =
            op.emitError("second memplan.arena in the same memory space; "
                         "memplan plans one per function and memory space");
        diag.attachNote(it->second.getLoc()) << "the first one";
        return WalkResult::interrupt();
      }
      arenas.push_back(op);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    if (IntegerAttr budget =
            MemplanDialect::BudgetAttrHelper(func.getContext()).getAttr(func))
      for (ArenaOp arena : arenas)
        if (!arena.isDynamic() && arena.getSizeInBytes() > budget.getInt())
          return arena.emitError("arena of ")
                 << arena.getSizeInBytes() << " bytes exceeds the budget of "
                 << budget.getInt() << " bytes";
    FailureOr<FunctionLifetimes> lifetimes =
        FunctionLifetimes::analyze(func, /*allowDynamicShapes=*/true);
    if (failed(lifetimes))
      return failure();
    // A view stored into memory as data outlives what the lifetimes see: a
    // later load (here or in the caller) may read it after the arena is
    // gone.
    WalkResult stored = func.walk([&](Operation *op) {
      Value value = getMemRefStoredAsData(op);
      if (!value)
        return WalkResult::advance();
      for (const Root *root : lifetimes->getRootsOf(value))
        if (Operation *def = root->value.getDefiningOp();
            def && isa<ViewOp, DynamicViewOp>(def)) {
          InFlightDiagnostic diag = op->emitError(
              "view escapes its function: a buffer in the arena is stored "
              "into memory");
          diag.attachNote(def->getLoc()) << "the view";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (stored.wasInterrupted())
      return failure();
    bool dynamic =
        llvm::any_of(arenas, [](ArenaOp a) { return a.isDynamic(); });
    func.walk([&](DynamicViewOp) { dynamic = true; });
    if (dynamic)
      return verifySampled(func, arenas, *lifetimes);

    // The views of each arena, checked against each other.
    SmallVector<PlacedViews> placed(arenas.size());
    for (const Root &root : lifetimes->getRoots()) {
      auto view = root.value.getDefiningOp<ViewOp>();
      if (!view)
        continue;
      auto *arena = llvm::find_if(
          arenas, [&](ArenaOp a) { return view.getArena() == a.getResult(); });
      if (arena == arenas.end())
        return view.emitError(
            "view does not take one of its function's memplan.arenas");
      if (root.returned)
        return view.emitError("view escapes its function: a buffer in the "
                              "arena is returned");
      if (failed(checkAlignment(view, getViewAlignment(view), *arena)))
        return failure();
      PlacementAttr placement = view.getPlacement();
      uint64_t offset = placement.getOffset(), size = placement.getSize();
      uint64_t arenaBytes = arena->getSizeInBytes();
      if (offset + size > arenaBytes)
        return view.emitError("view [")
               << offset << ", " << offset + size << ") ends past its arena of "
               << arenaBytes << " bytes";
      PlacedViews &group = placed[arena - arenas.begin()];
      group.items.push_back(
          {root.live, size, static_cast<uint64_t>(placement.getAlignment())});
      group.offsets.push_back(offset);
      group.views.push_back(view);
    }
    for (const PlacedViews &group : placed)
      if (failed(group.check("")))
        return failure();
    if (remarks && !arenas.empty())
      emitRemark(func.getLoc())
          << "memplan-verify-plan: @" << func.getName()
          << ": static offsets, checked exactly for every pair of buffers";
    return success();
  }
};
} // namespace

namespace {
/// Evaluates index values of a function at given symbol values: constants,
/// `arith` integer ops, `affine.apply`, and the dimensions of arguments,
/// allocations and views. Iterative (an explicit stack), memoized.
class SampleEvaluator {
public:
  SampleEvaluator(const SymbolicSizes &sizes, ArrayRef<uint64_t> values)
      : sizes(sizes), values(values) {}

  /// The value of `root`; std::nullopt when it cannot be computed at these
  /// symbol values (overflow, a negative size, division by zero). Sets
  /// `unsupported` to the op it cannot evaluate at all.
  std::optional<int64_t> evaluate(Value root) {
    undefined = false;
    SmallVector<Value> stack{root};
    while (!stack.empty() && !unsupported && !undefined) {
      Value v = stack.back();
      if (memo.count(v)) {
        stack.pop_back();
        continue;
      }
      SmallVector<Value> needed;
      std::optional<int64_t> result = step(v, needed);
      if (unsupported || undefined)
        break;
      if (!needed.empty()) {
        llvm::append_range(stack, needed);
        continue;
      }
      memo[v] = *result;
      stack.pop_back();
    }
    if (unsupported || undefined)
      return std::nullopt;
    return memo.lookup(root);
  }

  /// The bytes of a shaped value's storage, from its dimensions;
  /// std::nullopt when a dimension is undefined or negative (an allocation
  /// that cannot run at these sizes) or the product overflows.
  std::optional<int64_t> bytesOf(Value shaped, uint64_t elementBytes) {
    auto type = cast<ShapedType>(shaped.getType());
    int64_t bytes = static_cast<int64_t>(elementBytes);
    for (int64_t d = 0; d < type.getRank(); ++d) {
      std::optional<int64_t> dim = dimOf(shaped, d);
      if (unsupported || !dim || *dim < 0)
        return std::nullopt;
      std::optional<int64_t> product = llvm::checkedMul(bytes, *dim);
      if (!product)
        return std::nullopt;
      bytes = *product;
    }
    return bytes;
  }

  Operation *unsupported = nullptr;
  bool undefined = false;

private:
  /// Dimension `d` of `shaped`, evaluating what it needs.
  std::optional<int64_t> dimOf(Value shaped, int64_t d) {
    knownDim.reset();
    Value size = dimSource(shaped, d);
    if (unsupported)
      return std::nullopt;
    if (!size) // static, or a symbol: already known
      return knownDim;
    return evaluate(size);
  }

  /// The index value dimension `d` of `shaped` is, or null with knownDim
  /// set (a static dimension or a symbol). Follows casts.
  std::optional<int64_t> knownDim;
  unsigned productDepth = 0;
  Value dimSource(Value shaped, int64_t d) {
    DimensionSource source = traceDimension(shaped, d, sizes);
    switch (source.kind) {
    case DimensionSource::Static:
      knownDim = source.value;
      return Value();
    case DimensionSource::Symbol:
      knownDim = static_cast<int64_t>(values[source.value]);
      return Value();
    case DimensionSource::Index:
      return source.index;
    case DimensionSource::Product: {
      if (productDepth >= kMaxProductDepth) {
        unsupported = source.index.getDefiningOp()
                          ? source.index.getDefiningOp()
                          : shaped.getDefiningOp();
        return Value();
      }
      ++productDepth;
      std::optional<int64_t> product = 1;
      for (int64_t sd : source.dims) {
        std::optional<int64_t> size = dimOf(source.index, sd);
        product =
            size && product ? llvm::checkedMul(*product, *size) : std::nullopt;
        if (unsupported)
          break;
      }
      --productDepth;
      if (!unsupported && !product)
        undefined = true; // a factor undefined here, or an overflow
      knownDim = product;
      return Value();
    }
    case DimensionSource::Unknown:
      break;
    }
    unsupported = source.unknownAt;
    return Value();
  }

  /// One evaluation step: the value of `v`, or the values it needs first.
  std::optional<int64_t> step(Value v, SmallVectorImpl<Value> &needed) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      for (auto [k, symbol] : llvm::enumerate(sizes.getSymbols()))
        if (symbol.arg == arg && !symbol.dim)
          return static_cast<int64_t>(values[k]);
      unsupported = arg.getOwner()->getParentOp();
      return std::nullopt;
    }
    Operation *op = v.getDefiningOp();
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (auto i = dyn_cast<IntegerAttr>(constant.getValue()))
        return i.getType().isInteger(1) ? int64_t(i.getValue().getZExtValue())
                                        : i.getValue().getSExtValue();
      unsupported = op;
      return std::nullopt;
    }
    if (isa<memref::DimOp, tensor::DimOp>(op)) {
      std::optional<int64_t> index = operandValue(op->getOperand(1), needed);
      if (!index)
        return std::nullopt;
      auto type = cast<ShapedType>(op->getOperand(0).getType());
      if (*index < 0 || *index >= type.getRank()) {
        undefined = true;
        return std::nullopt;
      }
      knownDim.reset();
      Value size = dimSource(op->getOperand(0), *index);
      if (!size) {
        if (!knownDim && !unsupported)
          undefined = true;
        return knownDim;
      }
      return operandValue(size, needed);
    }
    // Every other supported op: its operands first.
    if (!isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivUIOp,
             arith::DivSIOp, arith::CeilDivUIOp, arith::CeilDivSIOp,
             arith::FloorDivSIOp, arith::RemUIOp, arith::RemSIOp,
             arith::MaxUIOp, arith::MaxSIOp, arith::MinUIOp, arith::MinSIOp,
             arith::AndIOp, arith::OrIOp, arith::SelectOp, arith::IndexCastOp,
             arith::IndexCastUIOp, arith::CmpIOp, affine::AffineApplyOp>(op)) {
      unsupported = op;
      return std::nullopt;
    }
    // Index and i64 values (i1 for comparisons) only: narrower integers
    // would need their own wrap-around.
    auto known = [](Type t) {
      return t.isIndex() || t.isSignlessInteger(64) || t.isSignlessInteger(1);
    };
    if (!llvm::all_of(op->getOperandTypes(), known) ||
        !llvm::all_of(op->getResultTypes(), known)) {
      unsupported = op;
      return std::nullopt;
    }
    SmallVector<int64_t> args;
    for (Value operand : op->getOperands())
      if (std::optional<int64_t> a = operandValue(operand, needed))
        args.push_back(*a);
    if (!needed.empty())
      return std::nullopt;
    auto fail = [&]() -> std::optional<int64_t> {
      undefined = true;
      return std::nullopt;
    };
    auto div = [&](int64_t a, int64_t b, bool ceil) -> std::optional<int64_t> {
      if (b == 0 || (a == INT64_MIN && b == -1))
        return fail();
      int64_t q = a / b;
      if (ceil && q * b != a && ((a < 0) == (b < 0)))
        ++q;
      return q;
    };
    auto checked = [&](std::optional<int64_t> r) { return r ? r : fail(); };
    if (isa<arith::AddIOp>(op))
      return checked(llvm::checkedAdd(args[0], args[1]));
    if (isa<arith::SubIOp>(op))
      return checked(llvm::checkedSub(args[0], args[1]));
    if (isa<arith::MulIOp>(op))
      return checked(llvm::checkedMul(args[0], args[1]));
    uint64_t ua = args.empty() ? 0 : static_cast<uint64_t>(args[0]);
    uint64_t ub = args.size() < 2 ? 0 : static_cast<uint64_t>(args[1]);
    if (isa<arith::DivUIOp, arith::CeilDivUIOp, arith::RemUIOp>(op)) {
      if (ub == 0)
        return fail();
      uint64_t q = ua / ub, r = ua % ub;
      if (isa<arith::RemUIOp>(op))
        return static_cast<int64_t>(r);
      return static_cast<int64_t>(q + (isa<arith::CeilDivUIOp>(op) && r));
    }
    if (isa<arith::DivSIOp>(op))
      return div(args[0], args[1], false);
    if (isa<arith::CeilDivSIOp>(op))
      return div(args[0], args[1], true);
    if (isa<arith::FloorDivSIOp>(op)) {
      std::optional<int64_t> q = div(args[0], args[1], false);
      if (q && *q * args[1] != args[0] && ((args[0] < 0) != (args[1] < 0)))
        --*q;
      return q;
    }
    if (isa<arith::RemSIOp>(op)) {
      if (args[1] == 0)
        return fail();
      if (args[1] == -1)
        return 0; // INT64_MIN % -1 would trap
      return args[0] % args[1];
    }
    if (isa<arith::MaxUIOp>(op))
      return static_cast<int64_t>(std::max<uint64_t>(args[0], args[1]));
    if (isa<arith::MaxSIOp>(op))
      return std::max(args[0], args[1]);
    if (isa<arith::MinUIOp>(op))
      return static_cast<int64_t>(std::min<uint64_t>(args[0], args[1]));
    if (isa<arith::MinSIOp>(op))
      return std::min(args[0], args[1]);
    if (isa<arith::AndIOp>(op))
      return args[0] & args[1];
    if (isa<arith::OrIOp>(op))
      return args[0] | args[1];
    if (isa<arith::SelectOp>(op))
      return args[0] ? args[1] : args[2];
    // Booleans (0/1) are conditions only: a cast of one is not evaluated.
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op) &&
        op->getOperand(0).getType().isInteger(1)) {
      unsupported = op;
      return std::nullopt;
    }
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op))
      return args[0];
    if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
      int64_t a = args[0], b = args[1];
      uint64_t ua = a, ub = b;
      switch (cmp.getPredicate()) {
      case arith::CmpIPredicate::eq:
        return a == b;
      case arith::CmpIPredicate::ne:
        return a != b;
      case arith::CmpIPredicate::slt:
        return a < b;
      case arith::CmpIPredicate::sle:
        return a <= b;
      case arith::CmpIPredicate::sgt:
        return a > b;
      case arith::CmpIPredicate::sge:
        return a >= b;
      case arith::CmpIPredicate::ult:
        return ua < ub;
      case arith::CmpIPredicate::ule:
        return ua <= ub;
      case arith::CmpIPredicate::ugt:
        return ua > ub;
      case arith::CmpIPredicate::uge:
        return ua >= ub;
      }
    }
    if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
      AffineMap map = apply.getAffineMap();
      // Dimensions become symbols after the map's own.
      SmallVector<AffineExpr> dims;
      for (unsigned i = 0; i < map.getNumDims(); ++i)
        dims.push_back(
            getAffineSymbolExpr(map.getNumSymbols() + i, op->getContext()));
      AffineExpr expr = map.getResult(0).replaceDims(dims);
      SmallVector<int64_t> operands(
          ArrayRef<int64_t>(args).drop_front(map.getNumDims()));
      llvm::append_range(operands,
                         ArrayRef<int64_t>(args).take_front(map.getNumDims()));
      std::optional<int64_t> r = evaluateAffineSymbols(expr, operands);
      return r ? r : fail();
    }
    unsupported = op;
    return std::nullopt;
  }

  std::optional<int64_t> operandValue(Value operand,
                                      SmallVectorImpl<Value> &needed) {
    auto it = memo.find(operand);
    if (it != memo.end())
      return it->second;
    needed.push_back(operand);
    return std::nullopt;
  }

  const SymbolicSizes &sizes;
  ArrayRef<uint64_t> values;
  DenseMap<Value, int64_t> memo;
};
} // namespace

LogicalResult
VerifyPlanPass::verifySampled(FunctionOpInterface func,
                              ArrayRef<ArenaOp> arenas,
                              const FunctionLifetimes &lifetimes) {
  FailureOr<SymbolicSizes> sizes = SymbolicSizes::create(func);
  if (failed(sizes))
    return failure();
  ArrayRef<SizeSymbol> symbols = sizes->getSymbols();
  // The sample points: the bounds, equal values from 0 up, and a few
  // pseudo-random ones (a fixed generator: the same points everywhere), each
  // symbol within its bound.
  auto clamp = [&](unsigned k, uint64_t v) {
    return symbols[k].bound ? std::min(v, *symbols[k].bound) : v;
  };
  std::vector<SmallVector<uint64_t>> points;
  auto addPoint = [&](SmallVector<uint64_t> p) {
    if (llvm::find(points, p) == points.end())
      points.push_back(std::move(p));
  };
  // The bounds (a symbol without one at the largest sample, 4096).
  if (llvm::any_of(symbols, [](const SizeSymbol &s) { return s.bound; })) {
    SmallVector<uint64_t> p;
    for (const SizeSymbol &s : symbols)
      p.push_back(s.bound.value_or(4096));
    addPoint(p);
  }
  for (uint64_t v : {0, 1, 2, 3, 7, 64, 1000, 4096}) {
    SmallVector<uint64_t> p;
    for (unsigned k = 0; k < symbols.size(); ++k)
      p.push_back(clamp(k, v));
    addPoint(p);
  }
  uint64_t state = 0x9e3779b97f4a7c15ULL;
  for (int i = 0; i < 8; ++i) {
    SmallVector<uint64_t> p;
    for (unsigned k = 0; k < symbols.size(); ++k) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      // Within [0, bound], or [0, 4096] without one.
      uint64_t range = symbols[k].bound ? *symbols[k].bound : 4096;
      p.push_back((state >> 33) % (range + 1));
    }
    addPoint(p);
  }

  DataLayout layout = DataLayout::closest(func);
  IntegerAttr budget =
      MemplanDialect::BudgetAttrHelper(func.getContext()).getAttr(func);
  // The views, each checked once for what does not depend on the sizes:
  // its arena, that it is not returned, its alignment against the arena's.
  struct PlacedRoot {
    Operation *op;
    const Root *root;
    size_t arena;
  };
  SmallVector<PlacedRoot> placedRoots;
  for (const Root &root : lifetimes.getRoots()) {
    Operation *op = root.value.getDefiningOp();
    if (!op || !isa<ViewOp, DynamicViewOp>(op))
      continue;
    Value arenaValue = op->getOperand(0);
    auto *arena = llvm::find_if(
        arenas, [&](ArenaOp a) { return arenaValue == a.getResult(); });
    if (arena == arenas.end())
      return op->emitError(
          "view does not take one of its function's memplan.arenas");
    if (root.returned)
      return op->emitError("view escapes its function: a buffer in the "
                           "arena is returned");
    if (failed(checkAlignment(op, getViewAlignment(op), *arena)))
      return failure();
    placedRoots.push_back(
        {op, &root, static_cast<size_t>(arena - arenas.begin())});
  }

  unsigned checked = 0;
  for (const SmallVector<uint64_t> &point : points) {
    std::string where;
    for (auto [k, symbol] : llvm::enumerate(symbols))
      where += (where.empty() ? "" : ",") + symbol.name + "=" +
               std::to_string(point[k]);
    SampleEvaluator eval(*sizes, point);
    auto cannot = [&]() {
      InFlightDiagnostic diag =
          eval.unsupported->emitError(
              "memplan-verify-plan: an offset or size depends on this op, "
              "which cannot be evaluated at sample sizes, so the plan of @")
          << func.getName() << " cannot be checked";
      return diag;
    };
    // Arena sizes; an arena that cannot be computed at these sizes (an
    // overflow) means the program cannot run there: skip the point.
    SmallVector<int64_t> arenaBytes;
    bool arenaUndefined = false;
    for (ArenaOp arena : arenas) {
      std::optional<int64_t> bytes =
          arena.isDynamic() ? eval.evaluate(arena.getSize())
                            : std::optional<int64_t>(arena.getSizeInBytes());
      if (eval.unsupported)
        return cannot();
      arenaUndefined |= !bytes;
      arenaBytes.push_back(bytes.value_or(-1));
    }
    if (arenaUndefined)
      continue;
    if (budget)
      for (auto [k, bytes] : llvm::enumerate(arenaBytes))
        if (bytes > budget.getInt())
          return ArenaOp(arenas[k]).emitError("at ")
                 << where << ": arena of " << bytes
                 << " bytes exceeds the budget of " << budget.getInt()
                 << " bytes";
    SmallVector<PlacedViews> groups(arenas.size());
    for (const PlacedRoot &placed : placedRoots) {
      Operation *op = placed.op;
      int64_t offset = 0, bytes = 0, alignment = 1;
      if (auto view = dyn_cast<ViewOp>(op)) {
        offset = view.getPlacement().getOffset();
        bytes = view.getPlacement().getSize();
        alignment = view.getPlacement().getAlignment();
      } else {
        auto dynamicView = cast<DynamicViewOp>(op);
        std::optional<uint64_t> element = getElementStorageBytes(
            dynamicView.getType().getElementType(), layout);
        // A view whose size is undefined or negative here is an
        // allocation that cannot run at these sizes (under an scf.if):
        // it holds nothing; the others are still checked.
        std::optional<int64_t> b =
            element ? eval.bytesOf(dynamicView.getResult(), *element)
                    : std::nullopt;
        if (eval.unsupported)
          return cannot();
        if (!b)
          continue;
        std::optional<int64_t> o = eval.evaluate(dynamicView.getOffset());
        if (eval.unsupported)
          return cannot();
        if (!o)
          return dynamicView.emitError("at ")
                 << where
                 << ": the view's offset cannot be computed (it overflows)";
        offset = *o;
        bytes = *b;
        alignment = dynamicView.getAlignment();
        if (offset < 0 || offset % alignment != 0)
          return dynamicView.emitError("at ")
                 << where << ": offset " << offset
                 << " is not a multiple of the view's alignment " << alignment;
      }
      int64_t arenaSize = arenaBytes[placed.arena];
      if (arenaSize < 0 || offset > arenaSize - bytes)
        return op->emitError("at ")
               << where << ": view [" << offset << ", " << offset + bytes
               << ") ends past its arena of " << arenaSize << " bytes";
      if (bytes == 0)
        continue;
      PlacedViews &group = groups[placed.arena];
      group.items.push_back(
          {placed.root->live, static_cast<uint64_t>(bytes), 1});
      group.offsets.push_back(offset);
      group.views.push_back(op);
    }
    for (const PlacedViews &group : groups)
      if (failed(group.check("at " + where + ": ")))
        return failure();
    ++checked;
  }
  if (checked == 0)
    return func.emitError("memplan-verify-plan: the plan of @")
           << func.getName()
           << ", sized at run time, could not be evaluated at any of "
           << points.size() << " sample sizes";
  // Then a proof for every size, from the index code alone (the samples
  // above stay: they check the proof's claim where it is made, and they are
  // what remains when no proof is found). The proof finds no clash the
  // samples miss, it only certifies: it runs when its answer is reported.
  if (remarks) {
    PlanProof proof;
    if (proofWorkLimit == 0)
      proof.why = "proof-work-limit=0";
    else
      proof = provePlan(func, arenas, lifetimes, *sizes, proofWorkLimit);
    InFlightDiagnostic remark = emitRemark(func.getLoc());
    remark << "memplan-verify-plan: @" << func.getName()
           << ": offsets computed at run time, ";
    if (proof.proven) {
      remark << "proven for every size";
      if (llvm::any_of(symbols, [](const SizeSymbol &s) { return s.bound; }))
        remark << " within the bounds";
      // Over the integers: where the 64-bit index code does not overflow
      // (the samples check it where they are taken); index arguments are
      // sizes, taken as non-negative.
      remark << " without 64-bit overflow";
      if (llvm::any_of(symbols, [](const SizeSymbol &s) { return !s.dim; }))
        remark << ", index arguments non-negative";
      remark << " (" << proof.pairs << (proof.pairs == 1 ? " pair" : " pairs")
             << " of buffers live at once";
      if (proof.choices)
        remark << ", " << (uint64_t(1) << proof.choices)
               << " cases of the run-time choice between plans";
      remark << ") and checked by evaluation at " << checked << " sample sizes";
    } else {
      remark << "checked by evaluation at " << checked
             << " sample sizes (not proven for all sizes: " << proof.why << ")";
    }
  }
  return success();
}
