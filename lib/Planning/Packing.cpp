//===- Packing.cpp - Packing buffers into one arena -----------------------===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/Packing.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>
#include <random>
#include <set>

using namespace mlir::memplan;
using llvm::ArrayRef;

std::optional<PackAlgorithm>
mlir::memplan::parsePackAlgorithm(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<PackAlgorithm>>(name)
      .Case("greedy-size", PackAlgorithm::GreedySize)
      .Case("greedy-time", PackAlgorithm::GreedyTime)
      .Case("best", PackAlgorithm::Best)
      .Case("exact", PackAlgorithm::Exact)
      .Default(std::nullopt);
}

llvm::StringRef mlir::memplan::stringifyPackAlgorithm(PackAlgorithm algorithm) {
  switch (algorithm) {
  case PackAlgorithm::GreedySize:
    return "greedy-size";
  case PackAlgorithm::GreedyTime:
    return "greedy-time";
  case PackAlgorithm::Best:
    return "best";
  case PackAlgorithm::Exact:
    return "exact";
  }
  return "unknown";
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
    if (item.size > (UINT64_MAX >> 2) || item.alignment > (UINT64_MAX >> 2))
      return "item " + std::to_string(i) + ": size or alignment too large";
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
  llvm::sort(order, [&](size_t a, size_t b) {
    return items[a].live.start < items[b].live.start;
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

struct Deadline {
  Clock::time_point end;
  explicit Deadline(double seconds)
      : end(Clock::now() +
            std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6))) {}
  bool expired() const { return Clock::now() >= end; }
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
      return items[a].live.start < items[b].live.start;
    });
    llvm::sort(nodes[index].byEnd, [&](uint32_t a, uint32_t b) {
      return items[a].live.end > items[b].live.end;
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
};

/// Places `order` one by one, each at the best-fitting gap among the
/// time-overlapping items already placed (the smallest gap that fits, lowest
/// offset on ties), or on top of them. Returns the arena, or nullopt when it
/// runs past `deadline` or past `cutoff`.
std::optional<uint64_t>
placeInOrder(const Segment &seg, const IntervalTree &tree,
             ArrayRef<uint32_t> order, std::vector<uint64_t> &offsets,
             std::vector<uint8_t> &placed, const Deadline *deadline,
             uint64_t cutoff) {
  for (uint32_t id : seg.ids)
    placed[id] = 0;
  uint64_t arena = 0;
  std::vector<std::pair<uint64_t, uint64_t>> busy; // (offset, end)
  size_t count = 0;
  for (uint32_t id : order) {
    if (deadline && (++count & 255) == 0 && deadline->expired())
      return std::nullopt;
    const PackItem &item = seg.items[id];
    busy.clear();
    tree.forEachOverlap(item.live, [&](uint32_t other) {
      if (placed[other])
        busy.push_back(
            {offsets[other], offsets[other] + seg.items[other].size});
    });
    llvm::sort(busy);
    uint64_t cursor = 0, bestOffset = UINT64_MAX, bestGap = UINT64_MAX;
    for (auto [lo, hi] : busy) {
      if (lo > cursor) {
        uint64_t at = alignUp(cursor, item.alignment);
        if (at + item.size <= lo && lo - cursor < bestGap) {
          bestGap = lo - cursor;
          bestOffset = at;
        }
      }
      cursor = std::max(cursor, hi);
    }
    if (bestOffset == UINT64_MAX)
      bestOffset = alignUp(cursor, item.alignment);
    offsets[id] = bestOffset;
    placed[id] = 1;
    arena = std::max(arena, bestOffset + item.size);
    if (arena >= cutoff)
      return std::nullopt;
  }
  return arena;
}

/// Start order, best fit, as a sweep over an ordered free list: at each step
/// the overlapping placed items are exactly the live ones. O(n log n).
/// At equal starts, `longestFirst` places the longest-lived item first (so
/// it sits lower, as in a stack); otherwise the largest.
uint64_t sweepStartOrder(const Segment &seg, std::vector<uint64_t> &offsets,
                         bool longestFirst = false) {
  std::vector<uint32_t> order(seg.ids);
  const auto &items = seg.items;
  llvm::sort(order, [&](uint32_t a, uint32_t b) {
    if (items[a].live.start != items[b].live.start)
      return items[a].live.start < items[b].live.start;
    if (longestFirst && items[a].live.end != items[b].live.end)
      return items[a].live.end > items[b].live.end;
    if (items[a].size != items[b].size)
      return items[a].size > items[b].size;
    return a < b;
  });
  std::map<uint64_t, uint64_t> freeByOffset;      // offset -> size
  std::set<std::pair<uint64_t, uint64_t>> bySize; // (size, offset)
  std::multimap<int64_t, uint32_t> ending;        // end -> id
  uint64_t top = 0, arena = 0;

  auto addFree = [&](uint64_t offset, uint64_t size) {
    // Coalesce with neighbours, then merge into the top if it touches it.
    auto next = freeByOffset.lower_bound(offset);
    if (next != freeByOffset.end() && offset + size == next->first) {
      size += next->second;
      bySize.erase({next->second, next->first});
      next = freeByOffset.erase(next);
    }
    if (next != freeByOffset.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == offset) {
        offset = prev->first;
        size += prev->second;
        bySize.erase({prev->second, prev->first});
        freeByOffset.erase(prev);
      }
    }
    if (offset + size == top) {
      top = offset;
      return;
    }
    freeByOffset[offset] = size;
    bySize.insert({size, offset});
  };
  auto takeFree = [&](uint64_t offset, uint64_t size, uint64_t at,
                      uint64_t need) {
    bySize.erase({size, offset});
    freeByOffset.erase(offset);
    if (at > offset) {
      freeByOffset[offset] = at - offset;
      bySize.insert({at - offset, offset});
    }
    if (at + need < offset + size) {
      uint64_t rest = offset + size - (at + need);
      freeByOffset[at + need] = rest;
      bySize.insert({rest, at + need});
    }
  };

  for (uint32_t id : order) {
    const PackItem &item = items[id];
    while (!ending.empty() && ending.begin()->first <= item.live.start) {
      uint32_t done = ending.begin()->second;
      ending.erase(ending.begin());
      addFree(offsets[done], items[done].size);
    }
    uint64_t at = UINT64_MAX;
    for (auto it = bySize.lower_bound({item.size, 0}); it != bySize.end();
         ++it) {
      uint64_t candidate = alignUp(it->second, item.alignment);
      if (candidate + item.size <= it->second + it->first) {
        at = candidate;
        takeFree(it->second, it->first, at, item.size);
        break;
      }
    }
    if (at == UINT64_MAX) {
      at = alignUp(top, item.alignment);
      if (at > top) {
        freeByOffset[top] = at - top;
        bySize.insert({at - top, top});
      }
      top = at + item.size;
    }
    offsets[id] = at;
    arena = std::max(arena, at + item.size);
    ending.insert({item.live.end, id});
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
    std::uniform_real_distribution<double> noise(0.5, 1.5);
    std::vector<double> key(items.size());
    for (uint32_t i : order)
      key[i] = static_cast<double>(items[i].size) * noise(*rng);
    llvm::stable_sort(order,
                      [&](uint32_t a, uint32_t b) { return key[a] > key[b]; });
    break;
  }
  }
  return order;
}

