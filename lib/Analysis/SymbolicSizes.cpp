//===- SymbolicSizes.cpp - Buffer sizes over a function's symbols ---------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Analysis/SymbolicSizes.h"
#include "memplan/Analysis/Lifetimes.h"
#include "memplan/IR/MemplanDialect.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::memplan;

static bool isSymbolName(StringRef name) {
  if (name.empty() || !(isalpha(name[0]) || name[0] == '_'))
    return false;
  return llvm::all_of(name, [](char c) { return isalnum(c) || c == '_'; });
}

FailureOr<SymbolicSizes>
SymbolicSizes::create(FunctionOpInterface func,
                      const llvm::StringMap<uint64_t> &extraBounds) {
  SymbolicSizes result(func);
  Block &entry = func.getFunctionBody().front();
  llvm::StringSet<> seen;
  for (BlockArgument arg : entry.getArguments()) {
    unsigned n = arg.getArgNumber();
    Attribute names = func.getArgAttr(n, MemplanDialect::getSymbolsAttrName());
    auto add = [&](std::optional<int64_t> dim,
                   StringAttr given) -> LogicalResult {
      std::string name = "a" + std::to_string(n);
      if (dim)
        name += "d" + std::to_string(*dim);
      if (given && !given.getValue().empty()) {
        if (!isSymbolName(given.getValue()))
          return func.emitError("'")
                 << MemplanDialect::getSymbolsAttrName() << "' name '"
                 << given.getValue() << "' of argument " << n
                 << " is not an identifier ([A-Za-z_][A-Za-z0-9_]*)";
        name = given.getValue().str();
      }
      if (!seen.insert(name).second)
        return func.emitError("symbol '")
               << name << "' names two dimensions of @" << func.getName()
               << "; give each its own name";
      result.symbols.push_back({arg, dim, name, std::nullopt});
      return success();
    };
    if (arg.getType().isIndex()) {
      if (failed(add(std::nullopt, dyn_cast_if_present<StringAttr>(names))))
        return failure();
      continue;
    }
    auto shaped = dyn_cast<ShapedType>(arg.getType());
    if (!shaped || !shaped.hasRank())
      continue;
    auto array = dyn_cast_if_present<ArrayAttr>(names);
    for (int64_t d = 0; d < shaped.getRank(); ++d)
      if (shaped.isDynamicDim(d) &&
          failed(add(d, array ? dyn_cast<StringAttr>(array[d]) : StringAttr())))
        return failure();
  }
  if (DictionaryAttr bounds =
          MemplanDialect::BoundsAttrHelper(func.getContext()).getAttr(func))
    for (NamedAttribute bound : bounds) {
      std::optional<unsigned> k = result.lookup(bound.getName().getValue());
      if (!k) {
        std::string known;
        for (const SizeSymbol &s : result.symbols)
          known += (known.empty() ? "" : ", ") + s.name;
        return func.emitError("'")
               << MemplanDialect::BoundsAttrHelper::getNameStr() << "' bounds '"
               << bound.getName().getValue() << "', which is not a symbol of @"
               << func.getName()
               << " (its symbols: " << (known.empty() ? "none" : known) << ")";
      }
      result.symbols[*k].bound = cast<IntegerAttr>(bound.getValue()).getInt();
    }
  for (SizeSymbol &s : result.symbols)
    if (!s.bound)
      if (auto it = extraBounds.find(s.name); it != extraBounds.end())
        s.bound = it->second;
  result.deriveBounds();
  return result;
}

/// The symbol `size` is, if it is one: an index argument, or a dim op of an
/// argument's dimension at a constant index.
std::optional<unsigned> SymbolicSizes::symbolOfSize(Value size) const {
  if (auto arg = dyn_cast<BlockArgument>(size))
    return symbolOf(arg, std::nullopt);
  Operation *def = size.getDefiningOp();
  if (!isa_and_nonnull<memref::DimOp, tensor::DimOp>(def))
    return std::nullopt;
  auto arg = dyn_cast<BlockArgument>(def->getOperand(0));
  std::optional<int64_t> index = getConstantIntValue(def->getOperand(1));
  if (!arg || !index)
    return std::nullopt;
  return symbolOf(arg, *index);
}

