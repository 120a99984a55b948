//===- PackSearch.cpp - The canonical search -----------------------------===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//
//
// Branch and bound over canonical packings (docs/Packing.md), with restarts
// over static orders.
//
//===----------------------------------------------------------------------===//

#include "PackingInternal.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <array>
#include <cassert>
#include <cstring>
#include <numeric>

using namespace mlir::memplan;
using namespace mlir::memplan::packing;

namespace {
/// Segments needing more time-overlapping pairs or section memberships than
/// this are not searched (the lists would take too much memory).
constexpr size_t kMaxSearchEntries = size_t(1) << 22;

} // namespace

mlir::memplan::packing::SearchProblem::SearchProblem(const Segment &seg,
                                                     uint64_t affordable,
                                                     ArrayRef<uint64_t> floors)
    : items(seg.items), global(seg.ids) {
  assert((floors.empty() || floors.size() == seg.ids.size()) &&
         "one floor per item");
  size_t n = global.size();
  // Counting the memberships and pairs below costs about a sort of the
  // items, whatever is built after: not begun where `affordable` cannot
  // pay for it.
  if (orderWork(n) > affordable) {
    tooLarge = true;
    return;
  }
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
  buildWork = 2 * n + sections + memberships + 2 * pairs;
  if (memberships > kMaxSearchEntries || pairs > kMaxSearchEntries ||
      buildWork > affordable) {
    // Not built: only the counting was done (its sorts), not the
    // memberships and pairs (charging them had taken an exact run on 10^5
    // buffers 0.7 % past its bound).
    tooLarge = true;
    buildWork = orderWork(n);
    return;
  }
  // What a search's set-up costs (CanonicalSearch: its state, then the
  // ranking of every item, a section read per membership for the T key).
  setupWork =
      2 * n + sections + memberships * (floors.empty() ? 1 : 2) + orderWork(n);
  if (!floors.empty()) {
    floorOf.resize(n);
    for (uint32_t i = 0; i < n; ++i)
      floorOf[i] = alignUp(floors[i], item(i).alignment);
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
  // What a placement can charge at most (CanonicalSearch::dfs): its
  // overlaps, each one's sections, and a rescan of every section in the
  // hull of theirs and its own (a prefix sum of the memberships).
  std::vector<uint64_t> members(sections + 1, 0);
  for (size_t s = 0; s < sections; ++s)
    members[s + 1] = members[s] + inSection[s].size();
  placeWork.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t work = overlaps[i].size();
    uint32_t lo = secLo[i], hi = secHi[i];
    for (uint32_t j : overlaps[i]) {
      work += secHi[j] - secLo[j];
      lo = std::min(lo, secLo[j]);
      hi = std::max(hi, secHi[j]);
    }
    placeWork[i] = work + members[hi] - members[lo] + (hi - lo);
  }
}

