//===- PlanProof.cpp - Prove a run-time plan valid for every size ---------===//
//
// Part of memplan. See PlanProof.h.
//
//===----------------------------------------------------------------------===//
//
// The function's index code (offsets, sizes, the arena's size) becomes
// polynomials over the size symbols (memplan/Planning/SymbolicProof.h):
// constants, additions and products exactly; max, max(x, 0), rounding up
// to a power of two (x + a - 1) & -a as atoms with their bounds; a choice
// between plans (arith.select on a run-time comparison) by cases, each
// value of each condition proven separately; anything else an opaque atom.
// Independent of the planner: it reads the IR the planner left, as
// memplan-verify-plan's sampled check does.
//
//===----------------------------------------------------------------------===//

#include "PlanProof.h"

#include "memplan/Planning/SymbolicProof.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"

#include <set>

using namespace mlir;
using namespace mlir::memplan;
using mlir::memplan::proof::Atom;
using mlir::memplan::proof::Poly;
using mlir::memplan::proof::Prover;

namespace {
/// At most this many run-time choices are split into cases (2^k cases).
constexpr unsigned kMaxChoices = 6;

bool isIndexLike(Type t) { return t.isIndex() || t.isSignlessInteger(64); }

/// Index values as polynomials, for one value of each run-time condition.
class Translator {
public:
  Translator(Prover &prover, const SymbolicSizes &sizes,
             const DenseMap<Value, bool> &conditions,
             DenseMap<std::pair<Value, int64_t>, uint64_t> &opaqueKeys)
      : prover(prover), sizes(sizes), conditions(conditions),
        opaqueKeys(opaqueKeys) {}

  /// The polynomial of `root` (iterative, memoized).
  Poly translate(Value root) {
    SmallVector<Value> stack{root};
    while (!stack.empty()) {
      Value v = stack.back();
      if (memo.count(v)) {
        stack.pop_back();
        continue;
      }
      SmallVector<Value> needed;
      std::optional<Poly> p = step(v, needed);
      if (!p) {
        llvm::append_range(stack, needed);
        continue;
      }
      memo[v] = *p;
      stack.pop_back();
    }
    return memo[root];
  }

  /// Dimension `d` of a shaped value: a constant, a symbol, or the index
  /// value that sizes it, translated.
  Poly dim(Value shaped, int64_t d) {
    DimensionSource source = traceDimension(shaped, d, sizes);
    switch (source.kind) {
    case DimensionSource::Static:
      return Poly::constant(source.value);
    case DimensionSource::Symbol:
      return Poly::variable(static_cast<unsigned>(source.value));
    case DimensionSource::Index:
      return translate(source.index);
    case DimensionSource::Product:
      if (productDepth < kMaxProductDepth) {
        ++productDepth;
        Poly product = Poly::constant(1);
        for (int64_t sd : source.dims)
          product = product * dim(source.index, sd);
        --productDepth;
        return product;
      }
      break;
    case DimensionSource::Unknown:
      break;
    }
    return opaqueDim(shaped, d);
  }

private:
  /// An unknown value: one atom per value, or per (shaped value,
  /// dimension), each with its own key from one counter.
  Poly opaque(Value v) { return opaqueKey({v, -1}); }
  Poly opaqueDim(Value shaped, int64_t d) { return opaqueKey({shaped, d}); }
  Poly opaqueKey(std::pair<Value, int64_t> what) {
    auto [it, inserted] =
        opaqueKeys.try_emplace(what, static_cast<uint64_t>(opaqueKeys.size()));
    return prover.atom({Atom::Opaque, {}, 1, it->second});
  }

  std::optional<Poly> operand(Value v, SmallVectorImpl<Value> &needed) {
    auto it = memo.find(v);
    if (it != memo.end())
      return it->second;
    needed.push_back(v);
    return std::nullopt;
  }

