//===- Packing.cpp - Packing buffers into one arena -----------------------===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/Packing.h"
#include "memplan/Planning/Limits.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/thread.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <queue>
#include <random>
#include <set>

using namespace mlir::memplan;
using llvm::ArrayRef;

llvm::StringRef mlir::memplan::stringifyPackAlgorithm(PackAlgorithm algorithm) {
  switch (algorithm) {
  case PackAlgorithm::GreedySize:
    return "greedy-size";
  case PackAlgorithm::GreedyTime:
    return "greedy-time";
  case PackAlgorithm::FirstFitSize:
    return "first-fit-size";
  case PackAlgorithm::FirstFitStart:
    return "first-fit-start";
  case PackAlgorithm::Best:
    return "best";
  case PackAlgorithm::Exact:
    return "exact";
  }
  return "unknown";
}

llvm::cl::ValuesClass mlir::memplan::packAlgorithmValues() {
  auto value = [](PackAlgorithm a, llvm::StringRef help) {
    return llvm::cl::OptionEnumValue{stringifyPackAlgorithm(a),
                                     static_cast<int>(a), help};
  };
  return llvm::cl::ValuesClass(
      {value(PackAlgorithm::GreedySize, "size descending, best-fitting gap"),
       value(PackAlgorithm::GreedyTime,
             "start order, best fit over a free list"),
       value(PackAlgorithm::FirstFitSize,
             "size descending, lowest gap that fits"),
       value(PackAlgorithm::FirstFitStart, "start order, lowest gap that fits"),
       value(PackAlgorithm::Best,
             "greedy portfolio, then the canonical search (default)"),
       value(PackAlgorithm::Exact,
             "the canonical search on every segment, whatever its size")});
}

static uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

std::optional<std::string>
mlir::memplan::validatePackItems(ArrayRef<PackItem> items) {
  for (auto [i, item] : llvm::enumerate(items)) {
    if (!item.live.isValid())
      return "item " + std::to_string(i) + ": empty lifetime [" +
             std::to_string(item.live.start) + ", " +
             std::to_string(item.live.end) + ")";
    if (item.size == 0)
      return "item " + std::to_string(i) + ": size must be positive";
    if (item.alignment == 0 || !llvm::isPowerOf2_64(item.alignment))
      return "item " + std::to_string(i) + ": alignment " +
             std::to_string(item.alignment) + " is not a power of two";
  }
  // No placement rises above the sum of every item's size plus its
  // alignment padding: bounding the sum bounds every offset, arena and peak
  // computed on these items.
  uint64_t total = 0;
  for (auto [i, item] : llvm::enumerate(items)) {
    std::optional<uint64_t> padded =
        llvm::checkedAddUnsigned(item.size, item.alignment - 1);
    std::optional<uint64_t> next =
        padded ? llvm::checkedAddUnsigned(total, *padded) : std::nullopt;
    if (!next || *next > kMaxTotalBytes)
      return "item " + std::to_string(i) + ": the items' sizes (with their " +
             "alignment padding) total more than 2^63-1 bytes from here on; " +
             "offsets would not fit 64-bit signed arithmetic";
    total = *next;
  }
  return std::nullopt;
}

uint64_t mlir::memplan::packLowerBound(ArrayRef<PackItem> items) {
  std::vector<LiveRange> ranges;
  ranges.reserve(items.size());
  for (const PackItem &item : items)
    ranges.push_back({item.live, item.size});
  return computeLowerBound(ranges).bytes;
}

std::optional<std::string>
mlir::memplan::checkPacking(ArrayRef<PackItem> items,
                            ArrayRef<uint64_t> offsets, uint64_t arena) {
  if (offsets.size() != items.size())
    return "expected " + std::to_string(items.size()) + " offsets, got " +
           std::to_string(offsets.size());
  for (size_t i = 0; i < items.size(); ++i) {
    if (offsets[i] % items[i].alignment != 0)
      return "item " + std::to_string(i) + ": offset " +
             std::to_string(offsets[i]) +
             " is not a multiple of its alignment " +
             std::to_string(items[i].alignment);
    if (offsets[i] > arena || items[i].size > arena - offsets[i])
      return "item " + std::to_string(i) + " ends past the arena of " +
             std::to_string(arena) + " bytes";
  }
  if (std::optional<std::pair<size_t, size_t>> clash =
          findPackingClash(items, offsets)) {
    auto [j, i] = *clash;
    return "items " + std::to_string(j) + " and " + std::to_string(i) +
           " overlap in time and share bytes: [" + std::to_string(offsets[j]) +
           ", " + std::to_string(offsets[j] + items[j].size) + ") and [" +
           std::to_string(offsets[i]) + ", " +
           std::to_string(offsets[i] + items[i].size) + ")";
  }
  return std::nullopt;
}

std::optional<std::pair<size_t, size_t>>
mlir::memplan::findPackingClash(ArrayRef<PackItem> items,
                                ArrayRef<uint64_t> offsets) {
  // Sweep over time; the live set is ordered by offset, so a new buffer
  // only needs checking against its neighbours there.
  std::vector<size_t> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  // Ties by index: the same order (and the same clash named) with any
  // standard library's sort.
  llvm::sort(order, [&](size_t a, size_t b) {
    return std::make_pair(items[a].live.start, a) <
           std::make_pair(items[b].live.start, b);
  });
  std::set<std::pair<uint64_t, size_t>> live; // (offset, index)
  std::multimap<int64_t, size_t> byEnd;
  for (size_t i : order) {
    int64_t start = items[i].live.start;
    while (!byEnd.empty() && byEnd.begin()->first <= start) {
      size_t j = byEnd.begin()->second;
      live.erase({offsets[j], j});
      byEnd.erase(byEnd.begin());
    }
    auto next = live.lower_bound({offsets[i], 0});
    if (next != live.end() && next->first < offsets[i] + items[i].size)
      return std::make_pair(next->second, i);
    if (next != live.begin()) {
      auto prev = std::prev(next);
      if (prev->first + items[prev->second].size > offsets[i])
        return std::make_pair(prev->second, i);
    }
    live.insert({offsets[i], i});
    byEnd.insert({items[i].live.end, i});
  }
  return std::nullopt;
}

namespace {
using Clock = std::chrono::steady_clock;

/// What bounds the search: work units charged to one counter (the same
/// count on any machine) and, when asked for, the wall clock. A Budget is a
/// window on both; a share or a slice narrows it, and work done under it
/// counts against every enclosing window, as time does.
class Budget {
public:
  /// `workLimit` 0: no work bound; `seconds` 0: no clock (clamped to
  /// kMaxTimeLimitSeconds; NaN counts as none).
  Budget(uint64_t &counter, uint64_t workLimit, double seconds)
      : counter(&counter),
        endWork(workLimit ? addSaturating(counter, workLimit) : UINT64_MAX) {
    if (seconds > 0)
      endTime =
          Clock::now() + std::chrono::microseconds(static_cast<int64_t>(
                             std::min(seconds, kMaxTimeLimitSeconds) * 1e6));
  }

  void charge(uint64_t units) const {
    *counter += units;
    if (ticker && *counter >= ticker->next)
      ticker->fire(*counter);
  }

  /// Calls `fn` every `every` work units charged (through any share or
  /// slice of this budget).
  struct Ticker {
    uint64_t every;
    uint64_t next;
    std::function<void()> fn;
    /// The best arena of the segment in its first phase (0: none yet).
    uint64_t segmentArena = 0;
    void fire(uint64_t now) {
      next = now > UINT64_MAX - every ? UINT64_MAX : now + every;
      fn();
    }
  };
  void setTicker(Ticker *t) { ticker = t; }
  /// For progress: the segment in its first phase has reached `arena`.
  void noteArena(uint64_t arena) const {
    if (ticker)
      ticker->segmentArena = arena;
  }
  bool overWork() const { return *counter >= endWork; }
  /// Reads the clock: callers in hot loops ask every few iterations.
  bool overTime() const { return endTime && Clock::now() >= *endTime; }
  bool expired() const { return overWork() || overTime(); }

  /// `fraction` (in [0, 1]) of what is left of each bound.
  Budget share(double fraction) const {
    Budget b = *this;
    if (endWork != UINT64_MAX)
      b.endWork = std::min(
          endWork,
          *counter + static_cast<uint64_t>(std::clamp(fraction, 0.0, 1.0) *
                                           static_cast<double>(workLeft())));
    if (endTime)
      b.endTime = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     fraction * secondsLeft());
    return b;
  }
  /// At most `units` more work and `seconds` more time (each only where
  /// that bound exists).
  Budget slice(uint64_t units, double seconds) const {
    Budget b = *this;
    if (endWork != UINT64_MAX)
      b.endWork = std::min(endWork, addSaturating(*counter, units));
    if (endTime)
      b.endTime = std::min(
          *endTime,
          Clock::now() +
              std::chrono::duration_cast<Clock::duration>(std::min(
                  std::chrono::duration<double>(seconds), secondsLeft())));
    return b;
  }

private:
  static uint64_t addSaturating(uint64_t a, uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
  }
  uint64_t workLeft() const {
    return endWork > *counter ? endWork - *counter : 0;
  }
  std::chrono::duration<double> secondsLeft() const {
    return std::max(std::chrono::duration<double>(0),
                    std::chrono::duration<double>(*endTime - Clock::now()));
  }