/// Whether an op of `block` reads or writes the elements of `value` (not
/// merely a view or a cast of it).
static bool accessedIn(Value value, Block &block) {
  for (Operation *user : value.getUsers()) {
    if (user->getBlock() != &block)
      continue;
    if (isa<DestinationStyleOpInterface, tensor::ExtractOp, memref::LoadOp,
            memref::StoreOp, memref::CopyOp>(user))
      return true;
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(user))
      if (effects.getEffectOnValue<MemoryEffects::Read>(value) ||
          effects.getEffectOnValue<MemoryEffects::Write>(value))
        return true;
  }
  return false;
}

void SymbolicSizes::deriveBounds() {
  Block &entry = func.getFunctionBody().front();
  for (Operation &op : entry) {
    auto slice = dyn_cast<OffsetSizeAndStrideOpInterface>(&op);
    if (!slice ||
        !isa<tensor::ExtractSliceOp, memref::SubViewOp, tensor::InsertSliceOp>(
            op))
      continue;
    // Only a slice whose elements the entry block reads or writes: one
    // merely made there (hoisted out of a loop that may not run, say) may
    // lie outside its source without harm.
    auto insert = dyn_cast<tensor::InsertSliceOp>(op);
    if (!insert && !accessedIn(op.getResult(0), entry))
      continue;
    auto source = cast<ShapedType>(insert ? insert.getDest().getType()
                                          : op.getOperand(0).getType());
    SmallVector<OpFoldResult> offsets = slice.getMixedOffsets(),
                              sizes = slice.getMixedSizes(),
                              strides = slice.getMixedStrides();
    for (int64_t d = 0; d < source.getRank(); ++d) {
      auto size = dyn_cast<Value>(sizes[d]);
      std::optional<int64_t> offset = getConstantIntValue(offsets[d]);
      std::optional<int64_t> stride = getConstantIntValue(strides[d]);
      if (!size || source.isDynamicDim(d) || !offset || stride != 1 ||
          *offset < 0 || *offset > source.getDimSize(d))
        continue;
      std::optional<unsigned> k = symbolOfSize(size);
      if (!k)
        continue;
      SizeSymbol &symbol = symbols[*k];
      uint64_t bound = static_cast<uint64_t>(source.getDimSize(d) - *offset);
      // Only where nothing is given, and the smallest the IR implies.
      if (symbol.bound && symbol.boundSource.empty())
        continue;
      if (symbol.bound && *symbol.bound <= bound)
        continue;
      symbol.bound = bound;
      symbol.boundSource = describeOp(&op);
    }
  }
}

std::optional<unsigned> SymbolicSizes::lookup(StringRef name) const {
  for (auto [k, s] : llvm::enumerate(symbols))
    if (s.name == name)
      return k;
  return std::nullopt;
}

std::optional<unsigned>
SymbolicSizes::symbolOf(Value value, std::optional<int64_t> dim) const {
  for (auto [k, s] : llvm::enumerate(symbols))
    if (s.arg == value && s.dim == dim)
      return k;
  return std::nullopt;
}

