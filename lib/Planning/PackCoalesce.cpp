//===- PackCoalesce.cpp - Buffers packed as one ---------------------------===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
// Coalescing (docs/Packing.md): buffers that can share one rectangle of the
// packing without wasting a byte are merged into one composite buffer, so
// that the packers see fewer, larger pieces. Two kinds of merge, repeated
// until neither applies: a *stack* (buffers with the same lifetime, one on
// top of the other) and a *chain* (a buffer and one of the same size that
// starts when it ends, at the same offset: an in-place update, or a tensor
// handed on). Any packing of the composites is a packing of the buffers,
// with the same live bytes at every time (up to alignment padding inside a
// stack), but not every packing of the buffers is one of the composites:
// a restriction, so Best packs both and keeps the lower arena, and no proof
// about the composites is one about the buffers.
//
//===----------------------------------------------------------------------===//

#include "PackingInternal.h"

#include "llvm/ADT/STLExtras.h"

#include <numeric>
#include <tuple>

using namespace mlir::memplan;
using namespace mlir::memplan::packing;

namespace {

/// Composites under construction: node k (the buffers first, then every
/// composite made) sits at `at[k]` inside node `parent[k]` (itself when it
/// is a root: a buffer or composite not merged into another).
struct Forest {
  std::vector<PackItem> node;
  std::vector<uint32_t> parent;
  std::vector<uint64_t> at;