  uint64_t *counter;
  uint64_t endWork;
  std::optional<Clock::time_point> endTime;
  Ticker *ticker = nullptr;
};

/// A static centered interval tree over a set of items, answering "which
/// items overlap [s, e)" in O(log n + answers).
class IntervalTree {
public:
  IntervalTree(ArrayRef<PackItem> items, ArrayRef<uint32_t> ids)
      : items(items) {
    std::vector<uint32_t> all(ids.begin(), ids.end());
    root = build(all);
  }

  template <typename Fn> void forEachOverlap(Interval q, Fn &&fn) const {
    query(root, q, fn);
  }

private:
  struct Node {
    int64_t center;
    std::vector<uint32_t> byStart; // ascending start
    std::vector<uint32_t> byEnd;   // descending end
    int left = -1, right = -1;
  };

  int build(std::vector<uint32_t> &ids) {
    if (ids.empty())
      return -1;
    std::vector<int64_t> points;
    points.reserve(ids.size());
    for (uint32_t id : ids)
      points.push_back(items[id].live.start);
    auto mid = points.begin() + points.size() / 2;
    std::nth_element(points.begin(), mid, points.end());
    int64_t center = *mid;
    std::vector<uint32_t> here, left, right;
    for (uint32_t id : ids) {
      const Interval &live = items[id].live;
      if (live.end <= center)
        left.push_back(id);
      else if (live.start > center)
        right.push_back(id);
      else
        here.push_back(id);
    }
    ids.clear();
    ids.shrink_to_fit();
    int index = nodes.size();
    nodes.push_back({center, here, here, -1, -1});
    llvm::sort(nodes[index].byStart, [&](uint32_t a, uint32_t b) {
      return std::make_pair(items[a].live.start, a) <
             std::make_pair(items[b].live.start, b);
    });
    llvm::sort(nodes[index].byEnd, [&](uint32_t a, uint32_t b) {
      return std::make_pair(items[a].live.end, b) >
             std::make_pair(items[b].live.end, a);
    });
    int l = build(left);
    int r = build(right);
    nodes[index].left = l;
    nodes[index].right = r;
    return index;
  }

  template <typename Fn> void query(int index, Interval q, Fn &fn) const {
    while (index >= 0) {
      const Node &node = nodes[index];
      if (q.end <= node.center) {
        for (uint32_t id : node.byStart) {
          if (items[id].live.start >= q.end)
            break;
          fn(id);
        }
        index = node.left;
      } else if (q.start > node.center) {
        for (uint32_t id : node.byEnd) {
          if (items[id].live.end <= q.start)
            break;
          fn(id);
        }
        index = node.right;
      } else {
        for (uint32_t id : node.byStart)
          fn(id);
        query(node.left, q, fn);
        index = node.right;
      }
    }
  }

  ArrayRef<PackItem> items;
  std::vector<Node> nodes;
  int root = -1;
};

/// The items of one independent time segment and how to place them.
struct Segment {
  ArrayRef<PackItem> items;
  std::vector<uint32_t> ids; // indices into items
  uint64_t lowerBound = 0;
  int64_t peakStep = 0; // the first step where the live bytes reach it
};

/// Which gap a greedy placer takes: the smallest that fits (lowest offset
/// on ties) or the lowest that fits.
enum class Fit { Best, First };

/// The offset for an item of `size` and `alignment` among `busy` (offset
/// ranges, sorted by start; they may overlap or touch): in the gap `fit`
/// picks, or on top of them.
uint64_t fitAmong(ArrayRef<std::pair<uint64_t, uint64_t>> busy, uint64_t size,
                  uint64_t alignment, Fit fit = Fit::Best) {
  uint64_t cursor = 0, bestOffset = UINT64_MAX, bestGap = UINT64_MAX;
  for (auto [lo, hi] : busy) {
    if (lo > cursor) {
      uint64_t at = alignUp(cursor, alignment);
      if (at + size <= lo && lo - cursor < bestGap) {
        bestGap = lo - cursor;
        bestOffset = at;
        if (fit == Fit::First)
          return at;
      }
    }
    cursor = std::max(cursor, hi);
  }
  return bestOffset == UINT64_MAX ? alignUp(cursor, alignment) : bestOffset;
}

/// The best-fitting offset for item `id` among the time-overlapping items
/// marked `placed` (fitAmong). `busy` is scratch space. Charges `budget`
/// (when given) one unit, five per time-overlapping item looked at (a visit
/// reads three arrays at scattered indices) and half of k log k for sorting
/// the k busy ranges: weighted so that a unit here takes about as long as a
/// unit of the canonical search (measured: docs/Packing.md).
uint64_t bestFitOffset(const Segment &seg, const IntervalTree &tree,
                       uint32_t id, ArrayRef<uint64_t> offsets,
                       ArrayRef<uint8_t> placed,
                       std::vector<std::pair<uint64_t, uint64_t>> &busy,
                       const Budget *budget) {
  const PackItem &item = seg.items[id];
  busy.clear();
  uint64_t visited = 0;
  tree.forEachOverlap(item.live, [&](uint32_t other) {
    ++visited;
    if (placed[other])
      busy.push_back({offsets[other], offsets[other] + seg.items[other].size});
  });
  if (budget)
    budget->charge(1 + 5 * visited +
                   busy.size() * llvm::Log2_64_Ceil(busy.size() + 1) / 2);
  llvm::sort(busy);
  return fitAmong(busy, item.size, item.alignment);
}

/// The busy offsets, by time, of the items a greedy placer has placed so far
/// (items are only added: placeInOrder). Time is cut at the segment's
/// distinct start times: two items overlap in time exactly when both live
/// at some start time (the later start), so item i covers the leaves
/// [first start >= its start, first start >= its end) of a segment tree over
/// those starts. An added item's offset range goes into `here` of the
/// canonical nodes of its leaves (it lives over the node's whole time) and
/// into `within` of those nodes and of every node on the leaf-to-root paths
/// of its first and last leaf (it lives at some time of the node). Each
/// node keeps the union of its ranges, coalesced. The items overlapping a
/// query are then exactly those in `within` of the query's canonical nodes
/// or in `here` of the nodes on its two paths (a strict ancestor of a
/// canonical node holds the query's first or last leaf; a node below a
/// canonical node of an item lies on that item's paths). A query reads
/// about 4 log n coalesced lists, which a dense packing keeps short, instead
/// of every overlapping item. Nothing recurses.
class BusyIndex {
public:
  using Run = std::pair<uint64_t, uint64_t>; // [lo, hi)

  explicit BusyIndex(const Segment &seg) : items(seg.items) {
    starts.reserve(seg.ids.size());
    for (uint32_t id : seg.ids)
      starts.push_back(items[id].live.start);
    llvm::sort(starts);
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    leaves = llvm::PowerOf2Ceil(std::max<size_t>(starts.size(), 1));
    here.resize(2 * leaves);
    within.resize(2 * leaves);
  }

  void clear() {
    for (auto &runs : here)
      runs.clear();
    for (auto &runs : within)
      runs.clear();
  }

  /// About how many nodes one query and one add walk: four paths.
  uint64_t nodesPerItem() const { return 4 * (llvm::Log2_64(leaves) + 1); }

  /// Records item `id` at [offset, offset + size).
  void add(uint32_t id, uint64_t offset) {
    Run run{offset, offset + items[id].size};
    auto [l, r] = leafRange(id);
    forEachCanonical(l, r, [&](size_t node) {
      insert(here[node], run);
      insert(within[node], run);
    });
    for (size_t node : {l + leaves, r - 1 + leaves})
      for (; node; node >>= 1)
        insert(within[node], run);
  }

  /// The offset for item `id` among the items added (fitAmong); `lists`
  /// counts the coalesced ranges read.
  uint64_t place(uint32_t id, Fit fit, uint64_t &lists) {
    auto [l, r] = leafRange(id);
    sources.clear();
    lists = 0;
    auto source = [&](const llvm::SmallVector<Run, 0> &runs) {
      if (!runs.empty()) {
        sources.push_back({runs.begin(), runs.end()});
        lists += runs.size();
      }
    };
    forEachCanonical(l, r, [&](size_t node) { source(within[node]); });
    for (size_t node : {l + leaves, r - 1 + leaves})
      for (; node; node >>= 1)
        source(here[node]);
    // Concatenate the sorted lists, then merge neighbours pairwise:
    // n log(lists) rather than n log n. Runs with equal starts may come in
    // any order: fitAmong takes the furthest end.
    auto byStart = [](const Run &a, const Run &b) { return a.first < b.first; };
    busy.clear();
    bounds.clear();
    for (const Source &src : sources) {
      bounds.push_back(busy.size());
      busy.insert(busy.end(), src.first, src.second);
    }
    bounds.push_back(busy.size());
    while (bounds.size() > 2) {
      scratch.resize(busy.size());
      size_t out = 0, k = 0;
      for (; k + 2 < bounds.size(); k += 2) {
        std::merge(busy.begin() + bounds[k], busy.begin() + bounds[k + 1],
                   busy.begin() + bounds[k + 1], busy.begin() + bounds[k + 2],
                   scratch.begin() + bounds[k], byStart);
        bounds[out++] = bounds[k];
      }
      if (k + 1 < bounds.size()) {
        std::copy(busy.begin() + bounds[k], busy.begin() + bounds[k + 1],
                  scratch.begin() + bounds[k]);
        bounds[out++] = bounds[k];
      }
      bounds[out++] = busy.size();
      bounds.resize(out);
      busy.swap(scratch);
    }
    return fitAmong(busy, items[id].size, items[id].alignment, fit);
  }

private:
  std::pair<size_t, size_t> leafRange(uint32_t id) const {
    const Interval &live = items[id].live;
    size_t l = llvm::lower_bound(starts, live.start) - starts.begin();
    size_t r = llvm::lower_bound(starts, live.end) - starts.begin();
    return {l, r}; // l < r: the item's own start is a leaf
  }