  /// Translates an affine expression over `operands` (dims then symbols).
  std::optional<Poly> affine(AffineExpr expr, unsigned numDims,
                             ArrayRef<Poly> operands) {
    if (auto c = dyn_cast<AffineConstantExpr>(expr))
      return Poly::constant(c.getValue());
    if (auto dimExpr = dyn_cast<AffineDimExpr>(expr))
      return operands[dimExpr.getPosition()];
    if (auto symbol = dyn_cast<AffineSymbolExpr>(expr))
      return operands[numDims + symbol.getPosition()];
    auto binary = cast<AffineBinaryOpExpr>(expr);
    if (expr.getKind() != AffineExprKind::Add &&
        expr.getKind() != AffineExprKind::Mul)
      return std::nullopt; // floordiv, ceildiv, mod
    std::optional<Poly> lhs = affine(binary.getLHS(), numDims, operands);
    std::optional<Poly> rhs = affine(binary.getRHS(), numDims, operands);
    if (!lhs || !rhs)
      return std::nullopt;
    return expr.getKind() == AffineExprKind::Add ? *lhs + *rhs : *lhs * *rhs;
  }

  std::optional<Poly> step(Value v, SmallVectorImpl<Value> &needed) {
    if (!isIndexLike(v.getType()))
      return opaque(v);
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      for (auto [k, symbol] : llvm::enumerate(sizes.getSymbols()))
        if (symbol.arg == arg && !symbol.dim)
          return Poly::variable(static_cast<unsigned>(k));
      return opaque(v);
    }
    Operation *op = v.getDefiningOp();
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (auto i = dyn_cast<IntegerAttr>(constant.getValue()))
        return Poly::constant(i.getValue().getSExtValue());
      return opaque(v);
    }
    if (isa<memref::DimOp, tensor::DimOp>(op)) {
      std::optional<int64_t> index = getConstantIntValue(op->getOperand(1));
      auto type = cast<ShapedType>(op->getOperand(0).getType());
      if (!index || *index < 0 || *index >= type.getRank())
        return opaque(v);
      return dim(op->getOperand(0), *index);
    }
    if (auto select = dyn_cast<arith::SelectOp>(op)) {
      auto it = conditions.find(select.getCondition());
      if (it == conditions.end())
        return opaque(v);
      return operand(
          it->second ? select.getTrueValue() : select.getFalseValue(), needed);
    }
    if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
      SmallVector<Poly> args;
      for (Value o : apply.getMapOperands())
        if (std::optional<Poly> p = operand(o, needed))
          args.push_back(*p);
      if (!needed.empty())
        return std::nullopt;
      std::optional<Poly> p = affine(apply.getAffineMap().getResult(0),
                                     apply.getAffineMap().getNumDims(), args);
      return p ? *p : opaque(v);
    }
    if (!isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::MaxUIOp,
             arith::MaxSIOp, arith::AndIOp, arith::IndexCastOp,
             arith::IndexCastUIOp>(op) ||
        !llvm::all_of(op->getOperandTypes(), isIndexLike))
      return opaque(v);
    SmallVector<Poly> args;
    for (Value o : op->getOperands())
      if (std::optional<Poly> p = operand(o, needed))
        args.push_back(*p);
    if (!needed.empty())
      return std::nullopt;
    if (isa<arith::AddIOp>(op))
      return args[0] + args[1];
    if (isa<arith::SubIOp>(op))
      return args[0] - args[1];
    if (isa<arith::MulIOp>(op))
      return args[0] * args[1];
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op))
      return args[0];
    if (isa<arith::MaxSIOp>(op)) {
      // max(x, 0) either way round.
      for (int k = 0; k < 2; ++k)
        if (args[1 - k].constantValue() == 0)
          return prover.atom({Atom::ClampNonNegative, {args[k]}, 1, 0});
    }
    // Signed and unsigned agree on non-negative values: a Max atom, which
    // the prover makes an unknown value unless both are proven so.
    if (isa<arith::MaxSIOp, arith::MaxUIOp>(op))
      return prover.atom({Atom::Max, {args[0], args[1]}, 1, 0});
    // x & -a with a a power of two: x rounded down to a multiple of a, that
    // is (x - a + 1) rounded up.
    if (std::optional<int64_t> mask = args[1].constantValue()) {
      uint64_t alignment = 0 - static_cast<uint64_t>(*mask);
      if (*mask < 0 && llvm::isPowerOf2_64(alignment) &&
          alignment < (uint64_t(1) << 62))
        return prover.atom(
            {Atom::AlignUp,
             {args[0] - Poly::constant(static_cast<int64_t>(alignment - 1))},
             alignment,
             0});
    }
    return opaque(v);
  }

  Prover &prover;
  const SymbolicSizes &sizes;
  const DenseMap<Value, bool> &conditions;
  DenseMap<std::pair<Value, int64_t>, uint64_t> &opaqueKeys;
  DenseMap<Value, Poly> memo;
  unsigned productDepth = 0;
};