FailureOr<AffineExpr> SymbolicSizes::getByteSize(Location loc, Value value,
                                                 uint64_t elementBytes) {
  MLIRContext *ctx = func.getContext();
  auto shaped = cast<ShapedType>(value.getType());
  // Upstream's value bounds index a shaped value's dimensions by a dim
  // op's constant index without checking it: refuse an index out of range
  // (undefined behaviour at run time anyway) before asking them.
  if (!dimsChecked) {
    Operation *bad = nullptr;
    func.walk([&](Operation *op) {
      if (!isa<memref::DimOp, tensor::DimOp>(op))
        return WalkResult::advance();
      std::optional<int64_t> index = getConstantIntValue(op->getOperand(1));
      int64_t rank = cast<ShapedType>(op->getOperand(0).getType()).getRank();
      if (index && (*index < 0 || *index >= rank)) {
        bad = op;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    dimsChecked = !bad;
    if (bad)
      return bad->emitError("dimension index ")
             << *getConstantIntValue(bad->getOperand(1))
             << " is out of range for a value of rank "
             << cast<ShapedType>(bad->getOperand(0).getType()).getRank()
             << ": memplan cannot size the buffers of @" << func.getName();
  }
  if (!*dimsChecked)
    return failure();
  AffineExpr bytes = getAffineConstantExpr(elementBytes, ctx);
  for (int64_t d = 0; d < shaped.getRank(); ++d) {
    if (!shaped.isDynamicDim(d)) {
      bytes = bytes * shaped.getDimSize(d);
      continue;
    }
    bool notSymbol = false;
    FailureOr<AffineExpr> dimExpr = sizeExpr(value, d, notSymbol);
    if (succeeded(dimExpr)) {
      bytes = bytes * *dimExpr;
      continue;
    }
    if (notSymbol)
      return emitError(loc, "dimension ")
             << d << " of " << value.getType()
             << " depends on an argument that is not a symbol (a static "
                "dimension or an integer that is not an index)";
    return emitError(loc, "dimension ")
           << d << " of " << value.getType()
           << " is not a function of the sizes of @" << func.getName()
           << "'s arguments that memplan can state (sums and products of "
              "them), so its buffer cannot be placed before the function "
              "runs";
  }
  return bytes;
}

/// Upstream's value bounds, or null: `variable` as an affine function of
/// the arguments' sizes.
FailureOr<AffineExpr>
SymbolicSizes::boundExpr(ValueBoundsConstraintSet::Variable variable,
                         bool &notSymbol) {
  MLIRContext *ctx = func.getContext();
  Block *entry = &func.getFunctionBody().front();
  auto stop = [&](Value v, std::optional<int64_t>, ValueBoundsConstraintSet &) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == entry;
  };
  AffineMap map;
  ValueDimList operands;
  if (failed(ValueBoundsConstraintSet::computeBound(
          map, operands, presburger::BoundType::EQ, variable, stop)) ||
      map.getNumResults() != 1)
    return failure();
  SmallVector<AffineExpr> replacements;
  for (auto [operand, dim] : operands) {
    std::optional<unsigned> k = symbolOf(operand, dim);
    if (!k) {
      notSymbol = true;
      return failure();
    }
    replacements.push_back(getAffineSymbolExpr(*k, ctx));
  }
  return map.getResult(0).replaceDimsAndSymbols(
      ArrayRef<AffineExpr>(replacements).take_front(map.getNumDims()),
      ArrayRef<AffineExpr>(replacements).drop_front(map.getNumDims()));
}

FailureOr<AffineExpr> SymbolicSizes::sizeExpr(Value value,
                                              std::optional<int64_t> dim,
                                              bool &notSymbol, unsigned depth) {
  std::pair<Value, int64_t> key{value, dim.value_or(-1)};
  if (auto it = sizeCache.find(key); it != sizeCache.end())
    return it->second;
  FailureOr<AffineExpr> result =
      boundExpr(dim ? ValueBoundsConstraintSet::Variable(value, *dim)
                    : ValueBoundsConstraintSet::Variable(value),
                notSymbol);
  if (failed(result) && !notSymbol && depth < kMaxStructureDepth)
    result = sizeByStructure(value, dim, notSymbol, depth);
  if (succeeded(result))
    sizeCache[key] = *result;
  return result;
}

FailureOr<AffineExpr> SymbolicSizes::sizeByStructure(Value value,
                                                     std::optional<int64_t> dim,
                                                     bool &notSymbol,
                                                     unsigned depth) {
  // What value bounds cannot state (they are linear): a product of
  // symbols, such as the B * S rows of a collapse_shape of [B, S] tokens.
  // Followed through the op that gives the size, to a fixed depth.
  Operation *def = value.getDefiningOp();
  if (!def)
    return failure();
  if (!dim) {
    // An index: a dim op, or a product.
    if (isa<tensor::DimOp, memref::DimOp>(def))
      if (std::optional<int64_t> d = getConstantIntValue(def->getOperand(1)))
        return sizeExpr(def->getOperand(0), *d, notSymbol, depth + 1);
    if (auto mul = dyn_cast<arith::MulIOp>(def)) {
      FailureOr<AffineExpr> lhs =
          sizeExpr(mul.getLhs(), std::nullopt, notSymbol, depth + 1);
      if (failed(lhs))
        return failure();
      FailureOr<AffineExpr> rhs =
          sizeExpr(mul.getRhs(), std::nullopt, notSymbol, depth + 1);
      if (failed(rhs))
        return failure();
      return *lhs * *rhs;
    }
    return failure();
  }
  int64_t d = *dim;
  auto shaped = cast<ShapedType>(value.getType());
  // The size operand of dynamic dimension d of an allocation.
  auto dynamicOperand = [&](ValueRange sizes) -> Value {
    int64_t k = 0;
    for (int64_t i = 0; i < d; ++i)
      k += shaped.isDynamicDim(i);
    return k < static_cast<int64_t>(sizes.size()) ? sizes[k] : Value();
  };
  Value size;
  if (auto empty = dyn_cast<tensor::EmptyOp>(def))
    size = dynamicOperand(empty.getDynamicSizes());
  else if (auto alloc = dyn_cast<memref::AllocOp>(def))
    size = dynamicOperand(alloc.getDynamicSizes());
  if (size)
    return sizeExpr(size, std::nullopt, notSymbol, depth + 1);
  auto product = [&](Value source,
                     ArrayRef<int64_t> group) -> FailureOr<AffineExpr> {
    AffineExpr result = getAffineConstantExpr(1, func.getContext());
    auto sourceType = cast<ShapedType>(source.getType());
    for (int64_t j : group) {
      if (!sourceType.isDynamicDim(j)) {
        result = result * sourceType.getDimSize(j);
        continue;
      }
      FailureOr<AffineExpr> part = sizeExpr(source, j, notSymbol, depth + 1);
      if (failed(part))
        return failure();
      result = result * *part;
    }
    return result;
  };
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(def))
    return product(collapse.getSrc(), collapse.getReassociationIndices()[d]);
  if (auto collapse = dyn_cast<memref::CollapseShapeOp>(def))
    return product(collapse.getSrc(), collapse.getReassociationIndices()[d]);
  // A destination-style op's result has its init's shape.
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(def))
    if (auto result = dyn_cast<OpResult>(value))
      if (result.getResultNumber() < dps.getNumDpsInits())
        return sizeExpr(dps.getDpsInits()[result.getResultNumber()], d,
                        notSymbol, depth + 1);
  return failure();
}

