//===- PlanProof.h - Prove a run-time plan valid for every size -*- C++ -*-===//
//
// Part of memplan. Private to lib/Transforms (memplan-verify-plan).
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_LIB_TRANSFORMS_PLANPROOF_H
#define MEMPLAN_LIB_TRANSFORMS_PLANPROOF_H

#include "memplan/Analysis/Lifetimes.h"
#include "memplan/Analysis/SymbolicSizes.h"
#include "memplan/IR/MemplanOps.h"

#include <string>

namespace mlir {
namespace memplan {

/// Where dimension `d` of a shaped value comes from, through casts: a static
/// size, one of the function's size symbols (a dimension of an argument,
/// or an index argument), the index operand of the allocation, view,
/// tensor.empty or expand_shape that made it (or of a rank-keeping slice),
/// the product of dimensions of a collapse_shape's source, or nothing known
/// (`unknownAt`: the op it stopped at).
struct DimensionSource {
  enum Kind { Static, Symbol, Index, Product, Unknown } kind = Unknown;
  /// Static: the size; Symbol: the symbol's position in getSymbols().
  int64_t value = 0;
  /// Index: the value that sizes the dimension; Product: the shaped value
  /// whose dimensions `dims` multiply to it.
  Value index;
  SmallVector<int64_t> dims;
  Operation *unknownAt = nullptr;
};
/// How many collapse_shape products deep a dimension is followed (a
/// recursion, so a constant).
constexpr unsigned kMaxProductDepth = 64;
DimensionSource traceDimension(Value shaped, int64_t d,
                               const SymbolicSizes &sizes);

/// The alignment a memplan.view (its placement's) or memplan.dynamic_view
/// promises for its offset.
int64_t getViewAlignment(Operation *view);

struct PlanProof {
  bool proven = false;
  /// Why not, when not proven (for the remark).
  std::string why;
  /// Pairs of buffers live at the same time, each proven apart.
  uint64_t pairs = 0;
  /// Run-time choices between plans the proof covered (2^cases).
  unsigned choices = 0;
};

/// Tries to prove, from the function's index code alone, that every
/// memplan.view and memplan.dynamic_view of `arenas` is aligned, lies in its
/// arena, and shares no byte with a view live at the same time, for every
/// value of the function's size symbols (within their bounds). Sound and
/// incomplete (SymbolicProof.h): work is bounded by `workLimit`.
PlanProof provePlan(FunctionOpInterface func, ArrayRef<ArenaOp> arenas,
                    const FunctionLifetimes &lifetimes,
                    const SymbolicSizes &sizes, uint64_t workLimit);

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_LIB_TRANSFORMS_PLANPROOF_H
