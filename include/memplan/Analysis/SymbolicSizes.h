//===- SymbolicSizes.h - Buffer sizes over a function's symbols -*- C++ -*-===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//
//
// A function with dynamic shapes allocates buffers whose sizes are known only
// at run time. Their sizes are expressions over the function's *symbols*:
// the dynamic dimensions of its shaped arguments and its `index` arguments.
// A symbol is named `a<N>d<D>` (dimension D of argument N) or `a<N>` (index
// argument N) unless the argument's `memplan.symbols` attribute names it:
//
//   func.func @f(%x: memref<?x?xf32> {memplan.symbols = ["B", "S"]}, ...)
//
// Bounds come from the function's `memplan.bounds = {B = 64 : i64}` or from a
// pass option. Sizes are found by upstream's ValueBoundsOpInterface, which
// relates `memref.dim`, `tensor.dim`, `affine.apply`, `arith` and many more
// back to the arguments (docs/Lifetimes.md, "Symbolic sizes").
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_ANALYSIS_SYMBOLICSIZES_H
#define MEMPLAN_ANALYSIS_SYMBOLICSIZES_H

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>

namespace mlir {
namespace memplan {

/// A quantity known only at run time that buffer sizes depend on.
struct SizeSymbol {
  /// The function argument: an index, or a shaped value of which this is
  /// dimension `dim`.
  BlockArgument arg;
  std::optional<int64_t> dim;
  std::string name;
  /// Inclusive upper bound, when known.
  std::optional<uint64_t> bound;
  /// Where a bound the IR implies comes from ("tensor.extract_slice @
  /// file:line:col"); empty for a bound given (memplan.bounds, an option).
  std::string boundSource;
};

/// The symbols of one function and the sizes of its buffers over them.
class SymbolicSizes {
public:
  /// Collects the function's potential symbols (every dynamic dimension of
  /// a ranked shaped argument, every index argument) with their names and
  /// the bounds of its `memplan.bounds` attribute; `extraBounds` (by name)
  /// fill in those the attribute does not give, and the IR those neither
  /// gives: a symbol that is the size of a unit-stride
  /// `tensor.extract_slice` or `memref.subview` whose elements the entry
  /// block reads or writes, or of a `tensor.insert_slice` there, along a
  /// static dimension E at a static offset o, is at most E - o (a valid
  /// program accesses a slice within its source; the smallest such bound is
  /// kept).
  /// Located errors on a bad `memplan.symbols` or `memplan.bounds`.
  static FailureOr<SymbolicSizes>
  create(FunctionOpInterface func,
         const llvm::StringMap<uint64_t> &extraBounds = {});

  /// The byte size of `value`, a ranked memref or tensor whose dynamic
  /// dimensions are affine functions of the symbols (as far as upstream's
  /// value bounds can tell), as an expression over symbols (symbol k is the
  /// k-th of getSymbols()): the product of its dimensions times
  /// `elementBytes`. Emits a located error at `loc` and fails when a
  /// dimension is not such a function.
  FailureOr<AffineExpr> getByteSize(Location loc, Value value,
                                    uint64_t elementBytes);

  /// Every potential symbol, in argument order.
  ArrayRef<SizeSymbol> getSymbols() const { return symbols; }
  /// The index of the symbol named `name`, if any.
  std::optional<unsigned> lookup(StringRef name) const;

  /// `expr` with symbols written by name ("3072 * B * S").
  std::string print(AffineExpr expr) const;

  /// Builds the symbols' values at the builder's insertion point (the
  /// function's entry): `memref.dim`/`tensor.dim` of the arguments, or the
  /// index arguments themselves.
  /// Symbols not in `used` (when given) get a null value.
  SmallVector<Value> materializeSymbols(OpBuilder &builder, Location loc,
                                        ArrayRef<bool> used = {}) const;

private:
  explicit SymbolicSizes(FunctionOpInterface func) : func(func) {}
  /// The symbol for (arg, dim) (dim -1 for an index argument).
  std::optional<unsigned> symbolOf(Value value,
                                   std::optional<int64_t> dim) const;
  /// The symbol a slice size is: an index argument, or a dim op of an
  /// argument's dimension.
  std::optional<unsigned> symbolOfSize(Value size) const;
  /// Bounds the IR implies, for symbols given none (see create()).
  void deriveBounds();
  /// Dimension `dim` of `value`, or the index `value` (no `dim`), over the
  /// symbols: upstream's value bounds, else, for what they cannot state (a
  /// product of symbols), through the op that gives it (tensor.empty and
  /// memref.alloc sizes, dim ops, arith.muli, collapse_shape groups, a
  /// destination-style result's init), at most kMaxStructureDepth ops deep.
  /// `notSymbol` is set when it depends on an argument that is no symbol.
  /// Memoized (sizeCache).
  static constexpr unsigned kMaxStructureDepth = 16;
  FailureOr<AffineExpr> sizeExpr(Value value, std::optional<int64_t> dim,
                                 bool &notSymbol, unsigned depth = 0);
  FailureOr<AffineExpr> sizeByStructure(Value value, std::optional<int64_t> dim,
                                        bool &notSymbol, unsigned depth);
  FailureOr<AffineExpr> boundExpr(ValueBoundsConstraintSet::Variable variable,
                                  bool &notSymbol);

  FunctionOpInterface func;
  SmallVector<SizeSymbol> symbols;
  /// Sizes already stated (sizeExpr; an index has dimension -1): buffers
  /// are sized in program order, so a chain of ops reaches one of them in a
  /// few steps.
  llvm::DenseMap<std::pair<Value, int64_t>, AffineExpr> sizeCache;
  /// Whether the function's dim ops were checked (a constant dimension
  /// index out of range crashes upstream's value bounds), and the result.
  std::optional<bool> dimsChecked;
};

/// `expr` (symbols only, no dimensions) at the given symbol values, with
/// checked 64-bit arithmetic; std::nullopt on overflow, division by zero or
/// a negative result. Iterative: no recursion on the expression's depth.
std::optional<uint64_t> evaluateSizeExpr(AffineExpr expr,
                                         ArrayRef<uint64_t> symbolValues);
/// The same with the sign kept (no error for a negative result): the size
/// expression of an allocation that does not run for these values (under
/// an `scf.if`, say) may be negative.
std::optional<int64_t> evaluateAffineSymbols(AffineExpr expr,
                                             ArrayRef<int64_t> symbolValues);

/// Parses "B=64,S=1024" into `out` (names to values); an error message on
/// malformed input.
std::optional<std::string> parseSymbolValues(StringRef text,
                                             llvm::StringMap<uint64_t> &out);

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_ANALYSIS_SYMBOLICSIZES_H