  /// The canonical nodes of leaves [l, r), bottom-up.
  template <typename Fn> void forEachCanonical(size_t l, size_t r, Fn fn) {
    for (l += leaves, r += leaves; l < r; l >>= 1, r >>= 1) {
      if (l & 1)
        fn(l++);
      if (r & 1)
        fn(--r);
    }
  }

  /// Adds `run` to the coalesced, sorted `runs`.
  static void insert(llvm::SmallVectorImpl<Run> &runs, Run run) {
    auto first = llvm::partition_point(
        runs, [&](const Run &r) { return r.second < run.first; });
    auto last = first;
    while (last != runs.end() && last->first <= run.second) {
      run.first = std::min(run.first, last->first);
      run.second = std::max(run.second, last->second);
      ++last;
    }
    if (first == last) {
      runs.insert(first, run);
      return;
    }
    *first = run;
    runs.erase(first + 1, last);
  }

  ArrayRef<PackItem> items;
  std::vector<int64_t> starts; // distinct, ascending: the leaves
  size_t leaves = 1;           // a power of two >= starts.size()
  std::vector<llvm::SmallVector<Run, 0>> here, within;
  using Source = std::pair<const Run *, const Run *>;
  std::vector<Source> sources;
  std::vector<Run> busy, scratch;
  std::vector<size_t> bounds; // where each list starts in busy, then its end
};

/// Work units per coalesced range a BusyIndex query reads and per node an
/// item's query and add walk: a unit of the greedy placer then takes about
/// as long as a unit of the canonical search (measured: docs/Packing.md).
constexpr uint64_t kListWeight = 16;

/// Places `order` one by one, each in the gap `fit` picks among the items of
/// `order` placed before it (BusyIndex::place; `index` is cleared first).
/// Charges `budget` (when given) one unit per item and kListWeight per
/// coalesced range read. Returns the arena, or nullopt when it runs past
/// `budget` or past `cutoff`.
std::optional<uint64_t> placeInOrder(BusyIndex &index, ArrayRef<PackItem> items,
                                     ArrayRef<uint32_t> order,
                                     std::vector<uint64_t> &offsets,
                                     const Budget *budget, uint64_t cutoff,
                                     Fit fit = Fit::Best) {
  index.clear();
  uint64_t arena = 0;
  size_t count = 0;
  for (uint32_t id : order) {
    if (budget &&
        (budget->overWork() || ((++count & 255) == 0 && budget->overTime())))
      return std::nullopt;
    uint64_t lists = 0;
    uint64_t at = index.place(id, fit, lists);
    if (budget)
      budget->charge(kListWeight * (lists + index.nodesPerItem()));
    offsets[id] = at;
    index.add(id, at);
    arena = std::max(arena, at + items[id].size);
    if (arena >= cutoff)
      return std::nullopt;
  }
  return arena;
}

/// The free space of a sweep below its top: coalesced holes, searchable by
/// offset and by size. Best fit: the smallest hole the item fits in (after
/// aligning), lowest offset among equal sizes; otherwise on top.
class FreeSpace {
public:
  uint64_t allocate(uint64_t size, uint64_t alignment) {
    for (auto it = bySize.lower_bound({size, 0}); it != bySize.end(); ++it) {
      uint64_t at = alignUp(it->second, alignment);
      if (at + size <= it->second + it->first) {
        take(it->second, it->first, at, size);
        return at;
      }
    }
    uint64_t at = alignUp(top, alignment);
    if (at > top)
      insert(top, at - top);
    top = at + size;
    return at;
  }

  void release(uint64_t offset, uint64_t size) {
    // Coalesce with neighbours, then merge into the top if it touches it.
    auto next = byOffset.lower_bound(offset);
    if (next != byOffset.end() && offset + size == next->first) {
      size += next->second;
      bySize.erase({next->second, next->first});
      next = byOffset.erase(next);
    }
    if (next != byOffset.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == offset) {
        offset = prev->first;
        size += prev->second;
        bySize.erase({prev->second, prev->first});
        byOffset.erase(prev);
      }
    }
    if (offset + size == top) {
      top = offset;
      return;
    }
    insert(offset, size);
  }

private:
  void insert(uint64_t offset, uint64_t size) {
    byOffset[offset] = size;
    bySize.insert({size, offset});
  }
  /// Takes [at, at + need) out of the hole [offset, offset + size).
  void take(uint64_t offset, uint64_t size, uint64_t at, uint64_t need) {
    bySize.erase({size, offset});
    byOffset.erase(offset);
    if (at > offset)
      insert(offset, at - offset);
    if (at + need < offset + size)
      insert(at + need, offset + size - (at + need));
  }

  std::map<uint64_t, uint64_t> byOffset;          // offset -> size
  std::set<std::pair<uint64_t, uint64_t>> bySize; // (size, offset)
  uint64_t top = 0;
};

/// A sweep over time, forward or (mirrored) backward: item [s, e) lives
/// over times s..e-1, which mirrored are -(e-1)..-s.
struct SweepTime {
  ArrayRef<PackItem> items;
  bool mirrored;
  int64_t start(uint32_t i) const {
    return mirrored ? 1 - items[i].live.end : items[i].live.start;
  }
  int64_t end(uint32_t i) const {
    return mirrored ? 1 - items[i].live.start : items[i].live.end;
  }
};

/// Places `order` (non-decreasing sweep starts, except that a leading group
/// of items all live at one moment may come in any order) by best fit over
/// the free space, releasing each item once the sweep passes its end: at
/// every step the placed items that overlap the next one in time are
/// exactly the live ones. O(n log n). Returns the arena.
uint64_t sweepInOrder(const SweepTime &time, ArrayRef<uint32_t> order,
                      std::vector<uint64_t> &offsets) {
  FreeSpace space;
  std::priority_queue<std::pair<int64_t, uint32_t>,
                      std::vector<std::pair<int64_t, uint32_t>>,
                      std::greater<>>
      ending; // (sweep end, id)
  uint64_t arena = 0;
  for (uint32_t id : order) {
    const PackItem &item = time.items[id];
    while (!ending.empty() && ending.top().first <= time.start(id)) {
      uint32_t done = ending.top().second;
      ending.pop();
      space.release(offsets[done], time.items[done].size);
    }
    uint64_t at = space.allocate(item.size, item.alignment);
    offsets[id] = at;
    arena = std::max(arena, at + item.size);
    ending.push({time.end(id), id});
  }
  return arena;
}

/// Sweep order: by sweep start; at equal starts the longest-lived first
/// (so it sits lower, as in a stack) when `longestFirst`, then the largest.
void sortForSweep(const SweepTime &time, std::vector<uint32_t> &order,
                  bool longestFirst) {
  llvm::sort(order, [&](uint32_t a, uint32_t b) {
    if (time.start(a) != time.start(b))
      return time.start(a) < time.start(b);
    if (longestFirst && time.end(a) != time.end(b))
      return time.end(a) > time.end(b);
    if (time.items[a].size != time.items[b].size)
      return time.items[a].size > time.items[b].size;
    return a < b;
  });
}

/// Start order, best fit (the greedy-time baseline).
uint64_t sweepStartOrder(const Segment &seg, std::vector<uint64_t> &offsets,
                         bool longestFirst = false) {
  SweepTime time{seg.items, /*mirrored=*/false};
  std::vector<uint32_t> order(seg.ids);
  sortForSweep(time, order, longestFirst);
  return sweepInOrder(time, order, offsets);
}