  uint32_t add(const PackItem &item) {
    node.push_back(item);
    parent.push_back(static_cast<uint32_t>(parent.size()));
    at.push_back(0);
    return parent.back();
  }
  void adopt(uint32_t composite, uint32_t child, uint64_t offset) {
    parent[child] = composite;
    at[child] = offset;
  }
};

/// The roots that may merge in a round: every one in the first round
/// (`freshFrom` 0); after it, a merge needs a root made since the last
/// round of the same kind (node `freshFrom` or later): two older roots
/// that could merge would have merged then (a round merges every group it
/// can). So the others are those that share a key with one of them (keys
/// of `keysOf`, which appends a root's): one sorted list of the fresh ones'
/// keys and a binary search a root instead of sorting all of them again.
template <typename KeyT, typename KeysOf>
std::vector<uint32_t>
mayMerge(const Forest &forest, const std::vector<uint32_t> &roots,
         uint32_t freshFrom, uint64_t &work, KeysOf keysOf) {
  if (freshFrom == 0)
    return roots;
  std::vector<KeyT> fresh, mine;
  for (uint32_t k : roots)
    if (k >= freshFrom)
      keysOf(forest.node[k], fresh);
  llvm::sort(fresh);
  fresh.erase(std::unique(fresh.begin(), fresh.end()), fresh.end());
  work += orderWork(fresh.size());
  std::vector<uint32_t> result;
  if (fresh.empty())
    return result;
  const uint64_t search = llvm::Log2_64_Ceil(fresh.size() + 1) + 1;
  for (uint32_t k : roots) {
    mine.clear();
    keysOf(forest.node[k], mine);
    work += mine.size() * search;
    if (llvm::any_of(mine, [&](const KeyT &key) {
          return std::binary_search(fresh.begin(), fresh.end(), key);
        }))
      result.push_back(k);
  }
  return result;
}

/// Drops the roots merged this round (a merged node's parent is another)
/// and adds the composites made.
void replaceMerged(const Forest &forest, std::vector<uint32_t> &roots,
                   ArrayRef<uint32_t> made) {
  llvm::erase_if(roots, [&](uint32_t k) { return forest.parent[k] != k; });
  roots.insert(roots.end(), made.begin(), made.end());
}

/// One round of stacks over `roots`: every group of two or more roots with
/// the same lifetime becomes one composite, its members the most aligned
/// first (so that padding is rarest), then by node, each at the lowest
/// offset above the one before that its alignment allows. Returns whether
/// it merged any; `roots` then lists the new roots.
bool stackRound(Forest &forest, std::vector<uint32_t> &roots,
                uint32_t freshFrom, uint64_t &work) {
  std::vector<uint32_t> candidates = mayMerge<std::pair<int64_t, int64_t>>(
      forest, roots, freshFrom, work, [](const PackItem &item, auto &keys) {
        keys.emplace_back(item.live.start, item.live.end);
      });
  // Sorted by value, not through the ids (on 10^6 items the indirect
  // comparisons took most of the time).
  struct Key {
    int64_t start, end;
    int32_t alignment; // minus its log: the most aligned first
    uint32_t node;
    bool operator<(const Key &o) const {
      return std::tie(start, end, alignment, node) <
             std::tie(o.start, o.end, o.alignment, o.node);
    }
  };
  std::vector<Key> keys;
  keys.reserve(candidates.size());
  for (uint32_t k : candidates) {
    const PackItem &item = forest.node[k];
    keys.push_back({item.live.start, item.live.end,
                    -static_cast<int32_t>(llvm::Log2_64(item.alignment)), k});
  }
  llvm::sort(keys);
  work += orderWork(keys.size());
  std::vector<uint32_t> made;
  for (size_t first = 0; first < keys.size();) {
    size_t last = first + 1;
    while (last < keys.size() && keys[last].start == keys[first].start &&
           keys[last].end == keys[first].end)
      ++last;
    if (last - first == 1) {
      first = last;
      continue;
    }
    // The members' offsets, checked: a stack too high for the arena's
    // bound (kMaxTotalBytes) is not made.
    uint64_t top = 0, alignment = 1;
    bool fits = true;
    for (size_t j = first; j < last && fits; ++j) {
      const PackItem &item = forest.node[keys[j].node];
      uint64_t offset = alignUp(top, item.alignment);
      fits = offset >= top && offset <= kMaxTotalBytes &&
             item.size <= kMaxTotalBytes - offset;
      top = offset + item.size;
      alignment = std::max(alignment, item.alignment);
    }
    if (!fits) {
      first = last;
      continue;
    }
    Interval live{keys[first].start, keys[first].end};
    uint32_t composite = forest.add(PackItem{live, top, alignment});
    top = 0;
    for (size_t j = first; j < last; ++j) {
      const PackItem &item = forest.node[keys[j].node];
      uint64_t offset = alignUp(top, item.alignment);
      forest.adopt(composite, keys[j].node, offset);
      top = offset + item.size;
    }
    made.push_back(composite);
    first = last;
  }
  replaceMerged(forest, roots, made);
  return !made.empty();
}

/// One round of chains over `roots`: a root that ends at t and one of the
/// same size that starts at t become one composite over both lifetimes
/// (both at its offset 0, aligned as the more aligned of the two). Where
/// several of one size end and start at t, they pair in order: the earliest
/// start with the earliest end, ties by node. Returns whether it merged any.
bool chainRound(Forest &forest, std::vector<uint32_t> &roots,
                uint32_t freshFrom, ArrayRef<int64_t> cuts, uint64_t &work) {
  std::vector<uint32_t> candidates = mayMerge<std::pair<int64_t, uint64_t>>(
      forest, roots, freshFrom, work, [](const PackItem &item, auto &keys) {
        keys.emplace_back(item.live.end, item.size);
        keys.emplace_back(item.live.start, item.size);
      });
  // A root by where it ends (`at` its end, `other` its start) and by where
  // it starts (`at` its start, `other` its end), by value.
  struct Key {
    int64_t at;
    uint64_t size;
    int64_t other;
    uint32_t node;
    bool operator<(const Key &o) const {
      return std::tie(at, size, other, node) <
             std::tie(o.at, o.size, o.other, o.node);
    }
  };
  std::vector<Key> ends, starts;
  ends.reserve(candidates.size());
  starts.reserve(candidates.size());
  for (uint32_t k : candidates) {
    const PackItem &item = forest.node[k];
    ends.push_back({item.live.end, item.size, item.live.start, k});
    starts.push_back({item.live.start, item.size, item.live.end, k});
  }
  llvm::sort(ends);
  llvm::sort(starts);
  work += 2 * orderWork(candidates.size());
  // A node merged this round has a parent other than itself.
  auto taken = [&](uint32_t k) { return forest.parent[k] != k; };
  std::vector<uint32_t> made;
  auto sameGroup = [](const Key &a, const Key &b) {
    return a.at == b.at && a.size == b.size;
  };
  uint64_t searched = 0;
  // Walk both in step: ends[a] and starts[b] pair when they share (t,
  // size); a node is in at most one chain a round (it may be one that ends
  // at t and one that starts elsewhere).
  for (size_t a = 0, b = 0; a < ends.size() && b < starts.size();) {
    const Key &x = ends[a], &y = starts[b];
    if (!sameGroup(x, y)) {
      if (std::tie(x.at, x.size) < std::tie(y.at, y.size))
        ++a;
      else
        ++b;
      continue;
    }
    if (taken(x.node)) {
      ++a;
      continue;
    }
    if (taken(y.node)) {
      ++b;
      continue;
    }
    // Not across the start of a time segment: a chain there would join two
    // segments, which are packed apart (and a joined one may be too large
    // for the exact search).
    ++searched;
    if (std::binary_search(cuts.begin(), cuts.end(), x.at)) {
      ++a;
      continue;
    }
    const PackItem &before = forest.node[x.node];
    const PackItem &after = forest.node[y.node];
    uint32_t composite = forest.add(
        PackItem{Interval{before.live.start, after.live.end}, before.size,
                 std::max(before.alignment, after.alignment)});
    forest.adopt(composite, x.node, 0);
    forest.adopt(composite, y.node, 0);
    made.push_back(composite);
    ++a;
    ++b;
  }
  work += searched * (llvm::Log2_64_Ceil(cuts.size() + 1) + 1);
  replaceMerged(forest, roots, made);
  return !made.empty();
}

/// Rounds of each kind at most: each level of nesting is one round, so
/// this bounds how deep a composite nests (and the work: a round after the
/// first reads every root once). The planted traces of bench/ stop merging
/// within 6.
constexpr unsigned kMaxCoalesceRounds = 32;

} // namespace