/// The conditions of the arith.select ops the values in `roots` depend on
/// (through index code), in a deterministic order.
SmallVector<Value> collectConditions(ArrayRef<Value> roots) {
  llvm::SetVector<Value> conditions;
  DenseSet<Value> seen;
  SmallVector<Value> work(roots.begin(), roots.end());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!v || !seen.insert(v).second)
      continue;
    Operation *op = v.getDefiningOp();
    if (!op || !isIndexLike(v.getType()))
      continue;
    if (auto select = dyn_cast<arith::SelectOp>(op)) {
      conditions.insert(select.getCondition());
      work.push_back(select.getTrueValue());
      work.push_back(select.getFalseValue());
      continue;
    }
    if (isa<arith::ArithDialect, affine::AffineDialect>(op->getDialect()))
      llvm::append_range(work, op->getOperands());
  }
  return conditions.takeVector();
}

struct ViewInfo {
  Operation *op;
  unsigned arena;
  Interval live;
  Value offset; // null: static
  int64_t staticOffset = 0, staticBytes = 0, alignment = 1;
  uint64_t elementBytes = 0;
};
} // namespace

DimensionSource mlir::memplan::traceDimension(Value shaped, int64_t d,
                                              const SymbolicSizes &sizes) {
  DimensionSource source;
  for (unsigned hops = 0; hops < 64; ++hops) {
    auto type = cast<ShapedType>(shaped.getType());
    if (!type.isDynamicDim(d)) {
      source.kind = DimensionSource::Static;
      source.value = type.getDimSize(d);
      return source;
    }
    // The position of dimension d among the type's dynamic ones.
    int64_t dynamicIndex = 0;
    for (int64_t i = 0; i < d; ++i)
      dynamicIndex += type.isDynamicDim(i);
    auto index = [&](Value v) {
      source.kind = DimensionSource::Index;
      source.index = v;
      return source;
    };
    if (auto arg = dyn_cast<BlockArgument>(shaped)) {
      for (auto [k, symbol] : llvm::enumerate(sizes.getSymbols()))
        if (symbol.arg == arg && symbol.dim == d) {
          source.kind = DimensionSource::Symbol;
          source.value = static_cast<int64_t>(k);
          return source;
        }
      break;
    }
    Operation *op = shaped.getDefiningOp();
    if (auto alloc = dyn_cast<memref::AllocOp>(op))
      return index(alloc.getDynamicSizes()[dynamicIndex]);
    if (auto view = dyn_cast<DynamicViewOp>(op))
      return index(view.getSizes()[dynamicIndex]);
    if (auto view = dyn_cast<memref::ViewOp>(op))
      return index(view.getSizes()[dynamicIndex]);
    if (auto empty = dyn_cast<tensor::EmptyOp>(op))
      return index(empty.getDynamicSizes()[dynamicIndex]);
    if (isa<memref::CastOp, tensor::CastOp>(op)) {
      shaped = op->getOperand(0);
      continue;
    }
    // Reshapes: an expanded dimension is its output_shape entry; a
    // collapsed one the product of its group of source dimensions.
    auto expanded = [&](SmallVector<OpFoldResult> outputShape) {
      OpFoldResult size = outputShape[d];
      if (auto value = dyn_cast<Value>(size))
        return index(value);
      source.kind = DimensionSource::Static;
      source.value = cast<IntegerAttr>(cast<Attribute>(size)).getInt();
      return source;
    };
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(op))
      return expanded(expand.getMixedOutputShape());
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op))
      return expanded(expand.getMixedOutputShape());
    auto collapsed = [&](Value src, SmallVector<ReassociationIndices> groups) {
      source.kind = DimensionSource::Product;
      source.index = src;
      source.dims.assign(groups[d].begin(), groups[d].end());
      return source;
    };
    if (auto collapse = dyn_cast<memref::CollapseShapeOp>(op))
      return collapsed(collapse.getSrc(), collapse.getReassociationIndices());
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op))
      return collapsed(collapse.getSrc(), collapse.getReassociationIndices());
    // An insert_slice has its destination's shape.
    if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
      shaped = insert.getDest();
      continue;
    }
    // Subviews, extracted slices and reinterpret casts that keep their
    // rank: the size operand is the result's size. (Not every op with
    // offsets, sizes and strides: an insert_slice's sizes are its source's.)
    auto slice = dyn_cast<OffsetSizeAndStrideOpInterface>(op);
    if (slice &&
        isa<memref::SubViewOp, tensor::ExtractSliceOp,
            memref::ReinterpretCastOp>(op) &&
        static_cast<int64_t>(slice.getMixedSizes().size()) == type.getRank()) {
      OpFoldResult size = slice.getMixedSizes()[d];
      if (auto value = dyn_cast<Value>(size))
        return index(value);
      source.kind = DimensionSource::Static;
      source.value = cast<IntegerAttr>(cast<Attribute>(size)).getInt();
      return source;
    }
    source.unknownAt = op;
    return source;
  }
  source.unknownAt = shaped.getParentBlock()->getParentOp();
  return source;
}

