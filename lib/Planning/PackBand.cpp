//===- PackBand.cpp - The canonical search on the top band of a packing ---===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//
//
// Best's exact repair of a large segment's packing (docs/Packing.md): the
// items whose tops lie in a band below the arena are taken out and packed
// again by the canonical search, above the tops of the items left in place.
//
//===----------------------------------------------------------------------===//

#include "PackingInternal.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir::memplan;
using namespace mlir::memplan::packing;

namespace {

/// The highest value raised over any leaf of a range, for ranges of leaves
/// raised and asked about in any order: `whole` holds what was raised over a
/// node's whole range, `inside` the highest raised anywhere inside it. A
/// range raised and a range asked about meet exactly when a canonical node
/// of one contains one of the other, so a query reads `inside` of its
/// canonical nodes and `whole` of the nodes above them (all on the paths of
/// its two end leaves). Iterative: nothing recurses.
class HighestOver {
public:
  explicit HighestOver(size_t n)
      : leaves(llvm::PowerOf2Ceil(std::max<size_t>(n, 1))),
        whole(2 * leaves, 0), inside(2 * leaves, 0) {}

  void raise(size_t l, size_t r, uint64_t value) {
    forEachCanonicalNode(leaves, l, r, [&](size_t node) {
      whole[node] = std::max(whole[node], value);
      inside[node] = std::max(inside[node], value);
    });
    // Every node above a canonical node holds one of the two end leaves.
    for (size_t node = (l + leaves) >> 1; node; node >>= 1)
      inside[node] = std::max(inside[node], value);
    for (size_t node = (r - 1 + leaves) >> 1; node; node >>= 1)
      inside[node] = std::max(inside[node], value);
  }

  uint64_t highest(size_t l, size_t r) const {
    uint64_t value = 0;
    forEachCanonicalNode(leaves, l, r, [&](size_t node) {
      value = std::max(value, inside[node]);
    });
    for (size_t node = l + leaves; node; node >>= 1)
      value = std::max(value, whole[node]);
    for (size_t node = r - 1 + leaves; node; node >>= 1)
      value = std::max(value, whole[node]);
    return value;
  }

  /// About how many nodes one raise or query visits, and the nodes it
  /// holds, for `n` leaves (before building one).
  static uint64_t nodesPerCall(size_t n) {
    return 4 * (llvm::Log2_64(llvm::PowerOf2Ceil(std::max<size_t>(n, 1))) + 1);
  }
  static uint64_t nodes(size_t n) {
    return 2 * llvm::PowerOf2Ceil(std::max<size_t>(n, 1));
  }

private:
  size_t leaves;
  std::vector<uint64_t> whole, inside;
};

} // namespace

/// The most items one band may take out: the canonical search packs or
/// proves impossible a few hundred hard items (MiniMalloc's suite) and more
/// easy ones, and builds no problem past 2^22 overlapping pairs.
constexpr size_t kMaxBandItems = 4096;
/// The share of the work left that one attempt (a band at one capacity)
/// gets. Chosen on bench/pack_suite.py's traces (docs/benchmarks.md): with
/// 1/32, 1/16, 1/8, 1/4 and 1/2 of it the suite's mean excess over LB was
/// 0.00335, 0.00279, 0.00277, 0.00232 and 0.00231 (held-out traces 0.00302,
/// 0.00282, 0.00262, 0.00262, 0.00201): most attempts end at once, proven
/// impossible, and those that find a packing need the work.
constexpr double kBandAttemptShare = 1.0 / 2;

