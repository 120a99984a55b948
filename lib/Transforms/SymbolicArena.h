//===- SymbolicArena.h - Arenas for dynamic shapes --------------*- C++ -*-===//
//
// Part of memplan. Internal to lib/Transforms (memplan-pack-arena).
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_LIB_TRANSFORMS_SYMBOLICARENA_H
#define MEMPLAN_LIB_TRANSFORMS_SYMBOLICARENA_H

#include "memplan/Analysis/Lifetimes.h"
#include "memplan/Analysis/SymbolicSizes.h"
#include "memplan/Planning/Packing.h"
#include "memplan/Planning/Report.h"
#include "memplan/Planning/Symbolic.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/StringMap.h"

#include <vector>

namespace mlir {
namespace memplan {

/// The alignment a planned allocation occupies its bytes at: the largest of
/// the pass's `alignment`, the allocation's own and its element's storage
/// size rounded up to a power of two.
uint64_t getBufferAlignment(memref::AllocOp alloc, uint64_t alignment);

/// Whether `op` was created by rematerialization (its location is the
/// `memplan.recompute` name).
bool isRecomputed(Operation *op);

/// The remat section of a function's report, from its `memplan.remat`.
std::optional<RematReport> readRematReport(FunctionOpInterface func);

struct SymbolicArenaConfig {
  SymbolicAlgorithm algorithm = SymbolicAlgorithm::Auto;
  /// Plan once, statically, at the bounds (XLA's way), with a run-time
  /// check that every buffer fits what was planned for it.
  bool bounded = false;
  uint64_t alignment = 64;
  PackOptions pack;
  /// Bounds by symbol name (the pass option), after `memplan.bounds`.
  llvm::StringMap<uint64_t> bounds;
  /// Points the report evaluates the plan at.
  std::vector<llvm::StringMap<uint64_t>> evalPoints;
};

/// Plans the candidate allocations of `func` when some of them have dynamic
/// shapes: `plannedBySpace[space]` are root indices of `lifetimes`, one
/// arena per entry of `spaces`; `bytesOfRoot` is each one's byte size over
/// the symbols of `sizes`. Appends one report per arena; fails with a
/// located error (a missing bound in bounded mode, a budget exceeded at the
/// bounds, a size that does not fit an index).
LogicalResult packSymbolicFunction(
    FunctionOpInterface func, const FunctionLifetimes &lifetimes,
    ArrayRef<Attribute> spaces,
    const DenseMap<Attribute, std::vector<size_t>> &plannedBySpace,
    const SymbolicSizes &sizes, const DenseMap<size_t, AffineExpr> &bytesOfRoot,
    const SymbolicArenaConfig &config, std::vector<ReportFunction> &reports);

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_LIB_TRANSFORMS_SYMBOLICARENA_H