namespace {

/// Static orders for the canonical search (ranks break ties between items
/// at the same minimum offset): each letter is a key, compared in turn,
/// larger first — T the largest bytes still to place among the sections the
/// item lives in, W its lifetime, C the number of sections it lives in, A
/// its area (size x lifetime). Chosen by measurement on MiniMalloc's
/// challenging suite (docs/benchmarks.md); MiniMalloc's own are WAT, TAW, TWA.
constexpr const char *kPreorders[] = {"TWA", "TCA", "TAW"};

/// Orders `items` by `keys`, with T computed from `sectionBytes`. Each
/// item's keys are computed once, before the sort (T reads every section
/// the item lives in: computed in the comparisons, it made the sorts of large
/// parts most of `exact`'s time). `work` gets what it cost: an item per
/// section read, and one per item per level of the sort.
std::vector<uint32_t> makePreorder(const SearchProblem &p, const char *keys,
                                   ArrayRef<uint32_t> items,
                                   ArrayRef<uint64_t> sectionBytes,
                                   uint64_t &work) {
  size_t n = items.size(), width = std::strlen(keys);
  assert(width <= 3 && "at most three keys");
  std::vector<std::array<double, 3>> key(n);
  work = 0;
  for (auto [k, i] : llvm::enumerate(items)) {
    const PackItem &item = p.item(i);
    double life = static_cast<double>(item.live.end - item.live.start);
    for (size_t c = 0; c < width; ++c) {
      switch (keys[c]) {
      case 'T': {
        uint64_t t = 0;
        for (uint32_t s = p.secLo[i]; s < p.secHi[i]; ++s)
          t = std::max(t, sectionBytes[s]);
        work += p.secHi[i] - p.secLo[i];
        key[k][c] = static_cast<double>(t);
        break;
      }
      case 'W':
        key[k][c] = life;
        break;
      case 'A':
        key[k][c] = static_cast<double>(item.size) * life;
        break;
      default: // 'C'
        key[k][c] = p.secHi[i] - p.secLo[i];
        break;
      }
    }
  }
  std::vector<uint32_t> position(n);
  std::iota(position.begin(), position.end(), 0);
  llvm::stable_sort(position, [&](uint32_t a, uint32_t b) {
    for (size_t c = 0; c < width; ++c)
      if (key[a][c] != key[b][c])
        return key[a][c] > key[b][c];
    return false;
  });
  work += orderWork(n);
  std::vector<uint32_t> order;
  order.reserve(n);
  for (uint32_t k : position)
    order.push_back(items[k]);
  return order;
}

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
  /// Starved: stopped where the work left could not pay for a ranking, a
  /// node's scan of its part, a candidate's pre-check or a placement
  /// (another order would stop there too).
  enum class Status { Found, Exhausted, Stopped, TooDeep, Starved };

  /// `offsetsOut`: by local id, one per item of the problem.
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
    // The ranking is charged once done: not begun where the work left
    // cannot pay for it (a part of 3 * 10^4 items costs about 10^6 units,
    // and exact on 10^5 buffers had ended 0.7 % past its bound).
    uint64_t cost = orderWork(part.items.size());
    for (uint32_t i : part.items)
      cost += p.secHi[i] - p.secLo[i];
    if (!budget.affords(cost)) {
      stopped = starved = true;
      return false;
    }
    uint64_t work = 0;
    std::vector<uint32_t> order =
        makePreorder(p, keys, part.items, unplacedBytes, work);
    budget.charge(work);
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
  /// Charges `units` for a step about to be done, if the work left pays for
  /// them; else marks the search starved (nothing charged) and returns false.
  bool pay(uint64_t units) {
    if (!budget.affords(units)) {
      stopped = starved = true;
      return false;
    }
    budget.charge(units);
    return true;
  }
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
  bool stopped = false, starved = false;
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
  if (p.floorOf.empty()) {
    for (uint32_t s = 0; s < sections; ++s)
      if (!p.inSection[s].empty()) {
        low[s] = 0;
        lowCount[s] = p.inSection[s].size();
      }
    budget.charge(n + sections);
    return;
  }
  // Items start at their floors; a section's floor is the lowest of its
  // items' (the invariant floor >= low holds from the start).
  minOffset = p.floorOf;
  lowOrMax = p.floorOf;
  uint64_t memberships = 0;
  for (uint32_t s = 0; s < sections; ++s) {
    for (uint32_t j : p.inSection[s]) {
      uint64_t v = minOffset[j];
      lowCount[s] = v < low[s] ? 1 : lowCount[s] + (v == low[s]);
      low[s] = std::min(low[s], v);
    }
    memberships += p.inSection[s].size();
    if (low[s] != UINT64_MAX)
      floor[s] = low[s];
  }
  budget.charge(n + sections + memberships);
}

CanonicalSearch::Status CanonicalSearch::run() {
  for (auto [s, bytes] : llvm::enumerate(unplacedBytes))
    if (bytes > cap || floor[s] > cap - bytes)
      return Status::Exhausted;
  Part all{0, static_cast<uint32_t>(floor.size()), {}};
  all.items.resize(placedAt.size());
  std::iota(all.items.begin(), all.items.end(), 0);
  if (solve(all)) {
    arena = 0;
    for (uint32_t i = 0; i < offsetsOut.size(); ++i)
      arena = std::max(arena, offsetsOut[i] + p.item(i).size);
    return Status::Found;
  }
  if (tooDeep)
    return Status::TooDeep;
  if (starved)
    return Status::Starved;
  return stopped ? Status::Stopped : Status::Exhausted;
}

