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
             "the canonical search on every segment, whatever its size")});
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