namespace {
/// Folds `expr` bottom-up without recursion: `leaf` gives a constant's or a
/// symbol's value, `combine` a binary node's from its operands'.
template <typename T, typename Leaf, typename Combine>
std::optional<T> foldExpr(AffineExpr expr, Leaf leaf, Combine combine) {
  struct Frame {
    AffineExpr expr;
    bool expanded;
  };
  SmallVector<Frame> stack{{expr, false}};
  SmallVector<T> values;
  while (!stack.empty()) {
    Frame frame = stack.pop_back_val();
    auto binary = dyn_cast<AffineBinaryOpExpr>(frame.expr);
    if (!binary) {
      std::optional<T> value = leaf(frame.expr);
      if (!value)
        return std::nullopt;
      values.push_back(std::move(*value));
      continue;
    }
    if (!frame.expanded) {
      stack.push_back({frame.expr, true});
      stack.push_back({binary.getRHS(), false});
      stack.push_back({binary.getLHS(), false});
      continue;
    }
    T rhs = values.pop_back_val();
    T lhs = values.pop_back_val();
    std::optional<T> value = combine(binary.getKind(), lhs, rhs);
    if (!value)
      return std::nullopt;
    values.push_back(std::move(*value));
  }
  return values.back();
}
} // namespace

std::optional<uint64_t>
mlir::memplan::evaluateSizeExpr(AffineExpr expr,
                                ArrayRef<uint64_t> symbolValues) {
  SmallVector<int64_t> values;
  for (uint64_t v : symbolValues) {
    if (v > uint64_t(INT64_MAX))
      return std::nullopt;
    values.push_back(static_cast<int64_t>(v));
  }
  std::optional<int64_t> value = evaluateAffineSymbols(expr, values);
  if (!value || *value < 0)
    return std::nullopt;
  return static_cast<uint64_t>(*value);
}