/// Branch and bound over bottom-left (skyline) packings. Time is cut into
/// sections between event points; each section has a floor, and every
/// unplaced item sits at or above the floor of each section it lives in.
/// At each node, take the active section s* with the lowest floor m. In any
/// completion, the lowest unplaced item of s* either sits exactly at m — then
/// every section it lives in has floor m and m is aligned for it: it is a
/// candidate, placed here — or higher, and the band [m, o) of s* is empty: s*
/// is lifted to a lower bound of o. So the search is complete. Placing adds
/// no waste; a lift does, and is cut off by the per-section bound
/// floor + unplaced bytes <= capacity.
class SkylineSearch {
public:
  /// `strategy` % 4 picks how candidates are tried (0 larger first, 1 longer
  /// first, 2 larger area first, 3 later end first); strategy / 4 picks the
  /// tie-break between equally low sections (0 least slack, 1 leftmost).
  SkylineSearch(const Segment &seg, std::vector<uint64_t> &offsets,
                const Deadline &deadline, uint64_t capacity, bool optimize,
                int strategy)
      : items(seg.items), global(seg.ids), offsetsOut(offsets),
        deadline(deadline), cap(capacity), optimize(optimize),
        order(strategy % 4), leftmost(strategy / 4 == 1) {}

  /// Returns true when the search space was exhausted.
  bool run();
  /// The smallest arena found, or UINT64_MAX.
  uint64_t getBest() const { return best; }

private:
  void dfs(size_t placedCount);
  const PackItem &item(uint32_t local) const { return items[global[local]]; }

