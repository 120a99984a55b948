//===- Packing.h - Packing buffers into one arena ---------------*- C++ -*-===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//
//
// The dynamic storage allocation problem: give every buffer
// (id, [start, end), size, alignment) an offset, a multiple of its alignment,
// so that buffers whose lifetimes overlap do not overlap in
// [offset, offset + size), with the arena (the highest end) as small as
// possible. The lower bound (peak live bytes) is the target.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_PLANNING_PACKING_H
#define MEMPLAN_PLANNING_PACKING_H

#include "memplan/Planning/Interval.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
namespace memplan {

/// One buffer to place.
struct PackItem {
  Interval live;
  uint64_t size = 0;
  /// A power of two.
  uint64_t alignment = 1;
};

enum class PackAlgorithm {
  /// Size descending, best-fitting gap among time-overlapping placed buffers.
  GreedySize,
  /// Start order, best fit (a sweep over a free list).
  GreedyTime,
  /// Size descending, lowest gap that fits (first-fit decreasing).
  FirstFitSize,
  /// Start order, lowest gap that fits (the lifetime-order rule).
  FirstFitStart,
  /// The peak split, sweeps and greedy orders (and the seeded fits, which
  /// search the largest buffers), then (segments of at most
  /// 4096 buffers) the canonical search at the lower bound and probes above
  /// it, or (larger ones) randomized orders, until the time limit or until
  /// the arena equals the lower bound. The default (docs/Packing.md).
  Best,
  /// Branch and bound over canonical placements; proves optimality when it
  /// finishes within the time limit.
  Exact,
};

/// The values of every `algorithm` option (memplan-pack, pack-arena,
/// insert-remat, memplan-pipeline), named as stringifyPackAlgorithm does.
llvm::cl::ValuesClass packAlgorithmValues();
llvm::StringRef stringifyPackAlgorithm(PackAlgorithm algorithm);

/// The default bound of Best and Exact, in work units: the search charges
/// one unit per buffer it examines (an item of a greedy order, a time-
/// overlapping neighbour it compares against, a section it updates), so the
/// units follow the time spent while the result depends only on the input.
/// About 1 s of search on one core of the CI machine (docs/Packing.md).
constexpr uint64_t kDefaultPackWork = 500000000;

/// What Best and Exact have reached so far (PackOptions::progress).
struct PackProgress {
  /// The best arena so far over the segments decided and the one in its
  /// first phase (0 before any).
  uint64_t arena = 0;
  uint64_t lowerBound = 0;
  /// Work units spent, and the bound (0: none).
  uint64_t work = 0;
  uint64_t workLimit = 0;
  /// Segments through their first phase, of `segments`.
  size_t segmentsDecided = 0;
  size_t segments = 0;
  /// The last call: the search is over.
  bool done = false;
};

struct PackOptions {
  PackAlgorithm algorithm = PackAlgorithm::Best;
  /// Bound of Best and Exact, in work units (kDefaultPackWork); 0: none.
  /// Deterministic: the same items and options give the same plan on any
  /// machine.
  uint64_t workLimit = kDefaultPackWork;
  /// An optional wall-clock bound of Best and Exact, in seconds (0: none),
  /// in addition to the work bound. The plan then depends on the machine's
  /// speed. With both 0 the search is unbounded.
  double timeLimitSeconds = 0;
  /// Decision mode: stop as soon as an arena <= capacity is found. A
  /// capacity below the lower bound (or the aligned bound) is proven
  /// infeasible at once, with the start-order sweep's arena and no search.
  std::optional<uint64_t> capacity;
  /// Seed of the randomized improvement (Best).
  uint64_t seed = 1;
  /// Best, on segments too large for the canonical search (and Exact, on
  /// those whose search problem cannot be built): after the random greedy
  /// orders, the squeaky wheel and the band search, repair the packing
  /// around its top with the work they left (docs/Packing.md). A switch so that
  /// tests and benchmarks can show what it buys.
  bool repair = true;
  /// Best: passes of first fit in an order that moves the items reaching
  /// above the lower bound earlier each time (the squeaky wheel,
  /// docs/Packing.md), on segments too large for the canonical search after
  /// the random orders (Exact too, where its search problem cannot be
  /// built), and on segments of 129-4096 items after a decision search that
  /// failed, before the probes (that decision search gets 30 % of the work
  /// left rather than 70 % unless this and bandSearch are both off; in
  /// decision mode, where no probes follow, 50 % rather than all of it). A
  /// switch so that tests and benchmarks can show what it buys.
  bool squeakyWheel = true;
  /// Best: the canonical search on the band of items at the top of a
  /// packing, above the items left in place (docs/Packing.md), on segments
  /// too large for the canonical search after the squeaky wheel, and on
  /// segments of 129-4096 items whose decision search failed, after the
  /// squeaky wheel, before the probes. Exact too, on a
  /// segment whose search problem cannot be built (more overlapping pairs or
  /// section memberships than the search takes), where it runs what a large
  /// segment gets. A switch so that tests and benchmarks can show what it
  /// buys.
  bool bandSearch = true;
  /// Best and Exact, among the rules, on segments of more than 1024 items:
  /// the seeded fits (the 256, 512, 1024, 2048 largest items, fewer than
  /// the segment's, packed by the canonical search at the goal, the lower
  /// bound, the aligned bound or the capacity, while it packs them; the
  /// others placed around them by first fit; kept only where lower;
  /// docs/Packing.md). A switch so that tests and benchmarks can show what
  /// it buys.
  bool seededFit = true;
  /// Best: where the rules leave segments above the lower bound (in
  /// decision mode, above the capacity), also pack their items merged into
  /// composites (items with the same lifetime stacked, an item and one of
  /// its size that starts when it ends chained at one offset): the search on
  /// the items then gets half of the work left (30 % where one of those
  /// segments has more than 65536 items and the seeded fits are on), the
  /// composites the rest (in decision mode only where the items neither fit
  /// nor are proven not to), and each segment keeps the lower of its two
  /// packings (docs/Packing.md). A switch so that tests and benchmarks can
  /// show what it buys.
  bool coalesce = true;
  /// Called by Best and Exact every 2^24 work units and once at the end
  /// (never by the greedy algorithms); for progress lines. It must not
  /// throw; what it does cannot change the plan.
  std::function<void(const PackProgress &)> progress;
};

struct PackResult {
  /// One offset per item, in input order.
  std::vector<uint64_t> offsets;
  /// The highest offset + size (0 when there are no items).
  uint64_t arena = 0;
  /// Peak live bytes: no arena can be smaller.
  uint64_t lowerBound = 0;
  /// The arena is proven minimal (it equals the lower bound or the aligned
  /// bound, packAlignedLowerBound, or the exact search was exhausted).
  bool optimal = false;
  /// Decision mode: the capacity was proven too small (exact search
  /// exhausted without a fit).
  bool provenInfeasible = false;
  /// No arena below this exists: the larger of the lower bound and the
  /// aligned bound, raised where Best or Exact exhausted a search below the
  /// arena (every cap it exhausted plus
  /// one); the arena itself when `optimal`. lowerBound <= it <= arena: the
  /// proven gap is arena / provenLowerBound.
  uint64_t provenLowerBound = 0;
  /// The work units Best and Exact spent (0 for the greedy algorithms).
  uint64_t work = 0;
};

/// Packs `items`. Items must have valid intervals, positive sizes and
/// power-of-two alignments (checked by validatePackItems).
PackResult pack(llvm::ArrayRef<PackItem> items, const PackOptions &options);

/// Checks the items themselves; returns an error message or std::nullopt.
std::optional<std::string> validatePackItems(llvm::ArrayRef<PackItem> items);

/// An independent check of a packing: offsets aligned, no two buffers with
/// overlapping lifetimes sharing a byte, everything below `arena`. Returns
/// a message naming the two clashing items (by index), or std::nullopt.
std::optional<std::string> checkPacking(llvm::ArrayRef<PackItem> items,
                                        llvm::ArrayRef<uint64_t> offsets,
                                        uint64_t arena);

/// The first pair (earlier, later in start order) of items that overlap in
/// time and share a byte, found by a sweep in O(n log n); std::nullopt if none.
std::optional<std::pair<size_t, size_t>>
findPackingClash(llvm::ArrayRef<PackItem> items,
                 llvm::ArrayRef<uint64_t> offsets);

/// Peak live bytes of the items.
uint64_t packLowerBound(llvm::ArrayRef<PackItem> items);

/// A lower bound on the arena at least packLowerBound: at every time, the
/// live sizes rounded up to g, the least alignment among them (every offset
/// is a multiple of g), less the largest such padding (the topmost item's
/// need not be). Equal to packLowerBound when every size is a multiple of
/// that alignment (or every alignment is 1). O(n log n). Items as
/// validatePackItems accepts them.
uint64_t packAlignedLowerBound(llvm::ArrayRef<PackItem> items);

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_PLANNING_PACKING_H
