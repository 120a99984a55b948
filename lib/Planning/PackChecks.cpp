//===- PackChecks.cpp - Plans checked, bounds, names ---------------------===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//

#include "PackingInternal.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <map>
#include <numeric>
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
             "the canonical search on every segment, whatever its size "
             "(where it can be built)")});
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

uint64_t mlir::memplan::packing::paddedLowerBound(ArrayRef<PackItem> items) {
  // Every start is a multiple of its item's alignment, hence of g, the
  // least alignment among the items live at a time t. Stacked by offset,
  // each of those items but the topmost is followed by at least its size
  // rounded up to g, so the arena is at least sum(roundUp(size, g)) minus
  // the largest padding roundUp(size, g) - size among them. The distinct
  // alignments are few (usually one): the sums and the paddings are kept
  // for each of the kMaxClasses least; where g is larger, the largest of
  // them (which divides g) stands in for it.
  constexpr size_t kMaxClasses = 4;
  std::vector<uint64_t> aligns;
  bool padded = false;
  for (const PackItem &item : items)
    if (item.live.isValid() && item.size) {
      aligns.push_back(item.alignment);
      padded |= item.alignment > 1 && item.size % item.alignment != 0;
    }
  // Sizes that are multiples of their alignment are multiples of g: no
  // padding anywhere (the pack-arena pass rounds its sizes so), and the
  // bound is the peak itself.
  if (!padded)
    return 0;
  llvm::sort(aligns);
  aligns.erase(std::unique(aligns.begin(), aligns.end()), aligns.end());
  if (aligns.size() > kMaxClasses)
    aligns.resize(kMaxClasses);
  size_t classes = aligns.size();
  struct Event {
    int64_t step;
    bool isStart;
    uint32_t id;
  };
  std::vector<Event> events;
  events.reserve(2 * items.size());
  for (auto [id, item] : llvm::enumerate(items))
    if (item.live.isValid() && item.size) {
      events.push_back({item.live.start, true, static_cast<uint32_t>(id)});
      events.push_back({item.live.end, false, static_cast<uint32_t>(id)});
    }
  llvm::sort(events, [](const Event &a, const Event &b) {
    if (a.step != b.step)
      return a.step < b.step;
    if (a.isStart != b.isStart)
      return !a.isStart;
    return a.id < b.id;
  });
  auto classOf = [&](uint64_t alignment) {
    return std::min<size_t>(
        llvm::lower_bound(aligns, alignment) - aligns.begin(), classes - 1);
  };
  // Per class: live items of that least alignment, the live sizes rounded
  // up to it (128 bits: cannot wrap), and the paddings as a max-heap whose
  // dead entries are dropped when they reach the top.
  std::vector<uint64_t> count(classes, 0);
  std::vector<unsigned __int128> rounded(classes, 0);
  std::vector<std::vector<std::pair<uint64_t, uint32_t>>> pads(classes);
  std::vector<uint8_t> live(items.size(), 0);
  unsigned __int128 best = 0;
  for (size_t i = 0, e = events.size(); i < e;) {
    int64_t step = events[i].step;
    for (; i < e && events[i].step == step; ++i) {
      const PackItem &item = items[events[i].id];
      live[events[i].id] = events[i].isStart;
      count[classOf(item.alignment)] += events[i].isStart ? 1 : -1;
      for (size_t k = 0; k < classes; ++k) {
        uint64_t up = packing::alignUp(item.size, aligns[k]);
        if (events[i].isStart) {
          rounded[k] += up;
          if (up != item.size) {
            pads[k].push_back({up - item.size, events[i].id});
            std::push_heap(pads[k].begin(), pads[k].end());
          }
        } else {
          rounded[k] -= up;
        }
      }
    }
    size_t k = 0;
    while (k < classes && count[k] == 0)
      ++k;
    if (k == classes || rounded[k] <= best)
      continue;
    std::vector<std::pair<uint64_t, uint32_t>> &heap = pads[k];
    while (!heap.empty() && !live[heap.front().second]) {
      std::pop_heap(heap.begin(), heap.end());
      heap.pop_back();
    }
    unsigned __int128 here =
        rounded[k] - (heap.empty() ? 0 : heap.front().first);
    best = std::max(best, here);
  }
  return best > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(best);
}

uint64_t mlir::memplan::packAlignedLowerBound(ArrayRef<PackItem> items) {
  // Where some size is padded the sweep is at least the peak (each live
  // size but one counts rounded up, that one in full).
  uint64_t padded = packing::paddedLowerBound(items);
  return padded ? padded : packLowerBound(items);
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