/// The peak split: the items live at time `peak` are stacked from offset 0
/// (earliest start first, then latest end: nested lifetimes stay nested, so
/// no holes open inside the stack as time moves away from the peak); the
/// items after the peak are swept forward from that stack and those before
/// it backward. The two sides never overlap in time, so they are placed
/// independently. At the peak itself the arena is the stack: the live
/// bytes there (up to alignment padding). O(n log n).
uint64_t sweepFromPeak(const Segment &seg, int64_t peak,
                       std::vector<uint64_t> &offsets) {
  const auto &items = seg.items;
  std::vector<uint32_t> stack, after, before;
  for (uint32_t id : seg.ids) {
    const Interval &live = items[id].live;
    if (live.end <= peak)
      before.push_back(id);
    else if (live.start > peak)
      after.push_back(id);
    else
      stack.push_back(id);
  }
  llvm::sort(stack, [&](uint32_t a, uint32_t b) {
    return std::make_tuple(items[a].live.start, -items[a].live.end,
                           -static_cast<int64_t>(items[a].size), a) <
           std::make_tuple(items[b].live.start, -items[b].live.end,
                           -static_cast<int64_t>(items[b].size), b);
  });
  uint64_t arena = 0;
  for (bool mirrored : {false, true}) {
    SweepTime time{items, mirrored};
    std::vector<uint32_t> &side = mirrored ? before : after;
    sortForSweep(time, side, /*longestFirst=*/true);
    std::vector<uint32_t> order(stack);
    order.insert(order.end(), side.begin(), side.end());
    // Both sweeps place the stack first with the same allocator, so they
    // give its items the same offsets.
    arena = std::max(arena, sweepInOrder(time, order, offsets));
  }
  return arena;
}

/// Sort keys for the greedy orders tried by Best.
enum class OrderKind { Size, Area, Duration, Start, Random };

std::vector<uint32_t> makeOrder(const Segment &seg, OrderKind kind,
                                std::mt19937_64 *rng) {
  std::vector<uint32_t> order(seg.ids);
  const auto &items = seg.items;
  auto duration = [&](uint32_t i) {
    return static_cast<uint64_t>(items[i].live.end - items[i].live.start);
  };
  auto byKey = [&](auto key) {
    llvm::stable_sort(order, [&](uint32_t a, uint32_t b) {
      auto ka = key(a), kb = key(b);
      if (ka != kb)
        return ka > kb;
      return a < b;
    });
  };
  switch (kind) {
  case OrderKind::Size:
    byKey(
        [&](uint32_t i) { return std::make_pair(items[i].size, duration(i)); });
    break;
  case OrderKind::Area:
    byKey([&](uint32_t i) {
      return static_cast<double>(items[i].size) *
             static_cast<double>(duration(i));
    });
    break;
  case OrderKind::Duration:
    byKey(
        [&](uint32_t i) { return std::make_pair(duration(i), items[i].size); });
    break;
  case OrderKind::Start:
    llvm::stable_sort(order, [&](uint32_t a, uint32_t b) {
      return items[a].live.start < items[b].live.start;
    });
    break;
  case OrderKind::Random: {
    // Size order with multiplicative noise: keeps big buffers early.
    // The noise in [0.5, 1.5) from the top 53 bits of mt19937_64 (fully
    // specified by the standard), not a std:: distribution (whose output
    // differs between standard libraries): the same on any machine.
    std::vector<double> key(items.size());
    for (uint32_t i : order) {
      double noise = 0.5 + static_cast<double>((*rng)() >> 11) * 0x1p-53;
      key[i] = static_cast<double>(items[i].size) * noise;
    }
    llvm::stable_sort(order,
                      [&](uint32_t a, uint32_t b) { return key[a] > key[b]; });
    break;
  }
  }
  return order;
}

/// What the canonical search needs about one segment, computed once and
/// shared by every ordering and capacity tried on it. Time is cut into
/// sections between event points; item i lives in sections [secLo, secHi).
struct SearchProblem {
  explicit SearchProblem(const Segment &seg);

  const PackItem &item(uint32_t local) const { return items[global[local]]; }

  ArrayRef<PackItem> items;
  std::vector<uint32_t> global; // local id -> index into items
  std::vector<uint32_t> secLo, secHi;
  std::vector<std::vector<uint32_t>> inSection; // local ids live there
  std::vector<std::vector<uint32_t>> overlaps;  // time-overlapping local ids
  std::vector<uint64_t> sectionBytes;           // live bytes per section
  std::vector<uint32_t> crossing; // per boundary s|s+1: items live across it
  /// Set (and nothing else built) when the overlap pairs or the section
  /// memberships would exceed kMaxSearchEntries: no search on this segment.
  bool tooLarge = false;
  /// The work units building it took: items, memberships and pairs.
  uint64_t buildWork = 0;
};

/// Segments needing more time-overlapping pairs or section memberships than
/// this are not searched (the lists would take too much memory).
constexpr size_t kMaxSearchEntries = size_t(1) << 22;

SearchProblem::SearchProblem(const Segment &seg)
    : items(seg.items), global(seg.ids) {
  size_t n = global.size();
  std::vector<int64_t> points;
  points.reserve(2 * n);
  for (uint32_t id : global) {
    points.push_back(items[id].live.start);
    points.push_back(items[id].live.end);
  }
  llvm::sort(points);
  points.erase(std::unique(points.begin(), points.end()), points.end());
  size_t sections = points.size() - 1;
  secLo.resize(n);
  secHi.resize(n);
  // Count first: memberships, and overlapping pairs as, in start order, the
  // items started before and not yet ended (a difference of two counts).
  std::vector<uint32_t> ends(n);
  size_t memberships = 0, pairs = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const Interval &live = item(i).live;
    secLo[i] = llvm::lower_bound(points, live.start) - points.begin();
    secHi[i] = llvm::lower_bound(points, live.end) - points.begin();
    memberships += secHi[i] - secLo[i];
    ends[i] = secHi[i];
  }
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  llvm::sort(order, [&](uint32_t a, uint32_t b) {
    return std::make_pair(secLo[a], a) < std::make_pair(secLo[b], b);
  });
  llvm::sort(ends);
  for (auto [k, i] : llvm::enumerate(order))
    pairs += k - (llvm::upper_bound(ends, secLo[i]) - ends.begin());
  buildWork = n + memberships + pairs;
  if (memberships > kMaxSearchEntries || pairs > kMaxSearchEntries) {
    tooLarge = true;
    return;
  }
  inSection.assign(sections, {});
  sectionBytes.assign(sections, 0);
  crossing.assign(sections, 0);
  overlaps.assign(n, {});
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t s = secLo[i]; s + 1 < secHi[i]; ++s)
      ++crossing[s];
    for (uint32_t s = secLo[i]; s < secHi[i]; ++s) {
      inSection[s].push_back(i);
      sectionBytes[s] += item(i).size;
    }
  }
  // Two items overlap in time iff one starts inside the other: a sweep in
  // start order over the live set.
  std::vector<uint32_t> live;
  for (uint32_t i : order) {
    llvm::erase_if(live, [&](uint32_t j) { return secHi[j] <= secLo[i]; });
    for (uint32_t j : live) {
      overlaps[i].push_back(j);
      overlaps[j].push_back(i);
    }
    live.push_back(i);
  }
}

/// Static orders for the canonical search (ranks break ties between items
/// at the same minimum offset): each letter is a key, compared in turn,
/// larger first — T the largest bytes still to place among the sections the
/// item lives in, W its lifetime, C the number of sections it lives in, A
/// its area (size x lifetime). Chosen by measurement on MiniMalloc's
/// challenging suite (docs/benchmarks.md); MiniMalloc's own are WAT, TAW, TWA.
constexpr const char *kPreorders[] = {"TWA", "TCA", "TAW"};

/// Orders `items` by `keys`, with T computed from `sectionBytes`.
std::vector<uint32_t> makePreorder(const SearchProblem &p, const char *keys,
                                   ArrayRef<uint32_t> items,
                                   ArrayRef<uint64_t> sectionBytes) {
  auto total = [&](uint32_t i) {
    uint64_t t = 0;
    for (uint32_t s = p.secLo[i]; s < p.secHi[i]; ++s)
      t = std::max(t, sectionBytes[s]);
    return t;
  };
  auto key = [&](uint32_t i, char c) -> double {
    switch (c) {
    case 'T':
      return total(i);
    case 'W':
      return p.item(i).live.end - p.item(i).live.start;
    case 'A':
      return static_cast<double>(p.item(i).size) *
             static_cast<double>(p.item(i).live.end - p.item(i).live.start);
    default: // 'C'
      return p.secHi[i] - p.secLo[i];
    }
  };
  std::vector<uint32_t> order(items.begin(), items.end());
  llvm::stable_sort(order, [&](uint32_t a, uint32_t b) {
    for (const char *c = keys; *c; ++c) {
      double ka = key(a, *c), kb = key(b, *c);
      if (ka != kb)
        return ka > kb;
    }
    return false;
  });
  return order;
}

/// The deepest nesting of the canonical search (one level per placement on
/// the current path): past it the search stops without a proof. Segments
/// with more items than this cannot be searched to the end.
constexpr uint32_t kMaxSearchDepth = 1 << 15;

/// The stack Best and Exact run on (a thread of their own): enough for
/// kMaxSearchDepth levels (about 1 KB each; 4 KB under ASan) whatever the
/// caller's stack.
constexpr unsigned kSearchStackBytes = 256u << 20;

