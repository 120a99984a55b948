//===- Limits.h - Ranges every memplan front door enforces ------*- C++ -*-===//
//
// Part of memplan. IR-free: depends on the C++ library only.
//
//===----------------------------------------------------------------------===//
//
// The ranges shared by the tools, the passes and the planners, so that a
// value a front door accepts can never overflow inside a planner.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_PLANNING_LIMITS_H
#define MEMPLAN_PLANNING_LIMITS_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

namespace mlir {
namespace memplan {

/// The longest time limit a search accepts: 10^6 s (about 11.6 days). Larger
/// limits would overflow the clock arithmetic of a deadline.
constexpr double kMaxTimeLimitSeconds = 1e6;

/// An error message ("<value> is not ...") when `seconds` is not a time limit
/// memplan accepts (a finite number in (0, kMaxTimeLimitSeconds]);
/// std::nullopt when it is.
inline std::optional<std::string> checkTimeLimit(double seconds) {
  if (std::isfinite(seconds) && seconds > 0 && seconds <= kMaxTimeLimitSeconds)
    return std::nullopt;
  char value[32];
  std::snprintf(value, sizeof(value), "%g", seconds);
  return std::string(value) + " is not a number of seconds in (0, 1e6]";
}

/// An error message when a search would be left unbounded or its wall-clock
/// bound is out of range: `work` 0 means no work bound, `seconds` 0 no clock
/// (`option` and `workOption` name the two options in the messages);
/// std::nullopt when the bounds are usable.
/// The largest work limit: 10^18 units (centuries of search), far from
/// overflowing the work counter.
constexpr uint64_t kMaxWorkLimit = 1000000000000000000ull;

inline std::optional<std::string>
checkSearchBounds(uint64_t work, double seconds, const std::string &option,
                  const std::string &workOption = "work-limit") {
  if (work > kMaxWorkLimit)
    return workOption + " " + std::to_string(work) +
           " is more than 10^18 units";
  if (seconds != 0)
    if (std::optional<std::string> bad = checkTimeLimit(seconds))
      return option + " " + *bad;
  if (work == 0 && seconds == 0)
    return workOption + "=0 leaves the search unbounded: give a " + option +
           " with it";
  return std::nullopt;
}

/// The most bytes memplan plans for one arena or one training step: 2^63 - 1,
/// so that every size, offset and peak also fits a signed 64-bit index (the
/// extent of a memref).
constexpr uint64_t kMaxTotalBytes = uint64_t(INT64_MAX);

/// The largest total cost of a graph's nodes (each run once): 10^30, so that
/// schedules running nodes many times still have finite costs.
constexpr double kMaxTotalCost = 1e30;

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_PLANNING_LIMITS_H
