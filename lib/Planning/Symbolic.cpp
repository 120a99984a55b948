//===- Symbolic.cpp - Placements valid for every buffer size --------------===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/Symbolic.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <map>
#include <numeric>

using namespace mlir;
using namespace mlir::memplan;

llvm::StringRef
mlir::memplan::stringifySymbolicAlgorithm(SymbolicAlgorithm algorithm) {
  switch (algorithm) {
  case SymbolicAlgorithm::Partitions:
    return "partitions";
  case SymbolicAlgorithm::Ordered:
    return "ordered";
  case SymbolicAlgorithm::Auto:
    return "auto";
  }
  return "auto";
}

llvm::cl::ValuesClass mlir::memplan::symbolicAlgorithmValues() {
  auto value = [](SymbolicAlgorithm a, llvm::StringRef help) {
    return llvm::cl::OptionEnumValue{stringifySymbolicAlgorithm(a),
                                     static_cast<int>(a), help};
  };
  return llvm::cl::ValuesClass(
      {value(SymbolicAlgorithm::Partitions,
             "tract's partitions: disjoint lifetimes share one, end to end"),
       value(SymbolicAlgorithm::Ordered,
             "the orders of packings at representative sizes (and 1/8, 1/64 "
             "of them), the smallest arena chosen at run time"),
       value(SymbolicAlgorithm::Auto,
             "ordered and partitions, the smallest arena chosen at run time "
             "(default)")});
}

namespace {
/// Calls `visit(earlier, later)` once for every pair of items whose
/// lifetimes overlap, `earlier` starting first (ties by index). A sweep in
/// start order over the items still live.
template <typename Visit>
void forEachConflict(llvm::ArrayRef<SymbolicItem> items, Visit visit) {
  std::vector<uint32_t> byStart(items.size());
  std::iota(byStart.begin(), byStart.end(), 0);
  std::sort(byStart.begin(), byStart.end(), [&](uint32_t a, uint32_t b) {
    if (items[a].live.start != items[b].live.start)
      return items[a].live.start < items[b].live.start;
    return a < b;
  });
  std::vector<uint32_t> active;
  for (uint32_t i : byStart) {
    int64_t start = items[i].live.start;
    llvm::erase_if(active,
                   [&](uint32_t j) { return items[j].live.end <= start; });
    for (uint32_t j : active)
      visit(j, i);
    active.push_back(i);
  }
}
} // namespace

SymbolicPlan mlir::memplan::planPartitions(llvm::ArrayRef<SymbolicItem> items,
                                           llvm::ArrayRef<uint64_t> sizes) {
  size_t n = items.size();
  std::vector<uint32_t> bySize(n);
  std::iota(bySize.begin(), bySize.end(), 0);
  std::stable_sort(bySize.begin(), bySize.end(),
                   [&](uint32_t a, uint32_t b) { return sizes[a] > sizes[b]; });
  // Each partition: its members' lifetimes, disjoint, by start.
  std::vector<std::map<int64_t, int64_t>> busy;
  std::vector<std::vector<uint32_t>> members;
  auto fits = [&](const std::map<int64_t, int64_t> &lives, Interval live) {
    auto next = lives.lower_bound(live.start);
    if (next != lives.end() && next->first < live.end)
      return false;
    return next == lives.begin() || std::prev(next)->second <= live.start;
  };
  for (uint32_t i : bySize) {
    size_t p = 0;
    while (p < busy.size() && !fits(busy[p], items[i].live))
      ++p;
    if (p == busy.size()) {
      busy.emplace_back();
      members.emplace_back();
    }
    busy[p].emplace(items[i].live.start, items[i].live.end);
    members[p].push_back(i);
  }
  SymbolicPlan plan;
  plan.below.resize(n);
  for (size_t p = 0; p < members.size(); ++p) {
    std::sort(members[p].begin(), members[p].end());
    for (uint32_t i : members[p]) {
      if (p > 0)
        plan.below[i] = members[p - 1];
      plan.order.push_back(i);
    }
  }
  return plan;
}