/// Depth-first search over canonical packings, deciding whether everything
/// fits under a capacity (the published design of MiniMalloc — Moffitt,
/// ASPLOS'23 — implemented here from its description, with two additions:
/// stranded items and the incremental section lows). Any packing can be pushed
/// down until every item rests on an item below it that it overlaps in time (or
/// on 0), at the first offset its alignment allows. Listing the items of such a
/// packing by (offset, rank in a fixed order) gives a sequence in which each
/// item sits exactly at its "minimum offset" — the aligned top of the items
/// before it that it overlaps. So the search places, at each step, one unplaced
/// item at its minimum offset, with (offset, rank) increasing along the path;
/// every packing that fits has such a path. Pruning, each sound for some
/// packing that fits whenever one does:
/// - section bound: in each time section, the items still to place sit at or
///   above max(section floor, last offset); with their bytes they must fit
///   under the capacity. A section's floor is the top of the last item placed
///   there, raised to the lowest minimum offset of its unplaced items;
/// - dominance: an item whose minimum offset is at or above the lowest
///   minimum top (offset + size) of the unplaced items is not placed next:
///   that item would fit entirely below it (moving it there only lowers
///   offsets);
/// - an item below the last placement with no unplaced item overlapping it
///   can never be placed: the node fails. So when an item with no unplaced
///   item overlapping it fails, its later siblings fail too;
/// - decomposition: once every item crossing a section boundary is placed,
///   the two sides no longer interact: each is searched on its own (with its
///   own canonical order) and the node fails as soon as one side does,
///   instead of retrying one side's choices for the other's failure.
class CanonicalSearch {
public:
  /// TooDeep: stopped at kMaxSearchDepth (more nodes would not help).
  enum class Status { Found, Exhausted, Stopped, TooDeep };

  CanonicalSearch(const SearchProblem &problem, const char *keys,
                  uint64_t capacity, const Budget &budget, uint64_t nodeLimit,
                  std::vector<uint64_t> &offsetsOut);

  Status run();
  /// The arena of the packing found, or UINT64_MAX.
  uint64_t getArena() const { return arena; }

private:
  static constexpr uint64_t kUnplaced = UINT64_MAX;
  struct Candidate {
    uint64_t offset;
    uint32_t rank, id;
  };
  /// Sections [begin, end) and the unplaced items living only there.
  struct Part {
    uint32_t begin, end;
    std::vector<uint32_t> items;
  };

  /// Ranks the part's items afresh (T from the bytes still to place) and
  /// searches it.
  bool solve(const Part &part) {
    std::vector<uint32_t> order =
        makePreorder(p, keys, part.items, unplacedBytes);
    llvm::SmallVector<uint32_t, 64> saved;
    for (auto [r, i] : llvm::enumerate(order)) {
      saved.push_back(rank[i]);
      rank[i] = r;
    }
    bool done = dfs(part, 0, 0);
    for (auto [k, i] : llvm::enumerate(order))
      rank[i] = saved[k];
    return done;
  }
  bool dfs(const Part &part, uint64_t lastOffset, uint32_t lastRank);
  bool solveSplit(const Part &part, ArrayRef<uint32_t> cuts);
  void record();

  const SearchProblem &p;
  const char *keys;
  uint64_t cap;
  const Budget &budget;
  uint64_t nodeLimit;
  std::vector<uint64_t> &offsetsOut;

  std::vector<uint32_t> rank;
  std::vector<uint64_t> minOffset, placedAt, floor, unplacedBytes;
  /// minOffset for unplaced items, UINT64_MAX for placed ones: the section
  /// floor scan reads one array.
  std::vector<uint64_t> lowOrMax;
  std::vector<uint32_t> unplacedOverlaps; // per item
  std::vector<uint32_t> crossing; // per boundary s|s+1: unplaced items across
  // Undo logs shared by all depths: (index, old value).
  std::vector<std::pair<uint32_t, uint64_t>> offsetLog, floorLog;
  /// Per section: the lowest minOffset of its unplaced items (UINT64_MAX
  /// when none) and how many sit there, kept up to date with an undo log;
  /// a section is rescanned only when the last of them rises.
  std::vector<uint64_t> low;
  std::vector<uint32_t> lowCount;
  struct LowChange {
    uint32_t section, count;
    uint64_t low;
  };
  std::vector<LowChange> lowLog;
  /// The placement that last logged each section's `low` (logged once per
  /// placement: undo restores the first value).
  std::vector<uint64_t> lowLoggedBy;
  uint64_t placements = 0;
  std::vector<uint8_t> stale; // sections whose `low` needs a rescan
  uint64_t nodes = 0, arena = UINT64_MAX;
  bool stopped = false;
  /// Nesting of dfs/solve: bounded by kMaxSearchDepth (the search stops,
  /// unproven, past it) so the stack it needs is bounded.
  uint32_t depth = 0;
  bool tooDeep = false;
  /// The candidates of every open dfs frame, innermost last (a frame keeps
  /// only its base index: its own stack frame stays small).
  std::vector<Candidate> candidateStack;
  /// Scratch of one placement, consumed before the next level starts.
  std::vector<uint32_t> staleSections;
};

CanonicalSearch::CanonicalSearch(const SearchProblem &problem, const char *keys,
                                 uint64_t capacity, const Budget &budget,
                                 uint64_t nodeLimit,
                                 std::vector<uint64_t> &offsetsOut)
    : p(problem), keys(keys), cap(capacity), budget(budget),
      nodeLimit(nodeLimit), offsetsOut(offsetsOut) {
  size_t n = p.global.size(), sections = p.inSection.size();
  rank.resize(n);
  minOffset.assign(n, 0);
  lowOrMax.assign(n, 0);
  placedAt.assign(n, kUnplaced);
  floor.assign(sections, 0);
  unplacedBytes = p.sectionBytes;
  unplacedOverlaps.resize(n);
  crossing = p.crossing;
  for (uint32_t i = 0; i < n; ++i)
    unplacedOverlaps[i] = p.overlaps[i].size();
  stale.assign(sections, 0);
  low.assign(sections, UINT64_MAX);
  lowCount.assign(sections, 0);
  lowLoggedBy.assign(sections, UINT64_MAX);
  for (uint32_t s = 0; s < sections; ++s)
    if (!p.inSection[s].empty()) {
      low[s] = 0;
      lowCount[s] = p.inSection[s].size();
    }
  budget.charge(n + sections);
}

CanonicalSearch::Status CanonicalSearch::run() {
  for (uint64_t bytes : unplacedBytes)
    if (bytes > cap)
      return Status::Exhausted;
  Part all{0, static_cast<uint32_t>(floor.size()), {}};
  all.items.resize(placedAt.size());
  std::iota(all.items.begin(), all.items.end(), 0);
  if (solve(all)) {
    arena = 0;
    for (uint32_t id : p.global)
      arena = std::max(arena, offsetsOut[id] + p.items[id].size);
    return Status::Found;
  }
  if (tooDeep)
    return Status::TooDeep;
  return stopped ? Status::Stopped : Status::Exhausted;
}

void CanonicalSearch::record() {
  for (uint32_t i = 0; i < placedAt.size(); ++i)
    if (placedAt[i] != kUnplaced)
      offsetsOut[p.global[i]] = placedAt[i];
}

bool CanonicalSearch::solveSplit(const Part &part, ArrayRef<uint32_t> cuts) {
  // cuts: boundaries s (between s and s+1) inside the part, ascending.
  uint32_t begin = part.begin;
  for (size_t k = 0; k <= cuts.size(); ++k) {
    uint32_t end = k < cuts.size() ? cuts[k] + 1 : part.end;
    Part sub{begin, end, {}};
    for (uint32_t i : part.items)
      if (placedAt[i] == kUnplaced && p.secLo[i] >= begin && p.secHi[i] <= end)
        sub.items.push_back(i);
    begin = end;
    if (!sub.items.empty() && !solve(sub))
      return false;
  }
  record();
  return true;
}