int64_t mlir::memplan::getViewAlignment(Operation *view) {
  if (auto placed = dyn_cast<ViewOp>(view))
    return placed.getPlacement().getAlignment();
  return cast<DynamicViewOp>(view).getAlignment();
}

PlanProof mlir::memplan::provePlan(FunctionOpInterface func,
                                   ArrayRef<ArenaOp> arenas,
                                   const FunctionLifetimes &lifetimes,
                                   const SymbolicSizes &sizes,
                                   uint64_t workLimit) {
  PlanProof result;
  DataLayout layout = DataLayout::closest(func);
  // The proof is over the integers, matched to the program's 64-bit index
  // arithmetic where that does not overflow; narrower index values wrap
  // much sooner.
  if (uint64_t bits =
          layout.getTypeSizeInBits(IndexType::get(func.getContext()));
      bits != 64) {
    result.why = "index values of " + std::to_string(bits) +
                 " bits (the proof assumes 64)";
    return result;
  }
  std::vector<ViewInfo> views;
  SmallVector<Value> roots;
  for (ArenaOp arena : arenas)
    if (arena.isDynamic())
      roots.push_back(arena.getSize());
  for (const Root &root : lifetimes.getRoots()) {
    Operation *op = root.value.getDefiningOp();
    if (!op || !isa<ViewOp, DynamicViewOp>(op))
      continue;
    auto *arena = llvm::find_if(
        arenas, [&](ArenaOp a) { return op->getOperand(0) == a.getResult(); });
    if (arena == arenas.end()) {
      result.why = "a view outside the function's arenas";
      return result;
    }
    ViewInfo info{op, static_cast<unsigned>(arena - arenas.begin()), root.live};
    info.alignment = getViewAlignment(op);
    // An offset aligned to more than the arena is no better aligned than
    // the arena itself (memplan-verify-plan reports this as an error).
    if (info.alignment > static_cast<int64_t>(ArenaOp(*arena).getAlignment())) {
      result.why = "a view aligned to more than its arena";
      return result;
    }
    if (auto view = dyn_cast<ViewOp>(op)) {
      info.staticOffset = view.getPlacement().getOffset();
      info.staticBytes = view.getPlacement().getSize();
    } else {
      auto dynamicView = cast<DynamicViewOp>(op);
      std::optional<uint64_t> element = getElementStorageBytes(
          dynamicView.getType().getElementType(), layout);
      if (!element) {
        result.why = "a view of an element type without a storage size";
        return result;
      }
      info.offset = dynamicView.getOffset();
      info.elementBytes = *element;
      roots.push_back(info.offset);
      llvm::append_range(roots, dynamicView.getSizes());
    }
    views.push_back(info);
  }

  SmallVector<Value> choices = collectConditions(roots);
  result.choices = static_cast<unsigned>(choices.size());
  if (choices.size() > kMaxChoices) {
    result.why = std::to_string(choices.size()) +
                 " run-time choices between plans (at most " +
                 std::to_string(kMaxChoices) + " are split into cases)";
    return result;
  }

  std::vector<std::optional<uint64_t>> bounds;
  for (const SizeSymbol &symbol : sizes.getSymbols())
    bounds.push_back(symbol.bound);
  Prover prover(bounds, workLimit);
  DenseMap<std::pair<Value, int64_t>, uint64_t> opaqueKeys;
  // Pairs live at once, by start (a sweep; each pair once).
  std::vector<size_t> order(views.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return views[a].live.start < views[b].live.start;
  });
  auto failAt = [&](Operation *op, const std::string &what) {
    result.pairs = 0;
    std::string where;
    llvm::raw_string_ostream os(where);
    if (auto file = dyn_cast<FileLineColLoc>(op->getLoc()))
      os << "line " << file.getLine() << ", column " << file.getColumn();
    else
      os << op->getLoc();
    result.why = prover.exhausted()
                     ? "the proof's work bound ran out"
                     : what + " (" + op->getName().getStringRef().str() +
                           " at " + where + ")";
    return result;
  };

  // Cases whose offsets and arena sizes are those of an earlier case (the
  // same plan chosen) are not proven twice.
  std::set<std::vector<Poly>> seenCases;
  for (uint64_t mask = 0; mask < (uint64_t(1) << choices.size()); ++mask) {
    DenseMap<Value, bool> assignment;
    for (auto [k, c] : llvm::enumerate(choices))
      assignment[c] = (mask >> k) & 1;
    Translator translator(prover, sizes, assignment, opaqueKeys);
    SmallVector<Poly> arenaSize;
    for (ArenaOp arena : arenas)
      arenaSize.push_back(arena.isDynamic()
                              ? translator.translate(arena.getSize())
                              : Poly::constant(arena.getSizeInBytes()));
    std::vector<Poly> offset, bytes;
    for (const ViewInfo &view : views) {
      if (!view.offset) {
        offset.push_back(Poly::constant(view.staticOffset));
        bytes.push_back(Poly::constant(view.staticBytes));
        continue;
      }
      offset.push_back(translator.translate(view.offset));
      auto type = cast<ShapedType>(view.op->getResult(0).getType());
      Poly b = Poly::constant(static_cast<int64_t>(view.elementBytes));
      for (int64_t d = 0; d < type.getRank(); ++d)
        b = b * translator.dim(view.op->getResult(0), d);
      bytes.push_back(b);
    }
    std::vector<Poly> signature(arenaSize.begin(), arenaSize.end());
    signature.insert(signature.end(), offset.begin(), offset.end());
    signature.insert(signature.end(), bytes.begin(), bytes.end());
    if (!seenCases.insert(std::move(signature)).second)
      continue;
    // Each view: aligned, at a non-negative offset, inside its arena.
    for (auto [k, view] : llvm::enumerate(views)) {
      if (offset[k].overflow || bytes[k].overflow)
        return failAt(view.op, "an offset or size too large to reason about");
      if (prover.alignmentOf(offset[k]) < static_cast<uint64_t>(view.alignment))
        return failAt(view.op, "no proof that the offset is a multiple of " +
                                   std::to_string(view.alignment));
      if (!prover.provedNonNegative(offset[k]))
        return failAt(view.op, "no proof that the offset is not negative");
      std::optional<bool> inside =
          prover.geq(arenaSize[view.arena], offset[k] + bytes[k]);
      if (!inside || !*inside)
        return failAt(view.op, "no proof that the view ends inside its arena");
    }
    // Each pair live at once: one below the other.
    for (size_t i = 0; i < order.size(); ++i)
      for (size_t j = i + 1; j < order.size(); ++j) {
        const ViewInfo &a = views[order[i]], &b = views[order[j]];
        if (b.live.start >= a.live.end)
          break; // the later ones start later still
        if (a.arena != b.arena || !a.live.overlaps(b.live))
          continue;
        const Poly &oa = offset[order[i]], &ob = offset[order[j]];
        const Poly &ba = bytes[order[i]], &bb = bytes[order[j]];
        std::optional<bool> above = prover.geq(ob, oa + ba);
        if (above && *above) {
          result.pairs += mask == 0;
          continue;
        }
        std::optional<bool> below = prover.geq(oa, ob + bb);
        if (below && *below) {
          result.pairs += mask == 0;
          continue;
        }
        return failAt(b.op, "no proof that this view and one live at the same "
                            "time are apart");
      }
  }
  result.proven = true;
  return result;
}
