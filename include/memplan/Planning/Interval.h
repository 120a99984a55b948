//===- Interval.h - Half-open lifetimes and the lower bound -----*- C++ -*-===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//
//
// A buffer's lifetime is a half-open interval of program steps [start, end).
// The lower bound (LB) of any placement of a set of buffers is the largest
// number of bytes live at one step; no arena can be smaller.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_PLANNING_INTERVAL_H
#define MEMPLAN_PLANNING_INTERVAL_H

#include "llvm/ADT/ArrayRef.h"
#include <cstdint>

namespace mlir {
namespace memplan {

/// A half-open interval of steps [start, end). Valid when start < end.
struct Interval {
  int64_t start = 0;
  int64_t end = 0;

  bool isValid() const { return start < end; }
  /// True when the two intervals share at least one step.
  bool overlaps(const Interval &other) const {
    return start < other.end && other.start < end;
  }
  bool contains(int64_t step) const { return start <= step && step < end; }
  bool operator==(const Interval &o) const {
    return start == o.start && end == o.end;
  }
  bool operator!=(const Interval &o) const { return !(*this == o); }
};

/// A buffer that is live on `live` and occupies `size` bytes.
struct LiveRange {
  Interval live;
  uint64_t size = 0;
};

/// The peak of live bytes and the first step where it is reached.
struct LowerBound {
  uint64_t bytes = 0;
  int64_t step = 0;
};

/// Computes the lower bound by a sweep over start/end events in
/// O(n log n). With no ranges (or only empty ones), returns {0, 0}.
/// Ranges with start >= end are ignored. Sizes must not sum past 2^64 - 1.
LowerBound computeLowerBound(llvm::ArrayRef<LiveRange> ranges);

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_PLANNING_INTERVAL_H