/// Returns true when the part was completed (offsets recorded).
bool CanonicalSearch::dfs(const Part &part, uint64_t lastOffset,
                          uint32_t lastRank) {
  // The work bound at every node; the clock (when there is one) every 16:
  // a node whose candidates mostly fail the section pre-check costs up to
  // ~0.3 ms on 400 items (every 256 nodes let J of MiniMalloc's suite
  // overrun a 1 s limit by up to 110 ms).
  tooDeep |= depth >= kMaxSearchDepth;
  if (++nodes > nodeLimit || budget.overWork() ||
      ((nodes & 15) == 0 && budget.overTime()) || tooDeep)
    stopped = true;
  if (stopped)
    return false;
  // Work: one unit per item of the part scanned below (twice), and per
  // candidate tried the sections and neighbours it touches.
  budget.charge(part.items.size());
  struct Nest {
    uint32_t &depth;
    explicit Nest(uint32_t &depth) : depth(depth) { ++depth; }
    ~Nest() { --depth; }
  } nest(depth);
  uint64_t minTop = UINT64_MAX;
  bool any = false;
  for (uint32_t i : part.items) {
    if (placedAt[i] != kUnplaced)
      continue;
    any = true;
    // Below the last placement, an item can only rise by landing on an
    // item still to place; with none left overlapping it, it is stranded.
    if ((minOffset[i] < lastOffset ||
         (minOffset[i] == lastOffset && rank[i] < lastRank)) &&
        unplacedOverlaps[i] == 0)
      return false;
    minTop = std::min(minTop, minOffset[i] + p.item(i).size);
  }
  if (!any) {
    record();
    return true;
  }
  // Only canonical items below minTop are tried (dominance).
  const size_t base = candidateStack.size();
  struct Truncate {
    std::vector<Candidate> &stack;
    size_t base;
    ~Truncate() { stack.resize(base); }
  } truncate{candidateStack, base};
  for (uint32_t i : part.items)
    if (placedAt[i] == kUnplaced && minOffset[i] < minTop &&
        (minOffset[i] > lastOffset ||
         (minOffset[i] == lastOffset && rank[i] >= lastRank)))
      candidateStack.push_back({minOffset[i], rank[i], i});
  // The section bound at the parent holds for every section; a child only
  // changes the sections it touches, and the monotone floor, checked once
  // here against the largest unplaced bytes of the part.
  uint64_t maxUnplaced = 0;
  for (uint32_t s = part.begin; s < part.end; ++s)
    maxUnplaced = std::max(maxUnplaced, unplacedBytes[s]);
  std::sort(candidateStack.begin() + base, candidateStack.end(),
            [](const Candidate &a, const Candidate &b) {
              return std::tie(a.offset, a.rank) < std::tie(b.offset, b.rank);
            });
  const size_t end = candidateStack.size();
  llvm::SmallVector<uint32_t, 4> cuts;
  for (size_t k = base; k < end; ++k) {
    // A copy: deeper levels grow the stack (and may move it).
    const Candidate c = candidateStack[k];
    const uint32_t i = c.id;
    const uint64_t top = c.offset + p.item(i).size;
    if (top > cap)
      continue;
    // Cheap pre-checks of the section bound after placing i: its own
    // sections get floor `top`; every section gets at least c.offset.
    bool fit = true;
    budget.charge(1 + p.secHi[i] - p.secLo[i]);
    for (uint32_t s = p.secLo[i]; s < p.secHi[i] && fit; ++s)
      fit = c.offset + unplacedBytes[s] <= cap;
    if (fit && c.offset + maxUnplaced > cap) {
      budget.charge(part.end - part.begin);
      for (uint32_t s = part.begin; s < part.end && fit; ++s)
        fit = (s >= p.secLo[i] && s < p.secHi[i]) ||
              c.offset + unplacedBytes[s] <= cap;
    }
    if (!fit)
      continue;
    budget.charge(p.overlaps[i].size());
    placedAt[i] = c.offset;
    lowOrMax[i] = UINT64_MAX;
    size_t offsetMark = offsetLog.size(), floorMark = floorLog.size(),
           lowMark = lowLog.size();
    const uint64_t placement = placements++;
    bool hatless = true;
    staleSections.clear();
    // An item of section s leaves minOffset `old`.
    auto markStale = [&](uint32_t s, uint64_t old) {
      if (stale[s] || low[s] != old)
        return;
      if (lowLoggedBy[s] != placement) {
        lowLoggedBy[s] = placement;
        lowLog.push_back({s, lowCount[s], low[s]});
      }
      if (--lowCount[s] == 0) {
        stale[s] = 1;
        staleSections.push_back(s);
      }
    };
    for (uint32_t j : p.overlaps[i]) {
      if (placedAt[j] != kUnplaced)
        continue;
      hatless = false;
      --unplacedOverlaps[j];
      uint64_t at = alignUp(top, p.item(j).alignment);
      if (at <= minOffset[j])
        continue;
      offsetLog.push_back({j, minOffset[j]});
      for (uint32_t s = p.secLo[j]; s < p.secHi[j]; ++s)
        markStale(s, minOffset[j]);
      minOffset[j] = lowOrMax[j] = at;
    }
    cuts.clear();
    for (uint32_t s = p.secLo[i]; s < p.secHi[i]; ++s) {
      markStale(s, c.offset);
      floorLog.push_back({s, floor[s]});
      floor[s] = top;
      unplacedBytes[s] -= p.item(i).size;
      if (s + 1 < p.secHi[i] && --crossing[s] == 0)
        cuts.push_back(s);
    }
    // A section's floor is at least the lowest minimum offset there.
    for (uint32_t s : staleSections) {
      budget.charge(p.inSection[s].size());
      stale[s] = 0;
      uint64_t lowest = UINT64_MAX;
      uint32_t count = 0;
      for (uint32_t j : p.inSection[s]) {
        uint64_t v = lowOrMax[j];
        count = v < lowest ? 1 : count + (v == lowest);
        lowest = std::min(lowest, v);
      }
      low[s] = lowest;
      lowCount[s] = count;
    }
    auto raiseFloor = [&](uint32_t s) {
      if (low[s] != UINT64_MAX && low[s] > floor[s]) {
        floorLog.push_back({s, floor[s]});
        floor[s] = low[s];
      }
    };
    // Invariant: floor >= low everywhere; only these two changed.
    for (uint32_t s = p.secLo[i]; s < p.secHi[i]; ++s)
      raiseFloor(s);
    for (uint32_t s : staleSections)
      raiseFloor(s);
    bool done = false;
    for (size_t k = floorMark; k < floorLog.size() && fit; ++k) {
      uint32_t s = floorLog[k].first;
      fit = floor[s] + unplacedBytes[s] <= cap;
    }
    if (fit)
      done =
          cuts.empty() ? dfs(part, c.offset, c.rank) : solveSplit(part, cuts);
    while (floorLog.size() > floorMark) {
      floor[floorLog.back().first] = floorLog.back().second;
      floorLog.pop_back();
    }
    while (lowLog.size() > lowMark) {
      const LowChange &change = lowLog.back();
      low[change.section] = change.low;
      lowCount[change.section] = change.count;
      lowLog.pop_back();
    }
    for (uint32_t s = p.secLo[i]; s < p.secHi[i]; ++s) {
      unplacedBytes[s] += p.item(i).size;
      if (s + 1 < p.secHi[i])
        ++crossing[s];
    }
    for (uint32_t j : p.overlaps[i])
      if (placedAt[j] == kUnplaced)
        ++unplacedOverlaps[j];
    while (offsetLog.size() > offsetMark) {
      auto [j, old] = offsetLog.back();
      minOffset[j] = lowOrMax[j] = old;
      offsetLog.pop_back();
    }
    placedAt[i] = kUnplaced;
    lowOrMax[i] = minOffset[i];
    if (done || stopped)
      return done;
    if (hatless)
      break; // every later sibling would strand it
  }
  return false;
}

/// Splits items into segments that no lifetime crosses.
std::vector<Segment> splitSegments(ArrayRef<PackItem> items) {
  std::vector<uint32_t> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  // Ties by index: every later order (stable sorts) inherits this one, so it
  // must not depend on the standard library's sort.
  llvm::sort(order, [&](uint32_t a, uint32_t b) {
    return std::make_pair(items[a].live.start, a) <
           std::make_pair(items[b].live.start, b);
  });
  std::vector<Segment> segments;
  int64_t maxEnd = INT64_MIN;
  for (uint32_t id : order) {
    if (segments.empty() || items[id].live.start >= maxEnd) {
      segments.push_back(Segment{items, {}, 0});
    }
    segments.back().ids.push_back(id);
    maxEnd = std::max(maxEnd, items[id].live.end);
  }
  for (Segment &seg : segments) {
    std::vector<LiveRange> ranges;
    ranges.reserve(seg.ids.size());
    for (uint32_t id : seg.ids)
      ranges.push_back({items[id].live, items[id].size});
    LowerBound bound = computeLowerBound(ranges);
    seg.lowerBound = bound.bytes;
    seg.peakStep = bound.step;
  }
  return segments;
}

/// Work units between two PackOptions::progress calls (about 0.03 s).
constexpr uint64_t kProgressWork = uint64_t(1) << 24;

/// Random orders tried without improvement before Best gives up early.
constexpr unsigned kMaxStall = 256;