  ArrayRef<PackItem> items;
  std::vector<uint32_t> global;
  std::vector<uint64_t> &offsetsOut;
  const Deadline &deadline;
  uint64_t cap;
  bool optimize;
  uint64_t best = UINT64_MAX;

  size_t n = 0;
  std::vector<uint32_t> secLo, secHi;
  std::vector<std::vector<uint32_t>> itemsIn; // per section, local ids
  std::vector<uint64_t> floor, unplacedSum;
  std::vector<uint32_t> unplacedCount;
  std::vector<uint64_t> offset;
  std::vector<uint8_t> placed;
  uint64_t nodes = 0;
  bool stop = false;
  bool timedOut = false;
  int order;
  bool leftmost;
};

bool SkylineSearch::run() {
  n = global.size();
  std::vector<int64_t> points;
  for (uint32_t id : global) {
    points.push_back(items[id].live.start);
    points.push_back(items[id].live.end);
  }
  llvm::sort(points);
  points.erase(std::unique(points.begin(), points.end()), points.end());
  size_t sections = points.size() - 1;
  secLo.resize(n);
  secHi.resize(n);
  itemsIn.assign(sections, {});
  floor.assign(sections, 0);
  unplacedSum.assign(sections, 0);
  unplacedCount.assign(sections, 0);
  for (uint32_t i = 0; i < n; ++i) {
    const Interval &live = item(i).live;
    secLo[i] = std::lower_bound(points.begin(), points.end(), live.start) -
               points.begin();
    secHi[i] = std::lower_bound(points.begin(), points.end(), live.end) -
               points.begin();
    for (uint32_t s = secLo[i]; s < secHi[i]; ++s) {
      itemsIn[s].push_back(i);
      unplacedSum[s] += item(i).size;
      ++unplacedCount[s];
    }
  }
  // The order candidates are tried in.
  auto duration = [&](uint32_t i) {
    return static_cast<uint64_t>(item(i).live.end - item(i).live.start);
  };
  for (auto &list : itemsIn)
    llvm::sort(list, [&](uint32_t a, uint32_t b) {
      auto key = [&](uint32_t i) {
        switch (order) {
        case 0:
          return std::make_tuple(item(i).size, duration(i), 0ull);
        case 1:
          return std::make_tuple(duration(i), item(i).size, 0ull);
        case 2:
          return std::make_tuple(item(i).size * duration(i), item(i).size,
                                 0ull);
        default:
          return std::make_tuple((uint64_t)item(i).live.end, item(i).size,
                                 0ull);
        }
      };
      if (key(a) != key(b))
        return key(a) > key(b);
      return a < b;
    });
  offset.assign(n, 0);
  placed.assign(n, 0);
  for (size_t s = 0; s < sections; ++s)
    if (unplacedSum[s] > cap)
      return true; // infeasible at the root
  dfs(0);
  return !timedOut && !stop;
}