// Declared (and documented) in PackingInternal.h.
uint64_t mlir::memplan::packing::improveTopBand(const Segment &seg,
                                                std::vector<uint64_t> &offsets,
                                                const Budget &budget,
                                                uint64_t target,
                                                uint64_t arena) {
  const auto &items = seg.items;
  const size_t n = seg.ids.size();
  // Time is cut at the distinct starts (as in BusyIndex): two items overlap
  // exactly when their ranges of leaves meet.
  const uint64_t setup = n + 3 * orderWork(n);
  if (n == 0 || arena <= target || !budget.affords(setup))
    return arena;
  const StartLeaves starts(seg);
  std::vector<std::pair<uint32_t, uint32_t>> leaf(n);
  for (size_t k = 0; k < n; ++k)
    leaf[k] = starts.range(items[seg.ids[k]].live);
  budget.charge(setup);
  std::vector<std::pair<uint64_t, uint32_t>> byTop(n); // (top, position)
  std::vector<uint8_t> taken(n);
  bool lowered = true;
  while (lowered && arena > target && !budget.expired()) {
    lowered = false;
    // The items by top, the highest first (ties by position).
    if (!budget.affords(n + orderWork(n)))
      break;
    size_t above = 0;
    for (size_t k = 0; k < n; ++k) {
      uint32_t id = seg.ids[k];
      byTop[k] = {offsets[id] + items[id].size, static_cast<uint32_t>(k)};
      above += byTop[k].first > target;
    }
    llvm::sort(byTop, [](const auto &a, const auto &b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    budget.charge(n + orderWork(n));
    // The band: the items whose tops lie within `depth` of the arena, from
    // the excess over the target, half as deep again each time, but never
    // more than twice the items of the band before.
    uint64_t depth = arena - target;
    for (size_t count = above; !lowered && count <= kMaxBandItems;) {
      const uint64_t selectWork = 2 * n + orderWork(count) +
                                  n * HighestOver::nodesPerCall(starts.size()) +
                                  HighestOver::nodes(starts.size());
      if (!budget.affords(selectWork))
        return arena;
      HighestOver tops(starts.size());
      // The band's items in position order (their segment's start order),
      // and the highest top of the items left in place.
      Segment part{items, {}, 0, 0};
      std::vector<uint32_t> positions;
      positions.reserve(count);
      for (size_t j = 0; j < count; ++j)
        positions.push_back(byTop[j].second);
      llvm::sort(positions);
      std::fill(taken.begin(), taken.end(), 0);
      for (uint32_t k : positions) {
        taken[k] = 1;
        part.ids.push_back(seg.ids[k]);
      }
      const uint64_t keptTop = count < n ? byTop[count].first : 0;
      // Each one's floor: the highest top of the items left in place that
      // it overlaps.
      for (size_t k = 0; k < n; ++k)
        if (!taken[k])
          tops.raise(leaf[k].first, leaf[k].second,
                     offsets[seg.ids[k]] + items[seg.ids[k]].size);
      std::vector<uint64_t> floors;
      floors.reserve(count);
      for (uint32_t k : positions)
        floors.push_back(tops.highest(leaf[k].first, leaf[k].second));
      budget.charge(selectWork);
      SearchProblem problem(part, budget.workAffordable(), floors);
      budget.charge(problem.buildWork);
      if (problem.tooLarge)
        return arena;
      // At the target first, then halfway to it, then just below the
      // arena (the band holds every item above the target, so the items
      // left in place end at or below each). A packing found (the search
      // writes the band's offsets) lowers the arena; the band then starts
      // over from the top.
      const uint64_t caps[] = {target, target + (arena - target) / 2,
                               arena - 1};
      for (auto [k, cap] : llvm::enumerate(caps)) {
        if (k && cap == caps[k - 1])
          continue;
        if (budget.expired())
          return arena;
        SearchOutcome outcome = searchPortfolio(
            problem, offsets, budget.share(kBandAttemptShare), cap);
        if (outcome.arena <= cap) {
          arena = std::max(keptTop, outcome.arena);
          lowered = true;
          break;
        }
      }
      if (count == n)
        break;
      // At least one byte deeper (an excess of one byte would otherwise
      // never grow), and at least an eighth more items.
      depth = depth > UINT64_MAX / 3 ? UINT64_MAX
                                     : depth + std::max<uint64_t>(depth / 2, 1);
      const uint64_t band = depth >= arena ? 0 : arena - depth;
      size_t deeper = std::partition_point(byTop.begin(), byTop.end(),
                                           [&](const auto &entry) {
                                             return entry.first > band;
                                           }) -
                      byTop.begin();
      count = std::min({std::max(deeper, count + count / 8 + 1), 2 * count, n});
    }
  }
  return arena;
}