/// The greedy phase for one segment: the peak split, both start-order
/// sweeps, the greedy placer over six rules (by size with first fit; by size,
/// size x lifetime, lifetime and start with best fit; by start with first
/// fit), then (when `randomize`) random size orders until the budget, the
/// target or a stall. Returns the arena; offsets filled. The sweeps are
/// charged one unit per item.
uint64_t packGreedy(const Segment &seg, std::vector<uint64_t> &offsets,
                    const Budget &budget, uint64_t target, uint64_t seed,
                    bool randomize) {
  // The peak split first: on training traces (nested activations around
  // one peak) it reaches the bound in one O(n log n) pass.
  uint64_t best = sweepFromPeak(seg, seg.peakStep, offsets);
  budget.charge(seg.ids.size());
  if (best <= target)
    return best;
  std::vector<uint64_t> trial(offsets.size());
  budget.noteArena(best);
  auto keep = [&](uint64_t arena) {
    best = arena;
    budget.noteArena(arena);
    for (uint32_t id : seg.ids)
      offsets[id] = trial[id];
  };
  for (bool longestFirst : {false, true}) {
    uint64_t arena = sweepStartOrder(seg, trial, longestFirst);
    budget.charge(seg.ids.size());
    if (arena < best)
      keep(arena);
    if (best <= target || budget.expired())
      return best;
  }
  BusyIndex index(seg);
  // First-fit decreasing first: on irregular traces it is the strongest
  // rule (docs/benchmarks.md), and a large segment may run out of work
  // before the later ones.
  const std::pair<OrderKind, Fit> rules[] = {
      {OrderKind::Size, Fit::First}, {OrderKind::Size, Fit::Best},
      {OrderKind::Area, Fit::Best},  {OrderKind::Duration, Fit::Best},
      {OrderKind::Start, Fit::Best}, {OrderKind::Start, Fit::First}};
  for (auto [kind, fit] : rules) {
    std::vector<uint32_t> order = makeOrder(seg, kind, nullptr);
    std::optional<uint64_t> arena =
        placeInOrder(index, seg.items, order, trial, &budget, best, fit);
    if (arena && *arena < best)
      keep(*arena);
    if (best <= target || budget.expired())
      return best;
  }
  if (!randomize)
    return best;
  // Randomized improvement until the budget, the target, or a stall.
  std::mt19937_64 rng(seed);
  for (unsigned stall = 0;
       best > target && stall < kMaxStall && !budget.expired(); ++stall) {
    std::vector<uint32_t> order = makeOrder(seg, OrderKind::Random, &rng);
    budget.charge(seg.ids.size());
    std::optional<uint64_t> arena =
        placeInOrder(index, seg.items, order, trial, &budget, best);
    if (arena && *arena < best) {
      keep(*arena);
      stall = 0;
    }
  }
  return best;
}

/// Repair moves in a row without a lower arena before the repair stops.
constexpr unsigned kMaxRepairStall = 2048;
/// Items one repair move may take out; a deeper band starts over shallow.
constexpr size_t kMaxRepairItems = 4096;
/// Band depths a repair move tries of each kind (a multiple of the top
/// items' size, a share of the arena) before it reaches one hop further in
/// time, and the most hops it reaches.
constexpr unsigned kRepairBands = 4;
constexpr unsigned kRepairHops = 3;

/// Local repair of a packing (Best on segments too large for the canonical
/// search, docs/Packing.md): a move takes out the items that reach the top of
/// the arena and every item overlapping one of them in time (and, on deeper
/// moves, overlapping those: up to kRepairHops hops) whose top lies in a band
/// below them, and re-places them by best fit (largest first, sizes scaled by
/// a random factor in [0.5, 1.5)) among the items left in place. A move whose
/// re-placed items stay within the arena is kept (the other items end below
/// it, so the arena never grows; an equal arena is a sideways move), any
/// other is undone. The band deepens after each move that does not lower the
/// arena and starts over after one that does. Stops at `target`, on
/// `budget`, or after kMaxRepairStall moves without a lower arena. `arena` is
/// the packing's arena; returns the new one.
uint64_t repairTop(const Segment &seg, std::vector<uint64_t> &offsets,
                   const Budget &budget, uint64_t target, uint64_t seed,
                   uint64_t arena) {
  const auto &items = seg.items;
  IntervalTree tree(items, seg.ids);
  budget.charge(seg.ids.size());
  std::vector<uint8_t> placed(items.size(), 0), taken(items.size(), 0);
  for (uint32_t id : seg.ids)
    placed[id] = 1;
  std::vector<uint32_t> tops, moved;
  std::vector<uint64_t> saved;
  std::vector<double> key(items.size());
  std::vector<std::pair<uint64_t, uint64_t>> busy;
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
  auto end = [&](uint32_t id) { return offsets[id] + items[id].size; };
  unsigned depth = 0;
  for (unsigned stall = 0;
       arena > target && stall < kMaxRepairStall && !budget.expired();) {
    tops.clear();
    uint64_t low = arena, unit = 1;
    for (uint32_t id : seg.ids)
      if (end(id) == arena) {
        tops.push_back(id);
        low = std::min(low, offsets[id]);
        unit = std::max(unit, items[id].size);
      }
    budget.charge(seg.ids.size());
    // The band: a few times the top items' size, or a share of the arena
    // (from 1/1024 to 1/16), in turn.
    unsigned phase = depth % (2 * kRepairBands);
    uint64_t band =
        phase < kRepairBands
            ? unit * (1 + phase) * (1 + phase)
            : std::max(unit, arena >> (10 - 2 * (phase - kRepairBands)));
    uint64_t floor = low > band ? low - band : 0;
    moved.assign(tops.begin(), tops.end());
    for (uint32_t id : tops)
      taken[id] = 1;
    uint64_t visited = 0;
    // Hops: the band's items overlapping the tops, then (on deeper moves)
    // those overlapping the items taken in the hop before.
    unsigned hops = 1 + (depth / (2 * kRepairBands)) % kRepairHops;
    size_t from = 0;
    for (unsigned hop = 0; hop < hops && moved.size() <= kMaxRepairItems;
         ++hop) {
      size_t to = moved.size();
      for (size_t k = from; k < to && moved.size() <= kMaxRepairItems; ++k)
        tree.forEachOverlap(items[moved[k]].live, [&](uint32_t other) {
          ++visited;
          if (!taken[other] && end(other) > floor) {
            taken[other] = 1;
            moved.push_back(other);
          }
        });
      if (moved.size() == to)
        break;
      from = to;
    }
    budget.charge(5 * visited);
    auto release = [&] {
      for (uint32_t id : moved)
        taken[id] = 0;
    };
    if (moved.size() > kMaxRepairItems) {
      release();
      // The shallowest move is already too large: every later one would
      // rebuild it.
      if (depth == 0)
        break;
      depth = 0;
      ++stall;
      continue;
    }
    saved.clear();
    for (uint32_t id : moved) {
      saved.push_back(offsets[id]);
      placed[id] = 0;
      double noise = 0.5 + static_cast<double>(rng() >> 11) * 0x1p-53;
      key[id] = static_cast<double>(items[id].size) * noise;
    }
    std::vector<uint32_t> order(moved);
    llvm::stable_sort(order,
                      [&](uint32_t a, uint32_t b) { return key[a] > key[b]; });
    bool fits = true;
    for (uint32_t id : order) {
      offsets[id] =
          bestFitOffset(seg, tree, id, offsets, placed, busy, &budget);
      placed[id] = 1;
      if (end(id) > arena) {
        fits = false;
        break;
      }
    }
    if (!fits) {
      for (auto [id, offset] : llvm::zip(moved, saved)) {
        offsets[id] = offset;
        placed[id] = 1;
      }
      release();
      ++depth;
      ++stall;
      continue;
    }
    release();
    uint64_t now = 0;
    for (uint32_t id : seg.ids)
      now = std::max(now, end(id));
    budget.charge(seg.ids.size());
    if (now < arena) {
      arena = now;
      budget.noteArena(arena);
      stall = 0;
      depth = 0;
    } else {
      ++depth;
      ++stall;
    }
  }
  return arena;
}

/// Segments up to this size are searched exactly by Best too.
constexpr size_t kMaxSearchItems = 4096;

struct SearchOutcome {
  uint64_t arena = UINT64_MAX;
  bool exhausted = false;
  /// The search nests too deep for this segment: no cap will do better.
  bool tooDeep = false;
};

/// How much the node limit of the canonical search grows per restart round.
/// 4 rather than 2: fewer nodes spent in rounds that fail (MiniMalloc's
/// challenging suite: B 124 469 -> ~60 000 nodes, A and E about halved).
constexpr uint64_t kNodeLimitGrowth = 4;

/// The canonical search with restarts: rounds over the static orders with
/// a node limit growing kNodeLimitGrowth-fold each round, until `budget`
/// or the first arena <= cap. `exhausted` means no arena <= cap exists (each
/// run is complete whatever the order).
SearchOutcome searchPortfolio(const SearchProblem &problem,
                              std::vector<uint64_t> &offsets,
                              const Budget &budget, uint64_t cap) {
  SearchOutcome out;
  std::vector<uint64_t> trial(offsets);
  for (uint64_t limit = 2 * problem.global.size();;
       limit = limit > UINT64_MAX / kNodeLimitGrowth
                   ? UINT64_MAX
                   : limit * kNodeLimitGrowth) {
    for (const char *keys : kPreorders) {
      if (budget.expired())
        return out;
      CanonicalSearch search(problem, keys, cap, budget, limit, trial);
      CanonicalSearch::Status status = search.run();
      if (status == CanonicalSearch::Status::Found) {
        out.arena = search.getArena();
        for (uint32_t id : problem.global)
          offsets[id] = trial[id];
        return out;
      }
      if (status == CanonicalSearch::Status::Exhausted) {
        out.exhausted = true;
        return out;
      }
      if (status == CanonicalSearch::Status::TooDeep) {
        out.tooDeep = true;
        return out; // every order and limit would stop there too
      }
    }
  }
}

/// The share of the remaining time the decision search at the goal gets
/// before the probes between the goal and the incumbent.
constexpr double kDecisionShare = 0.7;