void SkylineSearch::dfs(size_t placedCount) {
  if ((++nodes & 1023) == 0 && deadline.expired()) {
    timedOut = true;
    return;
  }
  if (placedCount == n) {
    uint64_t arena = 0;
    for (uint32_t i = 0; i < n; ++i)
      arena = std::max(arena, offset[i] + item(i).size);
    if (arena < best) {
      best = arena;
      for (uint32_t i = 0; i < n; ++i)
        offsetsOut[global[i]] = offset[i];
    }
    if (!optimize || best == 0)
      stop = true;
    else
      cap = best - 1;
    return;
  }
  // The active section with the lowest floor; ties: the least slack, or the
  // leftmost.
  size_t star = SIZE_MAX;
  for (size_t s = 0; s < floor.size(); ++s) {
    if (!unplacedCount[s])
      continue;
    if (floor[s] + unplacedSum[s] > cap)
      return; // this section can no longer hold what it must
    if (star == SIZE_MAX || floor[s] < floor[star] ||
        (!leftmost && floor[s] == floor[star] &&
         floor[s] + unplacedSum[s] > floor[star] + unplacedSum[star]))
      star = s;
  }
  uint64_t m = floor[star];

  // Branch 1: an item of s* sits at m.
  auto maxFloor = [&](uint32_t i) {
    uint64_t f = 0;
    for (uint32_t s = secLo[i]; s < secHi[i]; ++s)
      f = std::max(f, floor[s]);
    return f;
  };
  llvm::SmallVector<std::pair<uint32_t, uint64_t>, 16> saved;
  for (uint32_t i : itemsIn[star]) {
    if (placed[i] || m % item(i).alignment != 0 || maxFloor(i) != m)
      continue;
    uint64_t top = m + item(i).size;
    placed[i] = 1;
    offset[i] = m;
    saved.clear();
    for (uint32_t s = secLo[i]; s < secHi[i]; ++s) {
      saved.push_back({s, floor[s]});
      floor[s] = top;
      unplacedSum[s] -= item(i).size;
      --unplacedCount[s];
    }
    dfs(placedCount + 1);
    for (auto [s, old] : saved) {
      floor[s] = old;
      unplacedSum[s] += item(i).size;
      ++unplacedCount[s];
    }
    placed[i] = 0;
    if (stop || timedOut)
      return;
  }

  // Branch 2: nothing sits at m in s*: lift s* to a lower bound of where its
  // lowest item can sit.
  uint64_t lift = UINT64_MAX;
  for (uint32_t i : itemsIn[star]) {
    if (placed[i])
      continue;
    const PackItem &it = item(i);
    uint64_t at = alignUp(maxFloor(i), it.alignment);
    if (at <= m) {
      // It could sit at m; above m only on top of an unplaced item of
      // another section, which sits at or above its own floors.
      uint64_t under = UINT64_MAX;
      for (uint32_t s = secLo[i]; s < secHi[i]; ++s) {
        if (s == star)
          continue;
        for (uint32_t j : itemsIn[s])
          if (!placed[j] && j != i &&
              (secLo[j] > star || secHi[j] <= star)) // not live in s*
            under = std::min(under, alignUp(maxFloor(j), item(j).alignment) +
                                        item(j).size);
      }
      if (under == UINT64_MAX)
        continue; // it can only sit at m
      at = alignUp(under, it.alignment);
    }
    lift = std::min(lift, at);
  }
  if (lift == UINT64_MAX || lift + unplacedSum[star] > cap)
    return;
  floor[star] = lift;
  dfs(placedCount);
  floor[star] = m;
}