std::vector<int64_t>
mlir::memplan::packing::segmentStarts(ArrayRef<PackItem> items,
                                      uint64_t &work) {
  std::vector<std::pair<int64_t, int64_t>> lives;
  lives.reserve(items.size());
  for (const PackItem &item : items)
    lives.emplace_back(item.live.start, item.live.end);
  llvm::sort(lives);
  work += orderWork(items.size());
  std::vector<int64_t> starts;
  int64_t reach = INT64_MIN;
  for (auto [start, end] : lives) {
    if (starts.empty() || start >= reach)
      starts.push_back(start);
    reach = std::max(reach, end);
  }
  return starts;
}

Coalesced mlir::memplan::packing::coalesce(ArrayRef<PackItem> items,
                                           uint64_t &work, uint64_t workCap,
                                           llvm::function_ref<bool()> stop) {
  Forest forest;
  forest.node.reserve(2 * items.size());
  for (const PackItem &item : items)
    forest.add(item);
  std::vector<uint32_t> roots(items.size());
  std::iota(roots.begin(), roots.end(), 0);
  // The segments' starts, found with the first round (and paid for with
  // it).
  std::vector<int64_t> cuts;
  bool stacks = true, chains = true;
  // The first node made since the last round of each kind (0: every node
  // is new to the first round).
  uint32_t stackFrom = 0, chainFrom = 0;
  for (unsigned round = 0; round < kMaxCoalesceRounds && (stacks || chains);
       ++round) {
    // The most a round can cost: for the stacks, a sort of the fresh
    // roots' keys, a search a root and a sort of the candidates (each at
    // most a sort of the roots); for the chains, the same with two keys a
    // root, two sorts of the candidates and a search of the cuts a pair
    // (at most 7 sorts of the roots and 4 units a root); and what the end
    // costs (4 units a node; fewer than 2n nodes: each composite takes at
    // least two roots).
    if (stop() || work + 10 * orderWork(roots.size()) + 4 * roots.size() +
                          8 * items.size() +
                          (round ? 0 : orderWork(items.size())) >
                      workCap)
      break;
    if (round == 0)
      cuts = segmentStarts(items, work);
    uint32_t mark = static_cast<uint32_t>(forest.node.size());
    stacks = stackRound(forest, roots, stackFrom, work);
    stackFrom = mark;
    mark = static_cast<uint32_t>(forest.node.size());
    chains = chainRound(forest, roots, chainFrom, cuts, work);
    chainFrom = mark;
  }
  Coalesced result;
  if (roots.size() == items.size())
    return result;
  result.segmentStarts = std::move(cuts);
  // The composites in the order of their first buffer (deterministic, and
  // close to the input's order).
  std::vector<uint32_t> rootOf(forest.node.size());
  std::vector<uint64_t> offsetIn(forest.node.size());
  for (size_t k = forest.node.size(); k-- > 0;) {
    uint32_t p = forest.parent[k];
    rootOf[k] = p == k ? static_cast<uint32_t>(k) : rootOf[p];
    offsetIn[k] = p == k ? 0 : offsetIn[p] + forest.at[k];
  }
  std::vector<uint32_t> index(forest.node.size(), UINT32_MAX);
  result.of.resize(items.size());
  result.at.resize(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    uint32_t root = rootOf[i];
    if (index[root] == UINT32_MAX) {
      index[root] = static_cast<uint32_t>(result.items.size());
      result.items.push_back(forest.node[root]);
    }
    result.of[i] = index[root];
    result.at[i] = offsetIn[i];
  }
  work += 4 * forest.node.size();
  return result;
}
