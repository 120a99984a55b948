//===- Symbolic.h - Placements valid for every buffer size ------*- C++ -*-===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//
//
// Packing when buffer sizes are known only at run time (dynamic shapes). A
// symbolic plan fixes, at compile time, which buffer sits above which; the
// offsets follow at run time from the actual sizes:
//
//   offset(i) = alignUp(max(0, max over j in below(i) of offset(j) + size(j)),
//                       alignment(i))
//   arena     = max over i of offset(i) + size(i)
//
// Whatever the sizes, two buffers whose lifetimes overlap do not share a
// byte as long as one of them reaches the other through `below` (sizes are
// never negative, so offsets only grow along `below`). Every algorithm here
// orders every such pair, so its plan is valid for every size
// (docs/Packing.md, "Symbolic sizes").
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_PLANNING_SYMBOLIC_H
#define MEMPLAN_PLANNING_SYMBOLIC_H

#include "memplan/Planning/Interval.h"
#include "memplan/Planning/Packing.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/CommandLine.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace memplan {

/// One buffer of unknown size.
struct SymbolicItem {
  Interval live;
  /// A power of two.
  uint64_t alignment = 1;
};

enum class SymbolicAlgorithm {
  /// tract's scheme: buffers with disjoint lifetimes share a partition, a
  /// partition is as large as its largest member, partitions lie end to end.
  Partitions,
  /// Pack at representative sizes (the bounds, or a sample point) and keep
  /// the order the packing gives every pair of buffers overlapping in time
  /// (memplan-pack-arena packs at 1/8 and 1/64 of those sizes too and keeps
  /// the smallest arena at run time).
  Ordered,
  /// Ordered and partitions; the smallest arena is chosen at run time, for
  /// the actual sizes.
  Auto,
};

llvm::StringRef stringifySymbolicAlgorithm(SymbolicAlgorithm algorithm);
/// The values of the `symbolic-algorithm` options.
llvm::cl::ValuesClass symbolicAlgorithmValues();

/// A placement decided without the sizes.
struct SymbolicPlan {
  /// below[i]: the items that item i is placed on top of.
  std::vector<std::vector<uint32_t>> below;
  /// Every item once, each after all of its `below` items.
  std::vector<uint32_t> order;
};

/// Offsets and arena for given sizes.
struct SymbolicPlacement {
  std::vector<uint64_t> offsets;
  uint64_t arena = 0;
};

/// Groups the items into partitions of pairwise disjoint lifetimes, first
/// fit in order of decreasing `sizes` (ties by index), and stacks the
/// partitions: every member of a partition lies on top of every member of
/// the previous one.
SymbolicPlan planPartitions(llvm::ArrayRef<SymbolicItem> items,
                            llvm::ArrayRef<uint64_t> sizes);

/// Packs the items at `sizes` with `options` (zero sizes count as one
/// byte), then puts each item on top of the items overlapping it in time
/// that the packing placed lower (ties by index). Items that a lower item
/// already reaches through `below` are dropped from `below` where that is
/// cheap to see (within a work bound; the plan is the same). At `sizes` the
/// plan's arena is at most the packing's.
SymbolicPlan planOrdered(llvm::ArrayRef<SymbolicItem> items,
                         llvm::ArrayRef<uint64_t> sizes,
                         const PackOptions &options);

/// The placement of `plan` for `sizes`; std::nullopt when an offset or the
/// arena overflows 64 bits.
std::optional<SymbolicPlacement>
evaluateSymbolicPlan(const SymbolicPlan &plan,
                     llvm::ArrayRef<SymbolicItem> items,
                     llvm::ArrayRef<uint64_t> sizes);

/// Checks that `plan` is well formed (indices in range, `order` a
/// topological order of `below`) and orders every pair of items whose
/// lifetimes overlap; returns a message naming the first problem, or
/// std::nullopt. Quadratic: for tests and small inputs.
std::optional<std::string>
checkSymbolicPlan(const SymbolicPlan &plan, llvm::ArrayRef<SymbolicItem> items);

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_PLANNING_SYMBOLIC_H