std::optional<int64_t>
mlir::memplan::evaluateAffineSymbols(AffineExpr expr,
                                     ArrayRef<int64_t> symbolValues) {
  auto leaf = [&](AffineExpr e) -> std::optional<int64_t> {
    if (auto c = dyn_cast<AffineConstantExpr>(e))
      return c.getValue();
    if (auto s = dyn_cast<AffineSymbolExpr>(e);
        s && s.getPosition() < symbolValues.size())
      return symbolValues[s.getPosition()];
    return std::nullopt;
  };
  auto combine = [](AffineExprKind kind, int64_t lhs,
                    int64_t rhs) -> std::optional<int64_t> {
    switch (kind) {
    case AffineExprKind::Add:
      return llvm::checkedAdd(lhs, rhs);
    case AffineExprKind::Mul:
      return llvm::checkedMul(lhs, rhs);
    case AffineExprKind::FloorDiv:
    case AffineExprKind::CeilDiv:
    case AffineExprKind::Mod: {
      if (rhs <= 0) // affine maps divide by positive constants only
        return std::nullopt;
      int64_t q = lhs / rhs, r = lhs % rhs;
      if (r != 0 && lhs < 0)
        q -= 1, r += rhs; // floor
      if (kind == AffineExprKind::Mod)
        return r;
      if (kind == AffineExprKind::CeilDiv && r != 0)
        return q + 1;
      return q;
    }
    default:
      return std::nullopt;
    }
  };
  return foldExpr<int64_t>(expr, leaf, combine);
}

std::string SymbolicSizes::print(AffineExpr expr) const {
  auto leaf = [&](AffineExpr e) -> std::optional<std::string> {
    if (auto c = dyn_cast<AffineConstantExpr>(e))
      return std::to_string(c.getValue());
    if (auto s = dyn_cast<AffineSymbolExpr>(e);
        s && s.getPosition() < symbols.size())
      return symbols[s.getPosition()].name;
    return std::string("?");
  };
  // Parenthesize sums inside products and divisions.
  auto combine = [](AffineExprKind kind, const std::string &lhs,
                    const std::string &rhs) -> std::optional<std::string> {
    auto wrap = [](const std::string &s) {
      return s.find(" + ") == std::string::npos ? s : "(" + s + ")";
    };
    switch (kind) {
    case AffineExprKind::Add:
      return lhs + " + " + rhs;
    case AffineExprKind::Mul:
      return wrap(lhs) + " * " + wrap(rhs);
    case AffineExprKind::FloorDiv:
      return wrap(lhs) + " floordiv " + wrap(rhs);
    case AffineExprKind::CeilDiv:
      return wrap(lhs) + " ceildiv " + wrap(rhs);
    case AffineExprKind::Mod:
      return wrap(lhs) + " mod " + wrap(rhs);
    default:
      return std::string("?");
    }
  };
  return foldExpr<std::string>(expr, leaf, combine).value_or("?");
}

SmallVector<Value>
SymbolicSizes::materializeSymbols(OpBuilder &builder, Location loc,
                                  ArrayRef<bool> used) const {
  SmallVector<Value> values;
  for (auto [k, s] : llvm::enumerate(symbols)) {
    if (!used.empty() && !used[k]) {
      values.push_back(Value());
      continue;
    }
    if (!s.dim) {
      values.push_back(s.arg);
      continue;
    }
    if (isa<MemRefType>(s.arg.getType()))
      values.push_back(memref::DimOp::create(builder, loc, s.arg, *s.dim));
    else
      values.push_back(tensor::DimOp::create(builder, loc, s.arg, *s.dim));
  }
  return values;
}

std::optional<std::string>
mlir::memplan::parseSymbolValues(StringRef text,
                                 llvm::StringMap<uint64_t> &out) {
  SmallVector<StringRef> entries;
  text.split(entries, ',', -1, /*KeepEmpty=*/false);
  for (StringRef entry : entries) {
    auto [name, value] = entry.trim().split('=');
    name = name.trim();
    value = value.trim();
    uint64_t number = 0;
    if (!isSymbolName(name) || value.getAsInteger(10, number) ||
        number > uint64_t(INT64_MAX))
      return "expected NAME=VALUE (a non-negative integer), got '" +
             entry.trim().str() + "'";
    out[name] = number;
  }
  return std::nullopt;
}