/// Splits items into segments that no lifetime crosses.
std::vector<Segment> splitSegments(ArrayRef<PackItem> items) {
  std::vector<uint32_t> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  llvm::sort(order, [&](uint32_t a, uint32_t b) {
    return items[a].live.start < items[b].live.start;
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
    std::vector<PackItem> part;
    part.reserve(seg.ids.size());
    for (uint32_t id : seg.ids)
      part.push_back(items[id]);
    seg.lowerBound = packLowerBound(part);
  }
  return segments;
}

/// Random orders tried without improvement before Best gives up early.
constexpr unsigned kMaxStall = 256;

/// The greedy phase for one segment: both sweeps, the greedy placer over
/// four orders, then (when `randomize`) random size orders until the
/// deadline, the target or a stall. Returns the arena; offsets filled.
uint64_t packGreedy(const Segment &seg, std::vector<uint64_t> &offsets,
                    const Deadline &deadline, uint64_t target, uint64_t seed,
                    bool randomize) {
  uint64_t best = sweepStartOrder(seg, offsets);
  if (best <= target)
    return best;
  std::vector<uint64_t> trial(offsets.size());
  {
    uint64_t arena = sweepStartOrder(seg, trial, /*longestFirst=*/true);
    if (arena < best) {
      best = arena;
      for (uint32_t id : seg.ids)
        offsets[id] = trial[id];
    }
    if (best <= target || deadline.expired())
      return best;
  }
  std::vector<uint8_t> placed(offsets.size(), 0);
  IntervalTree tree(seg.items, seg.ids);
  auto keep = [&](uint64_t arena) {
    best = arena;
    for (uint32_t id : seg.ids)
      offsets[id] = trial[id];
  };
  for (OrderKind kind : {OrderKind::Size, OrderKind::Area, OrderKind::Duration,
                         OrderKind::Start}) {
    std::vector<uint32_t> order = makeOrder(seg, kind, nullptr);
    std::optional<uint64_t> arena =
        placeInOrder(seg, tree, order, trial, placed, &deadline, best);
    if (arena && *arena < best)
      keep(*arena);
    if (best <= target || deadline.expired())
      return best;
  }
  if (!randomize)
    return best;
  // Randomized improvement until the deadline, the target, or a stall.
  std::mt19937_64 rng(seed);
  for (unsigned stall = 0;
       best > target && stall < kMaxStall && !deadline.expired(); ++stall) {
    std::vector<uint32_t> order = makeOrder(seg, OrderKind::Random, &rng);
    std::optional<uint64_t> arena =
        placeInOrder(seg, tree, order, trial, placed, &deadline, best);
    if (arena && *arena < best) {
      keep(*arena);
      stall = 0;
    }
  }
  return best;
}
/// The share of the remaining time the decision search at the lower bound
/// gets before the optimizing search.
constexpr double kDecisionShare = 0.75;

/// Segments up to this size are searched exactly by Best too.
constexpr size_t kMaxSearchItems = 4096;

/// Candidate orders x section tie-breaks tried by the portfolio.
constexpr int kStrategies = 8;

struct SearchOutcome {
  uint64_t arena = UINT64_MAX;
  bool exhausted = false;
};

/// The skyline search with restarts: rounds over the strategies with
/// doubling time slices, until `deadline`. Decision mode stops at the
/// first arena <= cap; optimize mode keeps lowering cap below each arena
/// found. `exhausted` means no arena <= the last cap exists (the search is
/// complete whatever the order).
SearchOutcome searchPortfolio(const Segment &seg,
                              std::vector<uint64_t> &offsets,
                              const Deadline &deadline, uint64_t cap,
                              bool optimize) {
  SearchOutcome out;
  std::vector<uint64_t> trial(offsets);
  for (double slice = 0.02;; slice *= 2) {
    for (int strategy = 0; strategy < kStrategies; ++strategy) {
      double remaining =
          std::chrono::duration<double>(deadline.end - Clock::now()).count();
      if (remaining <= 0)
        return out;
      Deadline limit(std::min(slice, remaining));
      SkylineSearch search(seg, trial, limit, cap, optimize, strategy);
      bool exhausted = search.run();
      if (search.getBest() < out.arena) {
        out.arena = search.getBest();
        for (uint32_t id : seg.ids)
          offsets[id] = trial[id];
        if (!optimize)
          return out;
        if (out.arena == 0)
          exhausted = true;
        else
          cap = out.arena - 1;
      }
      if (exhausted) {
        out.exhausted = true;
        return out;
      }
    }
  }
}

/// Best and Exact for one segment: the greedy phase, then (for segments
/// small enough, always for Exact) a decision search at the goal with 60 % of
/// the remaining time and an optimizing search below the incumbent with the
/// rest. Sets `proven` when the result is proven minimal for the segment and
/// `infeasible` when the capacity is proven too small.
uint64_t packSearch(const Segment &seg, std::vector<uint64_t> &offsets,
                    const Deadline &deadline, uint64_t target,
                    const PackOptions &options, bool &proven,
                    bool &infeasible) {
  bool exact = options.algorithm == PackAlgorithm::Exact;
  bool search = exact || seg.ids.size() <= kMaxSearchItems;
  uint64_t arena =
      packGreedy(seg, offsets, deadline, target, options.seed, !search);
  uint64_t goal =
      options.capacity ? std::max(target, *options.capacity) : target;
  if (!search || arena <= goal)
    return arena;
  auto remaining = [&] {
    return std::chrono::duration<double>(deadline.end - Clock::now()).count();
  };
  Deadline decisionDeadline(std::max(0.0, kDecisionShare * remaining()));
  SearchOutcome decision =
      searchPortfolio(seg, offsets, decisionDeadline, goal, /*optimize=*/false);
  if (decision.arena <= goal)
    return decision.arena;
  if (decision.exhausted && options.capacity && goal == *options.capacity) {
    infeasible = true;
    return arena;
  }
  // The goal is out of reach for now: improve the incumbent by randomized
  // reordering (a third of what is left), then search below it.
  // It may be cut short with a worse packing: keep it only if better.
  Deadline randomDeadline(std::max(0.0, remaining() / 3));
  std::vector<uint64_t> trial(offsets);
  uint64_t randomArena = packGreedy(seg, trial, randomDeadline, target,
                                    options.seed, /*randomize=*/true);
  if (randomArena < arena) {
    arena = randomArena;
    for (uint32_t id : seg.ids)
      offsets[id] = trial[id];
  }
  SearchOutcome better =
      searchPortfolio(seg, offsets, deadline, arena - 1, /*optimize=*/true);
  proven = better.exhausted;
  return std::min(arena, better.arena);
}

} // namespace

