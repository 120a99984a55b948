//===- PackGreedy.cpp - The greedy packers -------------------------------===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//
//
// The classic rules (sweeps over a free list; best and first fit over the
// busy index), the peak split, the randomized orders and the repair.
//
//===----------------------------------------------------------------------===//

#include "PackingInternal.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <queue>
#include <random>
#include <set>

using namespace mlir::memplan;
using namespace mlir::memplan::packing;

namespace {
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

} // namespace

uint64_t
mlir::memplan::packing::fitAmong(ArrayRef<std::pair<uint64_t, uint64_t>> busy,
                                 uint64_t size, uint64_t alignment, Fit fit) {
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

namespace {

/// Work units per time-overlapping item an overlap walk looks at (a visit
/// reads three arrays at scattered indices).
constexpr uint64_t kVisitWeight = 5;

/// What firstFitOffset charges for an item that overlaps `visited` items,
/// `busy` of them placed: one unit, kVisitWeight per visit and 2 k log k for
/// sorting the k busy ranges, weighted so that a unit here takes about as
/// long as a unit of the canonical search (measured: docs/Packing.md).
uint64_t firstFitWork(uint64_t visited, uint64_t busy) {
  return 1 + kVisitWeight * visited + 2 * busy * llvm::Log2_64_Ceil(busy + 1);
}

/// The lowest offset that fits item `id` among the time-overlapping items
/// marked `placed` (fitAmong, first fit: on the 25 traces of
/// bench/pack_suite.py it left two arenas lower than best fit and none
/// higher, docs/benchmarks.md).
/// `busy` is scratch space. Charges `budget` (when given) firstFitWork.
uint64_t firstFitOffset(const Segment &seg, const IntervalTree &tree,
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
    budget->charge(firstFitWork(visited, busy.size()));
  llvm::sort(busy);
  return fitAmong(busy, item.size, item.alignment, Fit::First);
}

} // namespace

namespace mlir::memplan::packing {

StartLeaves::StartLeaves(const Segment &seg) {
  starts.reserve(seg.ids.size());
  for (uint32_t id : seg.ids)
    starts.push_back(seg.items[id].live.start);
  llvm::sort(starts);
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
}

std::pair<uint32_t, uint32_t> StartLeaves::range(const Interval &live) const {
  size_t l = llvm::lower_bound(starts, live.start) - starts.begin();
  size_t r = llvm::lower_bound(starts, live.end) - starts.begin();
  assert(l < r && "an item lives at its own start");
  return {static_cast<uint32_t>(l), static_cast<uint32_t>(r)};
}

BusyIndex::BusyIndex(const Segment &seg) : items(seg.items), starts(seg) {
  leaves = llvm::PowerOf2Ceil(std::max<size_t>(starts.size(), 1));
  here.resize(2 * leaves);
  within.resize(2 * leaves);
  // Every order places every item of the segment, so a large one looks its
  // leaves up once here rather than with two binary searches a placement
  // (7 % of Best's time on 10^5 items). Indexed by item, so only where the
  // segment holds a good share of the items: many small segments would
  // each pay for all of them.
  if (seg.ids.size() * 4 >= items.size()) {
    leafOf.resize(items.size());
    for (uint32_t id : seg.ids)
      leafOf[id] = starts.range(items[id].live);
  }
}

void BusyIndex::clear() {
  for (auto &runs : here)
    runs.clear();
  for (auto &runs : within)
    runs.clear();
}

uint64_t BusyIndex::nodesPerItem() const {
  return 2 * (llvm::Log2_64(leaves) + 1);
}

std::pair<size_t, size_t> BusyIndex::leafRange(uint32_t id) const {
  return leafOf.empty() ? starts.range(items[id].live) : leafOf[id];
}

bool BusyIndex::insert(llvm::SmallVectorImpl<Run> &runs, Run run) {
  auto first = llvm::partition_point(
      runs, [&](const Run &r) { return r.second < run.first; });
  // Already covered: the runs are coalesced, so no other one can touch it.
  if (first != runs.end() && first->first <= run.first &&
      run.second <= first->second)
    return false;
  auto last = first;
  while (last != runs.end() && last->first <= run.second) {
    run.first = std::min(run.first, last->first);
    run.second = std::max(run.second, last->second);
    ++last;
  }
  if (first == last) {
    runs.insert(first, run);
    return true;
  }
  *first = run;
  runs.erase(first + 1, last);
  return true;
}

void BusyIndex::add(size_t l, size_t r, Run run) {
  forEachCanonicalNode(leaves, l, r,
                       [&](size_t node) { insert(here[node], run); });
  // A node's `within` holds the union of its children's, so once the run
  // is covered at one node it is covered at every node above it.
  for (size_t node = l + leaves; node; node >>= 1)
    if (!insert(within[node], run))
      break;
}

std::optional<uint64_t> BusyIndex::place(uint32_t id, Fit fit, uint64_t &lists,
                                         uint64_t maxLists) {
  auto [l, r] = leafRange(id);
  sources.clear();
  auto source = [&](const llvm::SmallVector<Run, 0> &runs) {
    if (!runs.empty())
      sources.push_back({runs.begin(), runs.end()});
  };
  forEachCanonicalNode(leaves, l, r,
                       [&](size_t node) { source(within[node]); });
  for (size_t node = l + leaves; node; node >>= 1)
    source(here[node]);
  uint64_t size = items[id].size, alignment = items[id].alignment;
  std::optional<uint64_t> at = fit == Fit::First
                                   ? firstFit(size, alignment, lists, maxLists)
                                   : bestFit(size, alignment, lists, maxLists);
  if (at)
    add(l, r, {*at, *at + size});
  return at;
}

std::optional<uint64_t> BusyIndex::bestFit(uint64_t size, uint64_t alignment,
                                           uint64_t &lists, uint64_t maxLists) {
  lists = 0;
  for (const Source &src : sources)
    lists += src.second - src.first;
  if (lists > maxLists)
    return std::nullopt; // nothing read yet: what it costs is known first
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
  return fitAmong(busy, size, alignment, Fit::Best);
}

std::optional<uint64_t> BusyIndex::firstFit(uint64_t size, uint64_t alignment,
                                            uint64_t &probes,
                                            uint64_t maxProbes) {
  // The lowest aligned x such that [x, x + size) meets no run of any
  // source: x starts at 0 and jumps past every run it meets (to the
  // aligned end of that run), source after source, until a whole round
  // over the sources moves it no more. Each source is searched from where
  // its last search stopped (x only rises), so runs below the answer that
  // another source's jump passed over are skipped in one binary search,
  // and runs above it are never read. The same offset as fitAmong over the
  // merged runs with Fit::First.
  assert(size > 0 && llvm::isPowerOf2_64(alignment) &&
         "validatePackItems: a positive size, a power-of-two alignment");
  probes = 0;
  uint64_t x = 0;
  // Each source's first run that may still meet [x, ...), read from a
  // small array (the runs themselves lie all over memory), {max, max} once
  // the source has none left; and the order the sources are probed in,
  // the one that moved x last first (the runs it meets next often block
  // too: half the probes of a fixed order on dense traces).
  heads.clear();
  turn.clear();
  for (auto [k, src] : llvm::enumerate(sources)) {
    heads.push_back(*src.first);
    turn.push_back(static_cast<uint32_t>(k));
  }
  // Sources in a row that x meets no run of; a jump restarts the count at
  // the source that moved it (its next run may start below x + size too).
  size_t quiet = 0;
  for (size_t k = 0; quiet < sources.size();) {
    if (probes == maxProbes)
      return std::nullopt;
    ++probes;
    const uint32_t s = turn[k];
    Run &head = heads[s];
    if (head.second <= x) {
      // The first run of this source ending after x: galloping from where
      // the last search stopped (it is usually a few runs on).
      Source &src = sources[s];
      auto ended = [&](const Run &run) { return run.second <= x; };
      size_t step = 1;
      while (step < static_cast<size_t>(src.second - src.first) &&
             ended(src.first[step])) {
        src.first += step;
        step *= 2;
      }
      src.first = std::partition_point(
          src.first,
          src.first + std::min<size_t>(step + 1, src.second - src.first),
          ended);
      head = src.first != src.second ? *src.first : Run{UINT64_MAX, UINT64_MAX};
    }
    if (head.first < x + size) {
      x = alignUp(head.second, alignment);
      quiet = 0;
      if (k) {
        // Moved to the front (a memmove: std::rotate took 8 % of first fit
        // decreasing's time on a dense 10^5-buffer trace).
        std::memmove(turn.data() + 1, turn.data(), k * sizeof(uint32_t));
        turn[0] = s;
        k = 0;
      }
    } else {
      ++quiet;
      k = k + 1 == sources.size() ? 0 : k + 1;
    }
  }
  return x;
}

/// Work units per probe of a first-fit query (BusyIndex::firstFit), per
/// coalesced range a best-fit query reads, and per node an item's query and
/// add walk, in proportion to their time: fitted on passes of first fit and
/// best fit decreasing over the 10^5-item irregular and planted traces
/// (docs/Packing.md), about 10.5 ns per probe, 17 ns per range and 18 ns per
/// node on the CI machine, so a unit of the greedy placer takes about 1.3 ns
/// there (as it did before the probes were reordered and the adds cut
/// short; a unit of the canonical search takes about 2 ns).
constexpr uint64_t kFirstFitProbeWeight = 8;
constexpr uint64_t kBestFitListWeight = 13;
constexpr uint64_t kNodeWeight = 13;

bool placeNext(BusyIndex &index, ArrayRef<PackItem> items, uint32_t id,
               std::vector<uint64_t> &offsets, const Budget *budget,
               uint64_t cutoff, Fit fit, size_t &count, uint64_t &arena) {
  const uint64_t weight =
      fit == Fit::First ? kFirstFitProbeWeight : kBestFitListWeight;
  const uint64_t walk = kNodeWeight * index.nodesPerItem();
  // The walk must be paid for before the query, and the query reads no
  // more probes or ranges than the rest of the work left pays for, so a
  // placement never ends past the bound (one first-fit query on a dense
  // trace of 4000 buffers, 3000 overlapping each, had ended 36449 units
  // past it: docs/benchmarks.md, seventh stop). One the work
  // left cannot pay for places nothing and spends what is left, so that
  // callers see the budget expired (and tell "out of work" from "past the
  // cutoff").
  auto outOfWork = [&] {
    budget->charge(budget->workAffordable());
    return false;
  };
  uint64_t maxLists = UINT64_MAX;
  if (budget) {
    if ((++count & 255) == 0 && budget->overTime())
      return false;
    uint64_t left = budget->workAffordable();
    if (left < walk)
      return outOfWork();
    if (left != UINT64_MAX)
      maxLists = (left - walk) / weight;
  }
  uint64_t lists = 0;
  std::optional<uint64_t> at = index.place(id, fit, lists, maxLists);
  if (!at) {
    assert(budget && "only a work bound stops a query");
    return outOfWork();
  }
  if (budget)
    budget->charge(weight * lists + walk);
  offsets[id] = *at;
  arena = std::max(arena, *at + items[id].size);
  return arena < cutoff;
}

std::optional<uint64_t> placeInOrder(BusyIndex &index, ArrayRef<PackItem> items,
                                     ArrayRef<uint32_t> order,
                                     std::vector<uint64_t> &offsets,
                                     const Budget *budget, uint64_t cutoff,
                                     Fit fit) {
  index.clear();
  if (budget)
    budget->charge(index.lists());
  uint64_t arena = 0;
  size_t count = 0;
  for (uint32_t id : order)
    if (!placeNext(index, items, id, offsets, budget, cutoff, fit, count,
                   arena))
      return std::nullopt;
  return arena;
}

} // namespace mlir::memplan::packing

namespace {

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
enum class OrderKind {
  Size,
  Area,
  Duration,
  Start,
  /// By size class, the longest-lived first within a class, then by size:
  /// octaves (classes [2^e, 2^(e+1))), and eighths of an octave (the three
  /// bits after the leading one).
  Octave,
  EighthOctave
};

/// The size class of `size`: its leading bit and the `bits` after it.
uint64_t sizeClass(uint64_t size, unsigned bits) {
  unsigned e = llvm::Log2_64(size);
  uint64_t next = e >= bits ? size >> (e - bits) : size << (bits - e);
  return (uint64_t(e) << bits) | (next & ((uint64_t(1) << bits) - 1));
}

/// (key, id) pairs descending by key, ties by index: a total order, so an
/// unstable sort (or nth_element, then sort) gives the same sequence with
/// any standard library. Keys sit next to their ids, with no indirection in
/// the comparisons: on 10^5 items the random orders' sorts took half of
/// Best's time when they compared through an index array.
struct KeyDescending {
  template <typename Key>
  bool operator()(const std::pair<Key, uint32_t> &a,
                  const std::pair<Key, uint32_t> &b) const {
    if (a.first != b.first)
      return a.first > b.first;
    return a.second < b.second;
  }
};

std::vector<uint32_t> makeOrder(const Segment &seg, OrderKind kind) {
  // seg.ids is in start order, ties by index (splitSegments).
  if (kind == OrderKind::Start)
    return seg.ids;
  const auto &items = seg.items;
  auto duration = [&](uint32_t i) {
    return static_cast<uint64_t>(items[i].live.end - items[i].live.start);
  };
  auto byKey = [&](auto key) {
    using Key = decltype(key(uint32_t()));
    std::vector<std::pair<Key, uint32_t>> keyed;
    keyed.reserve(seg.ids.size());
    for (uint32_t id : seg.ids)
      keyed.emplace_back(key(id), id);
    std::sort(keyed.begin(), keyed.end(), KeyDescending());
    std::vector<uint32_t> order;
    order.reserve(keyed.size());
    for (const auto &entry : keyed)
      order.push_back(entry.second);
    return order;
  };
  switch (kind) {
  case OrderKind::Size:
    return byKey(
        [&](uint32_t i) { return std::make_pair(items[i].size, duration(i)); });
  case OrderKind::Area:
    return byKey([&](uint32_t i) {
      return static_cast<double>(items[i].size) *
             static_cast<double>(duration(i));
    });
  case OrderKind::Duration:
    return byKey(
        [&](uint32_t i) { return std::make_pair(duration(i), items[i].size); });
  case OrderKind::Octave:
  case OrderKind::EighthOctave: {
    unsigned bits = kind == OrderKind::Octave ? 0 : 3;
    return byKey([&](uint32_t i) {
      return std::make_tuple(sizeClass(items[i].size, bits), duration(i),
                             items[i].size);
    });
  }
  case OrderKind::Start:
    break;
  }
  llvm_unreachable("the start order is seg.ids");
}

/// The first chunk of a random order sorted before any of it is placed.
constexpr size_t kFirstRandomChunk = 256;

/// One random order (size times a noise in [0.5, 1.5), KeyDescending),
/// placed by first fit as it is produced (against best fit, on the 25 traces
/// of bench/pack_suite.py: 11 arenas lower, none higher; docs/benchmarks.md):
/// the next chunk of the order is selected (nth_element) and sorted only when
/// the items before it are placed, chunks doubling. Most random orders pass
/// `cutoff` early, so the whole order is rarely sorted (on 10^5 items sorting
/// every order took most of Best's time). The noise is the top 53 bits of
/// mt19937_64 (fully specified by the standard), not a std:: distribution
/// (whose output differs between standard libraries), drawn in seg.ids order:
/// the same sequence on any machine. Returns the arena, or nullopt (as
/// placeInOrder). `sizes` holds the items' sizes in seg.ids order (read in
/// sequence: looking them up by id missed the cache on every item of a large
/// segment).
std::optional<uint64_t>
placeRandomOrder(BusyIndex &index, const Segment &seg, ArrayRef<double> sizes,
                 std::mt19937_64 &rng, std::vector<uint64_t> &offsets,
                 const Budget &budget, uint64_t cutoff) {
  std::vector<std::pair<double, uint32_t>> keyed;
  keyed.reserve(seg.ids.size());
  for (auto [id, size] : llvm::zip(seg.ids, sizes)) {
    double noise = 0.5 + static_cast<double>(rng() >> 11) * 0x1p-53;
    keyed.emplace_back(size * noise, id);
  }
  // Drawing the keys: 3 units an item; selecting a chunk, 3 per item left;
  // sorting it, orderWork (docs/Packing.md).
  budget.charge(3 * keyed.size());
  KeyDescending before;
  index.clear();
  budget.charge(index.lists());
  uint64_t arena = 0;
  size_t count = 0;
  auto first = keyed.begin();
  for (size_t chunk = kFirstRandomChunk; first != keyed.end(); chunk *= 2) {
    auto last = keyed.end() - first > static_cast<ptrdiff_t>(chunk)
                    ? first + chunk
                    : keyed.end();
    // Selected and sorted only when the work left pays for it.
    uint64_t chunkWork = orderWork(last - first);
    if (last != keyed.end())
      chunkWork += 3 * (keyed.end() - first);
    if (!budget.affords(chunkWork))
      return std::nullopt;
    if (last != keyed.end())
      std::nth_element(first, last, keyed.end(), before);
    std::sort(first, last, before);
    budget.charge(chunkWork);
    for (; first != last; ++first)
      if (!placeNext(index, seg.items, first->second, offsets, &budget, cutoff,
                     Fit::First, count, arena))
        return std::nullopt;
  }
  return arena;
}

} // namespace

uint64_t mlir::memplan::packing::packRule(const Segment &seg,
                                          PackAlgorithm algorithm,
                                          std::vector<uint64_t> &offsets) {
  if (algorithm == PackAlgorithm::GreedyTime)
    return sweepStartOrder(seg, offsets);
  BusyIndex index(seg);
  std::vector<uint32_t> order = makeOrder(
      seg, algorithm == PackAlgorithm::FirstFitStart ? OrderKind::Start
                                                     : OrderKind::Size);
  return *placeInOrder(index, seg.items, order, offsets, nullptr, UINT64_MAX,
                       algorithm == PackAlgorithm::GreedySize ? Fit::Best
                                                              : Fit::First);
}

/// Random orders tried without improvement before Best gives up early.
constexpr unsigned kMaxStall = 256;

/// The seeded fit (docs/Packing.md): its first seed, its largest, and the
/// share of the work left each seed's search gets. Chosen on the three sets
/// of bench/pack_suite.py: seeds from 128 or 512 and shares of 0.05 or 0.2
/// did no better on all three (docs/benchmarks.md). Seeds of 4096 lowered
/// one arena there by one byte, and the search on one ran about 5 times
/// slower per work unit than the search is charged (its candidates' sort is
/// not charged: 140 ms for 1.4 * 10^7 units on a 10^5-buffer irregular
/// trace, whose 1 s target they put at risk).
constexpr size_t kFirstSeed = 256;
constexpr size_t kMaxSeed = 2048;
constexpr double kSeedSearchShare = 0.1;
/// Segments of at most this many items get no seeded fit: the search on
/// the whole segment follows the rules there (on MiniMalloc's J, of 409
/// buffers, a seed of 256 took work the probes need: 1.0569 -> 1.0600 x LB).
constexpr size_t kMinSeededItems = 1024;

namespace {

/// One seeded fit: the `count` largest items (the first of `bySize`)
/// packed by the canonical search at `target` with kSeedSearchShare of the
/// work left; where it packs them, every item of the segment is placed by
/// first fit: those first, in the order of the offsets the search gave them
/// (ties by index), then the others in `rest`. Returns the arena, or
/// nullopt (as placeInOrder; also where the search does not pack them or
/// the work left cannot pay for a step). Each step whose cost is known is
/// begun only when the work left pays for it. `larger`: whether a larger
/// seed may do better (the search packed this one, and the work left paid
/// for its placement).
std::optional<uint64_t> seededFit(const Segment &seg, ArrayRef<uint32_t> bySize,
                                  ArrayRef<uint32_t> rest, size_t count,
                                  BusyIndex &index,
                                  std::vector<uint64_t> &offsets,
                                  const Budget &budget, uint64_t target,
                                  uint64_t cutoff, bool &larger) {
  larger = false;
  const size_t n = seg.ids.size();
  if (!budget.affords(orderWork(count)))
    return std::nullopt;
  // The seed in start order, ties by index, as a segment's items are.
  Segment seed{seg.items, {bySize.begin(), bySize.begin() + count}, 0, 0};
  const auto &items = seg.items;
  llvm::sort(seed.ids, [&](uint32_t a, uint32_t b) {
    return std::make_pair(items[a].live.start, a) <
           std::make_pair(items[b].live.start, b);
  });
  budget.charge(orderWork(count));
  SearchProblem problem(seed, budget.workAffordable());
  budget.charge(problem.buildWork);
  if (problem.tooLarge)
    return std::nullopt;
  // Writes the seed's offsets only when it packs them.
  SearchOutcome outcome =
      searchPortfolio(problem, offsets, budget.share(kSeedSearchShare), target);
  if (outcome.arena > target ||
      !budget.affords(orderWork(count) + 3 * n + index.lists()))
    return std::nullopt;
  larger = true;
  std::vector<uint32_t> order = std::move(seed.ids);
  llvm::sort(order, [&](uint32_t a, uint32_t b) {
    return std::make_pair(offsets[a], a) < std::make_pair(offsets[b], b);
  });
  // Membership only (never iterated): the order does not depend on the
  // set's layout.
  llvm::DenseSet<uint32_t> inSeed(order.begin(), order.end());
  order.reserve(n);
  for (uint32_t id : rest)
    if (!inSeed.contains(id))
      order.push_back(id);
  budget.charge(orderWork(count) + 3 * n);
  return placeInOrder(index, items, order, offsets, &budget, cutoff,
                      Fit::First);
}

} // namespace

// Declared (and documented) in PackingInternal.h.
uint64_t mlir::memplan::packing::packGreedy(
    const Segment &seg, std::vector<uint64_t> &offsets, const Budget &budget,
    uint64_t target, std::optional<BusyIndex> &index, bool seeded) {
  // The peak split first: on training traces (nested activations around
  // one peak) it reaches the bound in one O(n log n) pass.
  uint64_t best = sweepFromPeak(seg, seg.peakStep, offsets);
  budget.charge(sweepWork(seg.ids.size()));
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
  const size_t n = seg.ids.size();
  // The size order and the size-class order, made once for every step that
  // places in them: first fit decreasing, best fit by size and the seeds;
  // first fit by size class and the buffers around a seed.
  std::vector<uint32_t> bySize, byClass, scratch;
  // The order of `kind`, made and charged (the start order is seg.ids
  // itself: copied, not sorted) unless an earlier step made it; nullptr,
  // with nothing made, where the work left cannot pay for that and `then`.
  auto orderOf = [&](OrderKind kind,
                     uint64_t then) -> const std::vector<uint32_t> * {
    std::vector<uint32_t> &slot = kind == OrderKind::Size     ? bySize
                                  : kind == OrderKind::Octave ? byClass
                                                              : scratch;
    const bool made = &slot != &scratch && !slot.empty();
    const uint64_t units = made                       ? 0
                           : kind == OrderKind::Start ? n
                                                      : orderWork(n);
    if (!budget.affords(units + then))
      return nullptr;
    if (!made) {
      slot = makeOrder(seg, kind);
      budget.charge(units);
    }
    return &slot;
  };
  // The seeded fits, seeds doubling from kFirstSeed while the search packs
  // them and the work left pays for their placement (a larger seed was the
  // better on planted traces, as long as the search could pack it).
  auto seededFits = [&] {
    if (n <= kMinSeededItems)
      return;
    const std::vector<uint32_t> *size = orderOf(OrderKind::Size, 0);
    const std::vector<uint32_t> *rest =
        size ? orderOf(OrderKind::Octave, 0) : nullptr;
    if (!rest)
      return;
    if (!index)
      index.emplace(seg);
    for (size_t count = kFirstSeed;
         count < n && count <= kMaxSeed && best > target && !budget.expired();
         count *= 2) {
      bool larger = false;
      std::optional<uint64_t> arena =
          seededFit(seg, *size, *rest, count, *index, trial, budget, target,
                    best, larger);
      if (arena && *arena < best)
        keep(*arena);
      if (!larger)
        return;
    }
  };
  // The start-order sweep (greedy-time, cheap) and first fit decreasing,
  // the strongest classic rule on irregular traces (docs/benchmarks.md),
  // come first: a large segment may run out of work before the later rules.
  // Then the seeded fits, then the size classes, the longest-lived first
  // within each, which beat it on many irregular and planted traces
  // (docs/Packing.md).
  // On a huge segment, the rules after the seeded fits (where they run)
  // are only the classic ones (those memplan-pack's --algorithm offers):
  // there one pass costs about a fifth of the default bound, the others
  // raised none of 23 arenas of 10^5-buffer traces when dropped, and the work
  // they took is what the composites need to reach their seeded fits (PL3 of
  // bench/pack_suite.py's large set: 1.1010 -> 1.0566 x LB with
  // kHugeItemsShare; docs/benchmarks.md, eighth stop). Without the seeded
  // fits the size classes stay: they are the best rules on such segments
  // then (seeded-fit.test).
  struct Rule {
    std::optional<OrderKind> kind; // none: a start-order sweep
    Fit fit;
    bool longestFirst;
    bool seededFits = false;
    bool classic = false;
  };
  const Rule rules[] = {{std::nullopt, Fit::Best, false, false, true},
                        {OrderKind::Size, Fit::First, false, false, true},
                        {std::nullopt, Fit::First, false, true},
                        {OrderKind::Octave, Fit::First, false},
                        {OrderKind::EighthOctave, Fit::First, false},
                        {std::nullopt, Fit::Best, true},
                        {OrderKind::Size, Fit::Best, false, false, true},
                        {OrderKind::Area, Fit::Best, false},
                        {OrderKind::Duration, Fit::Best, false},
                        {OrderKind::Start, Fit::Best, false},
                        {OrderKind::Start, Fit::First, false, false, true}};
  bool seedsDone = false;
  for (const Rule &rule : rules) {
    if (seedsDone && n > kMinHugeItems && !rule.classic)
      continue;
    seedsDone |= rule.seededFits && seeded;
    std::optional<uint64_t> arena;
    if (rule.seededFits) {
      if (seeded)
        seededFits();
    } else if (!rule.kind) {
      // Charged in advance: a sweep cannot stop half way.
      if (!budget.affords(sweepWork(n)))
        continue;
      arena = sweepStartOrder(seg, trial, rule.longestFirst);
      budget.charge(sweepWork(n));
    } else {
      // The order is paid for in advance, and so is the clearing of the
      // index that placeInOrder begins with.
      if (!index)
        index.emplace(seg);
      const std::vector<uint32_t> *order = orderOf(*rule.kind, index->lists());
      if (!order)
        continue;
      arena = placeInOrder(*index, seg.items, *order, trial, &budget, best,
                           rule.fit);
    }
    if (arena && *arena < best)
      keep(*arena);
    if (best <= target || budget.expired())
      return best;
  }
  return best;
}

// Declared (and documented) in PackingInternal.h.
uint64_t mlir::memplan::packing::improveRandomly(
    const Segment &seg, std::vector<uint64_t> &offsets, const Budget &budget,
    uint64_t target, uint64_t seed, uint64_t best,
    std::optional<BusyIndex> &cached) {
  if (!cached)
    cached.emplace(seg);
  BusyIndex &index = *cached;
  std::vector<uint64_t> trial(offsets.size());
  auto keep = [&](uint64_t arena) {
    best = arena;
    budget.noteArena(arena);
    for (uint32_t id : seg.ids)
      offsets[id] = trial[id];
  };
  // Randomized improvement until the budget, the target, or a stall.
  std::mt19937_64 rng(seed);
  std::vector<double> sizes;
  sizes.reserve(seg.ids.size());
  for (uint32_t id : seg.ids)
    sizes.push_back(static_cast<double>(seg.items[id].size));
  for (unsigned stall = 0;
       best > target && stall < kMaxStall && !budget.expired(); ++stall) {
    // An order's keys and the index's lists cleared, charged before they
    // are done: begun only when the work left pays for them.
    if (!budget.affords(3 * seg.ids.size() + index.lists()))
      break;
    std::optional<uint64_t> arena =
        placeRandomOrder(index, seg, sizes, rng, trial, budget, best);
    if (arena && *arena < best) {
      keep(*arena);
      stall = 0;
    }
  }
  return best;
}

/// How much a squeaky wheel moves up: its priority is multiplied by
/// 1 + kSqueak * h, h in (0, 1] the height of its top above the target as a
/// share of the pass's. Fitted on bench/pack_suite.py's traces and checked
/// on 12 others (docs/benchmarks.md): 0.2-0.5 moved too little, 4-8 too
/// much.
constexpr double kSqueak = 2.0;
/// Priorities are scaled down by 2^kSqueakRescale (exactly) once one passes
/// 2^kSqueakRescale, far from overflow (each pass multiplies by 3 at most).
constexpr int kSqueakRescale = 512;
/// Passes in a row without a lower arena before the squeaky wheel stops, or
/// starts over (up to `maxRestarts` times).
constexpr unsigned kMaxSqueakStall = 128;

// Declared (and documented) in PackingInternal.h.
uint64_t mlir::memplan::packing::improveBySqueaking(
    const Segment &seg, std::vector<uint64_t> &offsets, const Budget &budget,
    uint64_t target, uint64_t best, std::optional<BusyIndex> &cached,
    uint64_t seed, unsigned maxRestarts) {
  const auto &items = seg.items;
  const size_t n = seg.ids.size();
  if (!cached)
    cached.emplace(seg);
  BusyIndex &index = *cached;
  std::vector<uint64_t> trial(offsets.size());
  // Priorities, the size at first (sizes are below 2^63, so exact up to
  // 2^53 and rounded alike everywhere). Only IEEE multiplications,
  // divisions and conversions touch them, which round the same on every
  // machine: no libm function (log2 may differ by an ulp between C
  // libraries, and a near-tie in the sort would change the plan).
  std::vector<double> key(n);
  for (size_t k = 0; k < n; ++k)
    key[k] = static_cast<double>(items[seg.ids[k]].size);
  std::vector<std::pair<double, uint32_t>> order(n); // (key, position)
  // The index (its start times sorted) and the keys, charged before the
  // passes: none begins unless the work left pays for them.
  if (!budget.affords(n + orderWork(n)))
    return best;
  budget.charge(n + orderWork(n));
  // A pass's set-up: the keys copied and sorted, the index's lists cleared.
  // Charged before it is done, so checked first: stop rather than run past
  // the bound (on 10^5 items it is about 2 * 10^6 units).
  const uint64_t setup = n + orderWork(n) + index.lists();
  const double ceiling = std::ldexp(1.0, kSqueakRescale);
  // The restarts' noise: the top 53 bits of mt19937_64, as the random
  // orders draw it (the same on any machine).
  std::mt19937_64 rng(seed ^ 0x5eed5e9a11f00dULL);
  unsigned restarts = 0;
  for (unsigned stall = 0; best > target && !budget.expired(); ++stall) {
    if (stall == kMaxSqueakStall) {
      // Stalled: start over from the sizes times a noise in [0.5, 1.5)
      // (n units), the incumbent kept.
      if (restarts == maxRestarts || !budget.affords(n + setup))
        break;
      ++restarts;
      for (size_t k = 0; k < n; ++k)
        key[k] = static_cast<double>(items[seg.ids[k]].size) *
                 (0.5 + static_cast<double>(rng() >> 11) * 0x1p-53);
      budget.charge(n);
      stall = 0;
    }
    if (!budget.affords(setup))
      break;
    for (size_t k = 0; k < n; ++k)
      order[k] = {key[k], static_cast<uint32_t>(k)};
    std::sort(order.begin(), order.end(), KeyDescending());
    index.clear();
    budget.charge(setup);
    // A pass that ends above the incumbent still shows which items squeak:
    // it runs on until halfway past the incumbent's excess over the target
    // (no wrap: arenas are below 2^63, validatePackItems).
    const uint64_t cutoff = best + (best - target) / 2;
    uint64_t arena = 0;
    size_t count = 0;
    // The pass places a prefix of `order`: the item that reaches the
    // cutoff is placed too, and ends it.
    size_t placed = 0;
    while (placed < n) {
      bool below = placeNext(index, items, seg.ids[order[placed].second], trial,
                             &budget, cutoff, Fit::First, count, arena);
      if (!below && budget.expired())
        return best;
      ++placed;
      if (!below)
        break;
    }
    if (arena < cutoff && arena < best) {
      best = arena;
      budget.noteArena(arena);
      for (uint32_t id : seg.ids)
        offsets[id] = trial[id];
      stall = 0;
      if (best <= target)
        break;
    }
    // The squeaky wheels: every item placed with its top above the target
    // comes earlier in the next pass, the more the higher its top.
    const double height = static_cast<double>(arena - target);
    bool rescale = false;
    for (size_t j = 0; j < placed; ++j) {
      uint32_t k = order[j].second;
      uint64_t top = trial[seg.ids[k]] + items[seg.ids[k]].size;
      if (top > target) {
        key[k] *= 1 + kSqueak * (static_cast<double>(top - target) / height);
        rescale |= key[k] > ceiling;
      }
    }
    if (rescale)
      for (double &priority : key)
        priority = std::ldexp(priority, -kSqueakRescale);
    budget.charge(n);
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

// Declared (and documented) in PackingInternal.h.
uint64_t mlir::memplan::packing::repairTop(const Segment &seg,
                                           std::vector<uint64_t> &offsets,
                                           const Budget &budget,
                                           uint64_t target, uint64_t seed,
                                           uint64_t arena) {
  const auto &items = seg.items;
  const size_t n = seg.ids.size();
  // The set-up: the overlap tree and the sorted starts and ends below.
  const uint64_t setup = n + 2 * orderWork(n);
  if (!budget.affords(setup))
    return arena;
  IntervalTree tree(items, seg.ids);
  // How many items overlap each one (itself included), from the sorted
  // starts and ends: what an overlap walk over it costs, known before it
  // runs, so that none runs past the work bound.
  std::vector<int64_t> starts, ends;
  starts.reserve(n);
  ends.reserve(n);
  for (uint32_t id : seg.ids) {
    starts.push_back(items[id].live.start);
    ends.push_back(items[id].live.end);
  }
  llvm::sort(starts);
  llvm::sort(ends);
  budget.charge(setup);
  const uint64_t countWork = 2 * llvm::Log2_64_Ceil(n + 1);
  auto overlaps = [&](uint32_t id) -> uint64_t {
    const Interval &live = items[id].live;
    return (llvm::lower_bound(starts, live.end) - starts.begin()) -
           (llvm::upper_bound(ends, live.start) - ends.begin());
  };
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
  // A move scans the segment twice (its tops, then its arena after the
  // move): begun only when the work left pays for both, and its items are
  // placed only while the work left pays for the second scan.
  const uint64_t scan = n;
  for (unsigned stall = 0; arena > target && stall < kMaxRepairStall &&
                           !budget.expired() && budget.affords(2 * scan);) {
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
    // Hops: the band's items overlapping the tops, then (on deeper moves)
    // those overlapping the items taken in the hop before. Charged item by
    // item: gathering a move of thousands of items can cost millions of
    // units (charged after the gathering, it took a planted trace 0.4 %
    // past its bound).
    unsigned hops = 1 + (depth / (2 * kRepairBands)) % kRepairHops;
    size_t from = 0;
    bool outOfWork = false;
    for (unsigned hop = 0;
         hop < hops && moved.size() <= kMaxRepairItems && !outOfWork; ++hop) {
      size_t to = moved.size();
      for (size_t k = from;
           k < to && moved.size() <= kMaxRepairItems && !outOfWork; ++k) {
        if (!budget.affords(countWork + kVisitWeight * overlaps(moved[k]))) {
          outOfWork = true;
          break;
        }
        uint64_t visited = 0;
        tree.forEachOverlap(items[moved[k]].live, [&](uint32_t other) {
          ++visited;
          if (!taken[other] && end(other) > floor) {
            taken[other] = 1;
            moved.push_back(other);
          }
        });
        budget.charge(countWork + kVisitWeight * visited);
      }
      if (moved.size() == to)
        break;
      from = to;
    }
    auto release = [&] {
      for (uint32_t id : moved)
        taken[id] = 0;
    };
    if (outOfWork) {
      release();
      break;
    }
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
    // The sort of the move and the scan after it, paid for before anything
    // is taken out.
    if (!budget.affords(orderWork(moved.size()) + scan)) {
      release();
      break;
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
    budget.charge(orderWork(order.size()));
    bool fits = true;
    for (uint32_t id : order) {
      // A move of thousands of items can cost millions of units: one that
      // runs out of work is undone rather than finished past the bound.
      // At most every overlapping item is placed.
      uint64_t ov = overlaps(id);
      if (!budget.affords(scan + countWork + firstFitWork(ov, ov))) {
        fits = false;
        break;
      }
      budget.charge(countWork);
      offsets[id] =
          firstFitOffset(seg, tree, id, offsets, placed, busy, &budget);
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
