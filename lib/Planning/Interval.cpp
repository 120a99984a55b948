//===- Interval.cpp - Half-open lifetimes and the lower bound -------------===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/Interval.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir::memplan;

LowerBound mlir::memplan::computeLowerBound(llvm::ArrayRef<LiveRange> ranges) {
  // One event per start (+size) and per end (-size). At equal steps, ends
  // come first: [a, b) and [b, c) never overlap.
  struct Event {
    int64_t step;
    bool isStart;
    uint64_t size;
  };
  llvm::SmallVector<Event> events;
  events.reserve(ranges.size() * 2);
  for (const LiveRange &r : ranges) {
    if (!r.live.isValid() || r.size == 0)
      continue;
    events.push_back({r.live.start, true, r.size});
    events.push_back({r.live.end, false, r.size});
  }
  llvm::sort(events, [](const Event &a, const Event &b) {
    if (a.step != b.step)
      return a.step < b.step;
    return !a.isStart && b.isStart;
  });
  LowerBound best;
  // 128 bits: live bytes past 2^64 cannot wrap; the peak saturates at
  // UINT64_MAX (callers bound their totals below 2^63 anyway).
  unsigned __int128 live = 0, peak = 0;
  for (size_t i = 0, e = events.size(); i < e;) {
    int64_t step = events[i].step;
    // Apply every event of this step before reading the level.
    for (; i < e && events[i].step == step; ++i)
      live = events[i].isStart ? live + events[i].size : live - events[i].size;
    if (live > peak) {
      peak = live;
      best.step = step;
    }
  }
  best.bytes = peak > UINT64_MAX ? UINT64_MAX : uint64_t(peak);
  return best;
}