SymbolicPlan mlir::memplan::planOrdered(llvm::ArrayRef<SymbolicItem> items,
                                        llvm::ArrayRef<uint64_t> sizes,
                                        const PackOptions &options) {
  size_t n = items.size();
  std::vector<PackItem> packItems;
  packItems.reserve(n);
  for (size_t i = 0; i < n; ++i)
    packItems.push_back(
        {items[i].live, std::max<uint64_t>(sizes[i], 1), items[i].alignment});
  PackResult packed = pack(packItems, options);

  SymbolicPlan plan;
  plan.order.resize(n);
  std::iota(plan.order.begin(), plan.order.end(), 0);
  std::sort(plan.order.begin(), plan.order.end(), [&](uint32_t a, uint32_t b) {
    if (packed.offsets[a] != packed.offsets[b])
      return packed.offsets[a] < packed.offsets[b];
    return a < b;
  });
  std::vector<uint32_t> rank(n);
  for (uint32_t r = 0; r < n; ++r)
    rank[plan.order[r]] = r;
  plan.below.resize(n);
  forEachConflict(items, [&](uint32_t a, uint32_t b) {
    if (rank[a] < rank[b])
      plan.below[b].push_back(a);
    else
      plan.below[a].push_back(b);
  });

  // Drop j from below(i) when some k in below(i) has j in below(k): j stays
  // under i through k. The highest-ranked member of below(i) is never
  // dropped, so every dropped item keeps a path (by induction on rank).
  // Bounded by work so that large dense plans stay cheap; the result does
  // not depend on anything but the input.
  uint64_t work = 0;
  constexpr uint64_t kReduceWork = 50000000;
  std::vector<uint32_t> coveredBy(n, UINT32_MAX);
  for (uint32_t i : plan.order) {
    std::vector<uint32_t> &below = plan.below[i];
    for (uint32_t k : below) {
      work += plan.below[k].size() + 1;
      for (uint32_t j : plan.below[k])
        coveredBy[j] = i;
    }
    if (work > kReduceWork)
      break;
    llvm::erase_if(below, [&](uint32_t j) { return coveredBy[j] == i; });
    std::sort(below.begin(), below.end());
  }
  for (std::vector<uint32_t> &below : plan.below)
    std::sort(below.begin(), below.end());
  return plan;
}

std::optional<SymbolicPlacement>
mlir::memplan::evaluateSymbolicPlan(const SymbolicPlan &plan,
                                    llvm::ArrayRef<SymbolicItem> items,
                                    llvm::ArrayRef<uint64_t> sizes) {
  SymbolicPlacement placement;
  placement.offsets.assign(items.size(), 0);
  std::vector<uint64_t> ends(items.size(), 0);
  for (uint32_t i : plan.order) {
    uint64_t base = 0;
    for (uint32_t j : plan.below[i])
      base = std::max(base, ends[j]);
    std::optional<uint64_t> padded =
        llvm::checkedAddUnsigned(base, items[i].alignment - 1);
    if (!padded)
      return std::nullopt;
    uint64_t offset = llvm::alignDown(*padded, items[i].alignment);
    std::optional<uint64_t> end = llvm::checkedAddUnsigned(offset, sizes[i]);
    if (!end)
      return std::nullopt;
    placement.offsets[i] = offset;
    ends[i] = *end;
    placement.arena = std::max(placement.arena, *end);
  }
  return placement;
}

std::optional<std::string>
mlir::memplan::checkSymbolicPlan(const SymbolicPlan &plan,
                                 llvm::ArrayRef<SymbolicItem> items) {
  size_t n = items.size();
  if (plan.below.size() != n || plan.order.size() != n)
    return std::string("the plan does not have one entry per item");
  std::vector<int64_t> position(n, -1);
  for (auto [pos, i] : llvm::enumerate(plan.order)) {
    if (i >= n || position[i] >= 0)
      return "order is not a permutation (item " + std::to_string(i) + ")";
    position[i] = pos;
  }
  // Reachability through `below`, in order.
  std::vector<llvm::BitVector> reach(n, llvm::BitVector(n));
  for (uint32_t i : plan.order)
    for (uint32_t j : plan.below[i]) {
      if (j >= n || position[j] >= position[i])
        return "item " + std::to_string(j) + " is below item " +
               std::to_string(i) + " but does not come before it in order";
      reach[i] |= reach[j];
      reach[i].set(j);
    }
  std::optional<std::string> problem;
  forEachConflict(items, [&](uint32_t a, uint32_t b) {
    if (!problem && !reach[a].test(b) && !reach[b].test(a))
      problem = "items " + std::to_string(a) + " and " + std::to_string(b) +
                " overlap in time but neither is below the other";
  });
  return problem;
}