PackResult mlir::memplan::pack(ArrayRef<PackItem> items,
                               const PackOptions &options) {
  PackResult result;
  result.offsets.assign(items.size(), 0);
  if (items.empty()) {
    result.optimal = true;
    return result;
  }
  Deadline deadline(options.timeLimitSeconds);
  std::vector<Segment> segments = splitSegments(items);
  for (const Segment &seg : segments)
    result.lowerBound = std::max(result.lowerBound, seg.lowerBound);
  // No segment needs to go below the bound that the whole arena must reach.
  const uint64_t target = result.lowerBound;
  bool provenOptimal = true;
  for (Segment &seg : segments) {
    uint64_t arena = 0;
    bool segmentProven = false;
    switch (options.algorithm) {
    case PackAlgorithm::GreedyTime:
      arena = sweepStartOrder(seg, result.offsets);
      break;
    case PackAlgorithm::GreedySize: {
      IntervalTree tree(items, seg.ids);
      std::vector<uint8_t> placed(items.size(), 0);
      std::vector<uint32_t> order = makeOrder(seg, OrderKind::Size, nullptr);
      arena = *placeInOrder(seg, tree, order, result.offsets, placed, nullptr,
                            UINT64_MAX);
      break;
    }
    case PackAlgorithm::Best:
    case PackAlgorithm::Exact: {
      bool infeasible = false;
      arena = packSearch(seg, result.offsets, deadline, target, options,
                         segmentProven, infeasible);
      result.provenInfeasible |= infeasible;
      break;
    }
    }
    if (arena > target && !segmentProven)
      provenOptimal = false;
    result.arena = std::max(result.arena, arena);
  }
  result.optimal = provenOptimal;
  return result;
}