/// Best and Exact for one segment, between their two phases.
struct SegmentSearch {
  uint64_t arena = 0;
  /// No arena for the whole trace is below it: the trace's lower bound at
  /// first (which bounds the whole arena, not this segment), raised to
  /// cap + 1 by every search that exhausted its tree at a cap.
  uint64_t provenLow = 0;
  /// Set when the segment is left above its goal and may be probed.
  std::unique_ptr<SearchProblem> problem;
};

/// Phase one of Best and Exact for one segment: the greedy phase, then (for
/// segments small enough, always for Exact) the canonical search at the goal
/// — the lower bound, or the capacity in decision mode — with
/// kDecisionShare of the time left (all of it in decision mode). Sets
/// `infeasible` when the capacity is proven too small.
SegmentSearch decideSegment(const Segment &seg, std::vector<uint64_t> &offsets,
                            const Budget &budget, uint64_t target,
                            const PackOptions &options, bool &infeasible) {
  SegmentSearch state;
  bool exact = options.algorithm == PackAlgorithm::Exact;
  bool search = exact || seg.ids.size() <= kMaxSearchItems;
  uint64_t goal =
      options.capacity ? std::max(target, *options.capacity) : target;
  // Only the lower bound is a proof: a capacity is a goal, not a bound.
  state.provenLow = target;
  if (!search) {
    // Too large for the search: randomized greedy orders until they stall,
    // then the repair with the work they left.
    state.arena = packGreedy(seg, offsets, budget, goal, options.seed,
                             /*randomize=*/true);
    if (options.repair && state.arena > goal && !budget.expired())
      state.arena =
          repairTop(seg, offsets, budget, goal, options.seed, state.arena);
    return state;
  }
  state.arena = packGreedy(seg, offsets, budget, target, options.seed,
                           /*randomize=*/false);
  if (state.arena <= goal)
    return state;
  if (budget.expired())
    return state;
  auto problem = std::make_unique<SearchProblem>(seg);
  budget.charge(problem->buildWork);
  if (problem->tooLarge)
    return state;
  double share = options.capacity ? 1.0 : kDecisionShare;
  SearchOutcome decision =
      searchPortfolio(*problem, offsets, budget.share(share), goal);
  if (decision.arena <= goal) {
    state.arena = decision.arena;
    return state;
  }
  if (decision.exhausted)
    state.provenLow = goal + 1;
  if (options.capacity)
    infeasible = decision.exhausted;
  else if (!decision.tooDeep)
    state.problem = std::move(problem);
  return state;
}

/// The first probe slices: about 0.02 s of search (kDefaultPackWork is
/// about 1 s).
constexpr uint64_t kFirstProbeWork = kDefaultPackWork / 50;
constexpr double kFirstProbeSeconds = 0.02;

/// Phase two: rounds of probes at caps between the segment's proven low and
/// its incumbent — at 1/2, 3/4, 7/8 of the way and just below the
/// incumbent, recomputed after each success — each with a time slice that
/// doubles every round (a search that fails at one cap often succeeds
/// quickly at another; starting halfway rather than a quarter of the way up
/// spends less time on caps far below any packing found: D and J of
/// MiniMalloc's suite reach 1.057 within 0.5 s, were 1.064–1.079 at 1 s).
/// A probe that finds a packing lowers the incumbent; one that exhausts its
/// tree proves every arena up to its cap impossible.
void probeSegment(const Segment &seg, SegmentSearch &state,
                  std::vector<uint64_t> &offsets, const Budget &budget) {
  std::vector<uint64_t> trial(offsets);
  uint64_t sliceWork = kFirstProbeWork;
  for (double slice = kFirstProbeSeconds;
       state.provenLow < state.arena && !budget.expired();
       slice *= 2, sliceWork = sliceWork > UINT64_MAX / 2 ? UINT64_MAX
                                                          : 2 * sliceWork) {
    for (double t : {0.5, 0.75, 0.875, 1.0}) {
      if (state.provenLow >= state.arena || budget.expired())
        break;
      uint64_t cap =
          state.provenLow +
          static_cast<uint64_t>(
              t * static_cast<double>(state.arena - 1 - state.provenLow));
      SearchOutcome probe = searchPortfolio(
          *state.problem, trial, budget.slice(sliceWork, slice), cap);
      if (probe.arena < state.arena) {
        state.arena = probe.arena;
        for (uint32_t id : seg.ids)
          offsets[id] = trial[id];
      } else if (probe.exhausted) {
        state.provenLow = std::max(state.provenLow, cap + 1);
      } else if (probe.tooDeep) {
        return;
      }
    }
  }
}

} // namespace

/// pack() itself, on a stack large enough for the canonical search.
static PackResult packOnThisStack(ArrayRef<PackItem> items,
                                  const PackOptions &options) {
  PackResult result;
  result.offsets.assign(items.size(), 0);
  if (items.empty()) {
    result.optimal = true;
    return result;
  }
  Budget budget(result.work, options.workLimit, options.timeLimitSeconds);
  std::vector<Segment> segments = splitSegments(items);
  for (const Segment &seg : segments)
    result.lowerBound = std::max(result.lowerBound, seg.lowerBound);
  std::vector<SegmentSearch> states(segments.size());
  size_t decided = 0;
  Budget::Ticker ticker{kProgressWork, kProgressWork, nullptr};
  bool done = false;
  auto progress = [&] {
    PackProgress p;
    for (size_t k = 0; k < decided; ++k)
      p.arena = std::max(p.arena, states[k].arena);
    if (decided < segments.size() && ticker.segmentArena)
      p.arena = std::max(p.arena, ticker.segmentArena);
    p.done = done;
    p.lowerBound = result.lowerBound;
    p.work = result.work;
    p.workLimit = options.workLimit;
    p.segmentsDecided = decided;
    p.segments = segments.size();
    options.progress(p);
  };
  ticker.fn = progress;
  if (options.progress)
    budget.setTicker(&ticker);
  // No segment needs to go below the bound that the whole arena must reach.
  const uint64_t target = result.lowerBound;
  bool provenOptimal = true;
  // Phase one on every segment first (greedy, then the search at the goal),
  // so that a hard segment cannot take the time of those after it.
  for (auto [seg, state] : llvm::zip(segments, states)) {
    ticker.segmentArena = 0;
    switch (options.algorithm) {
    case PackAlgorithm::GreedyTime:
      state.arena = sweepStartOrder(seg, result.offsets);
      break;
    case PackAlgorithm::GreedySize:
    case PackAlgorithm::FirstFitSize:
    case PackAlgorithm::FirstFitStart: {
      BusyIndex index(seg);
      std::vector<uint32_t> order = makeOrder(
          seg,
          options.algorithm == PackAlgorithm::FirstFitStart ? OrderKind::Start
                                                            : OrderKind::Size,
          nullptr);
      state.arena = *placeInOrder(
          index, items, order, result.offsets, nullptr, UINT64_MAX,
          options.algorithm == PackAlgorithm::GreedySize ? Fit::Best
                                                         : Fit::First);
      break;
    }
    case PackAlgorithm::Best:
    case PackAlgorithm::Exact: {
      bool infeasible = false;
      state = decideSegment(seg, result.offsets, budget, target, options,
                            infeasible);
      result.provenInfeasible |= infeasible;
      break;
    }
    }
    ++decided;
  }
  // Phase two: probes on the segments left above their goal, the highest
  // arena first, each with an equal share of the time left.
  std::vector<size_t> open;
  for (auto [k, state] : llvm::enumerate(states))
    if (state.problem)
      open.push_back(k);
  llvm::stable_sort(open, [&](size_t a, size_t b) {
    return states[a].arena > states[b].arena;
  });
  for (auto [probed, k] : llvm::enumerate(open)) {
    probeSegment(segments[k], states[k], result.offsets,
                 budget.share(1.0 / static_cast<double>(open.size() - probed)));
  }
  result.provenLowerBound = result.lowerBound;
  for (const SegmentSearch &state : states) {
    bool segmentProven = state.provenLow >= state.arena;
    if (state.arena > target && !segmentProven)
      provenOptimal = false;
    result.arena = std::max(result.arena, state.arena);
    // No arena below min(provenLow, the segment's arena) holds this
    // segment, and the arena holds every segment.
    result.provenLowerBound = std::max(result.provenLowerBound,
                                       std::min(state.provenLow, state.arena));
  }
  result.optimal = provenOptimal;
  if (result.optimal)
    result.provenLowerBound = result.arena;
  if (options.progress && (options.algorithm == PackAlgorithm::Best ||
                           options.algorithm == PackAlgorithm::Exact)) {
    done = true;
    progress();
  }
  return result;
}

PackResult mlir::memplan::pack(ArrayRef<PackItem> items,
                               const PackOptions &options) {
  if (options.algorithm != PackAlgorithm::Best &&
      options.algorithm != PackAlgorithm::Exact)
    return packOnThisStack(items, options);
  // The canonical search nests up to kMaxSearchDepth levels: it runs on a
  // thread whose stack holds them, whatever the caller's (an MLIR pass may
  // run on a pool thread).
  PackResult result;
  llvm::thread worker(std::optional<unsigned>(kSearchStackBytes),
                      [&] { result = packOnThisStack(items, options); });
  worker.join();
  return result;
}