void CanonicalSearch::record() {
  for (uint32_t i = 0; i < placedAt.size(); ++i)
    if (placedAt[i] != kUnplaced)
      offsetsOut[i] = placedAt[i];
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
  // candidate tried the sections and neighbours it touches; each paid for
  // before it is done, so that the search never ends past its bound (a
  // node's scan of 3178 items had ended a run 626 units past it).
  if (!pay(part.items.size()))
    return false;
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
    // The work bound at every candidate too: the pre-checks of thousands of
    // candidates of one node, each reading every section of a large part,
    // took exact on 10^5 buffers 0.7 % past its bound.
    if (budget.overWork()) {
      stopped = true;
      return false;
    }
    // A copy: deeper levels grow the stack (and may move it).
    const Candidate c = candidateStack[k];
    const uint32_t i = c.id;
    const uint64_t top = c.offset + p.item(i).size;
    if (top > cap)
      continue;
    // Cheap pre-checks of the section bound after placing i: its own
    // sections get floor `top`; every section gets at least c.offset.
    bool fit = true;
    if (!pay(1 + p.secHi[i] - p.secLo[i]))
      return false;
    for (uint32_t s = p.secLo[i]; s < p.secHi[i] && fit; ++s)
      fit = c.offset + unplacedBytes[s] <= cap;
    if (fit && c.offset + maxUnplaced > cap) {
      if (!pay(part.end - part.begin))
        return false;
      for (uint32_t s = part.begin; s < part.end && fit; ++s)
        fit = (s >= p.secLo[i] && s < p.secHi[i]) ||
              c.offset + unplacedBytes[s] <= cap;
    }
    if (!fit)
      continue;
    // The placement's propagation is charged as it runs: begun only when
    // the work left pays for the most it can cost.
    if (!budget.affords(p.placeWork[i])) {
      stopped = starved = true;
      return false;
    }
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
      budget.charge(p.secHi[j] - p.secLo[j]);
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

} // namespace

/// How much the node limit of the canonical search grows per restart round.
/// 4 rather than 2: fewer nodes spent in rounds that fail (MiniMalloc's
/// challenging suite: B 124 469 -> ~60 000 nodes, A and E about halved).
constexpr uint64_t kNodeLimitGrowth = 4;

// Declared (and documented) in PackingInternal.h.
SearchOutcome
mlir::memplan::packing::searchPortfolio(const SearchProblem &problem,
                                        std::vector<uint64_t> &offsets,
                                        const Budget &budget, uint64_t cap) {
  SearchOutcome out;
  // By local id: a failed search leaves `offsets` as it was.
  std::vector<uint64_t> trial(problem.global.size());
  for (uint64_t limit = 2 * problem.global.size();;
       limit = limit > UINT64_MAX / kNodeLimitGrowth
                   ? UINT64_MAX
                   : limit * kNodeLimitGrowth) {
    for (const char *keys : kPreorders) {
      // A search's set-up (its state, the ranking of every item) is charged
      // as it is done: one that the work left cannot pay for is not begun
      // (on 10^5 buffers each cost millions of units, and exact ended 0.7 %
      // past its bound).
      if (budget.expired())
        return out;
      if (!budget.affords(problem.setupWork)) {
        out.starved = true;
        return out;
      }
      CanonicalSearch search(problem, keys, cap, budget, limit, trial);
      CanonicalSearch::Status status = search.run();
      if (status == CanonicalSearch::Status::Found) {
        out.arena = search.getArena();
        for (auto [i, id] : llvm::enumerate(problem.global))
          offsets[id] = trial[i];
        return out;
      }
      if (status == CanonicalSearch::Status::Starved) {
        // The work left could not pay for a step the search needed: every
        // other order would stop there too.
        out.starved = true;
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
