//===- PackingInternal.h - What the packing files share ------------------===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Planning: the work budget, time segments and the entry
// points that the driver (Packing.cpp) calls in the greedy packers
// (PackGreedy.cpp) and the canonical search (PackSearch.cpp). The public
// interface is include/memplan/Planning/Packing.h.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_LIB_PLANNING_PACKINGINTERNAL_H
#define MEMPLAN_LIB_PLANNING_PACKINGINTERNAL_H

#include "memplan/Planning/Limits.h"
#include "memplan/Planning/Packing.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace mlir {
namespace memplan {
namespace packing {
using llvm::ArrayRef;
using Clock = std::chrono::steady_clock;

inline uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

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
  /// Whether `units` more work stay within the work bound (always, without
  /// one): for steps charged in advance, so that none runs past the bound.
  bool affords(uint64_t units) const { return workAffordable() >= units; }
  /// The work units left (UINT64_MAX without a work bound).
  uint64_t workAffordable() const {
    return endWork == UINT64_MAX ? UINT64_MAX : workLeft();
  }
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

/// Work units charged for sorting `n` items (an order, a ranking): a unit
/// per item per level of the sort.
inline uint64_t orderWork(size_t n) {
  return n * (llvm::Log2_64_Ceil(n + 1) + 1);
}

/// Work units charged for one sweep over `n` items (or the peak split's two
/// half sweeps): each item is allocated from and released to the free
/// space's two ordered trees, about 20 times the cost of a level of a
/// sort (measured: 80 ms for 10^5 items on the CI machine, docs/Packing.md).
constexpr uint64_t kSweepWeight = 20;
inline uint64_t sweepWork(size_t n) { return kSweepWeight * orderWork(n); }

/// packAlignedLowerBound where some size is not a multiple of its alignment,
/// 0 otherwise (the bound is then the peak, which the caller has): pack()
/// needs only this part, its segments' peaks being computed already.
uint64_t paddedLowerBound(ArrayRef<PackItem> items);

/// Items merged into composites (PackCoalesce.cpp): item i lies at offset
/// `at[i]` inside composite `of[i]`, so a packing of `items` is one of the
/// original items with item i at offset(of[i]) + at[i]; `segmentStarts`
/// is segmentStarts(the original items), each composite lying in one of
/// those segments. Empty when nothing merges.
struct Coalesced {
  std::vector<PackItem> items;
  std::vector<uint32_t> of;
  std::vector<uint64_t> at;
  std::vector<int64_t> segmentStarts;
};

/// Merges, until neither applies (at most 32 rounds of each): items with
/// the same lifetime into a stack (the most aligned first, each at the
/// lowest aligned offset above the one before), and an item with one of the
/// same size that starts when it ends into a chain (at the same offset).
/// Every packing of the composites is a packing of `items`, at the same
/// live bytes at every time up to alignment padding inside a stack; not
/// every packing of `items` is one of the composites. No chain joins two
/// time segments (at a segmentStarts time), so each composite lies in one
/// segment of `items`. Adds its work (about four sorts of the items in the
/// first round, less after) to `work`, and begins no round that could take
/// it past `workCap` or once `stop` says so (the composites made until then
/// are kept). Deterministic; O(n log n) a round.
Coalesced coalesce(
    ArrayRef<PackItem> items, uint64_t &work, uint64_t workCap = UINT64_MAX,
    llvm::function_ref<bool()> stop = [] { return false; });

/// The start time of every time segment of `items` (where no lifetime
/// crosses), ascending; adds a sort's work to `work`.
std::vector<int64_t> segmentStarts(ArrayRef<PackItem> items, uint64_t &work);

/// The items of one independent time segment and how to place them.
struct Segment {
  ArrayRef<PackItem> items;
  std::vector<uint32_t> ids; // indices into items
  uint64_t lowerBound = 0;
  int64_t peakStep = 0; // the first step where the live bytes reach it
};

/// What the canonical search needs about one segment, computed once and
/// shared by every ordering and capacity tried on it. Time is cut into
/// sections between event points; item i lives in sections [secLo, secHi).
struct SearchProblem {
  /// Builds nothing (sets tooLarge) where the overlap pairs or section
  /// memberships would exceed kMaxSearchEntries or counting or building
  /// them would cost more than `affordable` work units (buildWork, what it
  /// charges, is then at most `affordable` too). `floors` (empty, or one per
  /// item of seg.ids, in that order): the offset each item may not go below
  /// (the tops of items fixed elsewhere that it overlaps in time,
  /// improveTopBand); a search then decides whether the items fit between their
  /// floors and the capacity, which says nothing about the segment as a whole.
  explicit SearchProblem(const Segment &seg, uint64_t affordable = UINT64_MAX,
                         ArrayRef<uint64_t> floors = {});

  const PackItem &item(uint32_t local) const { return items[global[local]]; }

  ArrayRef<PackItem> items;
  std::vector<uint32_t> global; // local id -> index into items
  std::vector<uint32_t> secLo, secHi;
  std::vector<std::vector<uint32_t>> inSection; // local ids live there
  std::vector<std::vector<uint32_t>> overlaps;  // time-overlapping local ids
  std::vector<uint64_t> sectionBytes;           // live bytes per section
  std::vector<uint32_t> crossing; // per boundary s|s+1: items live across it
  /// Per local id: the lowest offset it may take, aligned (empty: 0).
  std::vector<uint64_t> floorOf;
  /// Per local id: at most what placing it charges (its overlaps, their
  /// sections, and rescanning every section between the first and the last
  /// that it or an item overlapping it lives in): a search places it only
  /// when the work left pays for that, so none runs past its bound.
  std::vector<uint64_t> placeWork;
  /// Set (and nothing else built) when the overlap pairs or the section
  /// memberships would exceed kMaxSearchEntries, or building them the work
  /// affordable: no search on this segment.
  bool tooLarge = false;
  /// About the work units one search's set-up on it charges (its state and
  /// the ranking of every item): searchPortfolio begins none it cannot pay.
  uint64_t setupWork = 0;
  /// The work units building it took: items, memberships and pairs (or,
  /// when tooLarge, counting them: a sort of the items; 0 when even that
  /// was not affordable).
  uint64_t buildWork = 0;
};

/// The deepest nesting of the canonical search (one level per placement on
/// the current path): past it the search stops without a proof. Segments
/// with more items than this cannot be searched to the end.
constexpr uint32_t kMaxSearchDepth = 1 << 15;

/// The stack Best and Exact run on (a thread of their own): enough for
/// kMaxSearchDepth levels (about 1 KB each; 4 KB under ASan) whatever the
/// caller's stack.
constexpr unsigned kSearchStackBytes = 256u << 20;

/// What one run of the canonical search with restarts found.
struct SearchOutcome {
  uint64_t arena = UINT64_MAX;
  bool exhausted = false;
  /// The search nests too deep for this segment: no cap will do better.
  bool tooDeep = false;
  /// Stopped because the work left could not pay for a search's set-up
  /// (SearchProblem::setupWork), a part's ranking, a node's scan of its
  /// part, a candidate's pre-check or a placement (SearchProblem::placeWork):
  /// a larger slice may go on.
  bool starved = false;
};

//===----------------------------------------------------------------------===//
// PackGreedy.cpp
//===----------------------------------------------------------------------===//

/// A segment's time cut at its distinct start times (BusyIndex, the band
/// search): two items overlap in time exactly when both live at the later
/// one's start, so item i covers the leaves [first start >= its start, first
/// start >= its end), and two items overlap exactly when their ranges meet.
struct StartLeaves {
  explicit StartLeaves(const Segment &seg);
  /// The leaves an item living over `live` covers (two binary searches).
  std::pair<uint32_t, uint32_t> range(const Interval &live) const;
  size_t size() const { return starts.size(); }

  std::vector<int64_t> starts; // distinct, ascending
};

/// Calls `fn(node)` for the canonical nodes of leaves [l, r), bottom-up, of
/// a segment tree stored as an array (node 1 the root, leaf k at
/// `leaves` + k; `leaves` a power of two). Iterative.
template <typename Fn>
void forEachCanonicalNode(size_t leaves, size_t l, size_t r, Fn fn) {
  for (l += leaves, r += leaves; l < r; l >>= 1, r >>= 1) {
    if (l & 1)
      fn(l++);
    if (r & 1)
      fn(--r);
  }
}

/// Which gap a greedy placer takes: the smallest that fits (lowest offset
/// on ties) or the lowest that fits.
enum class Fit { Best, First };

/// The offset for an item of `size` and `alignment` among `busy` (offset
/// ranges, sorted by start; they may overlap or touch): in the gap `fit`
/// picks, or on top of them.
uint64_t fitAmong(ArrayRef<std::pair<uint64_t, uint64_t>> busy, uint64_t size,
                  uint64_t alignment, Fit fit = Fit::Best);

/// The busy offsets, by time, of the items a greedy placer has placed so far
/// (items are only added: placeInOrder). Time is cut at the segment's
/// distinct start times: two items overlap in time exactly when both live at
/// the later one's start, so item i covers the leaves [first start >= its
/// start, first start >= its end) of a segment tree over those starts. An
/// added item's offset range goes into `here` of the canonical nodes of its
/// leaves (it lives over the node's whole time) and into `within` of every
/// node on the leaf-to-root path of its first leaf (it starts within the
/// node's time). Each node keeps the union of its ranges, coalesced. The
/// items overlapping a query are then exactly those in `within` of the
/// query's canonical nodes (they start inside the query) or in `here` of the
/// nodes on the path of its first leaf (they live at the query's start).
/// A query reads about 2 log n coalesced lists, which a dense packing keeps
/// short, instead of every overlapping item. Nothing recurses.
class BusyIndex {
public:
  using Run = std::pair<uint64_t, uint64_t>; // [lo, hi)

  explicit BusyIndex(const Segment &seg);
  /// Forgets every item added (keeps the lists' memory).
  void clear();
  /// The lists clear() empties (what it costs).
  uint64_t lists() const { return here.size() + within.size(); }
  /// About how many nodes one query and one add walk: two paths.
  uint64_t nodesPerItem() const;
  /// Places item `id` at the offset `fit` picks among the items placed
  /// before (fitAmong; first fit through firstFit, which gives the same
  /// offset without merging the lists), records it there and returns the
  /// offset; `lists` counts the coalesced ranges read (best fit) or the
  /// probes (first fit). Where that count would pass `maxLists`, nothing
  /// is placed and nullopt is returned (best fit knows its count before it
  /// reads a range; first fit before the probe past it).
  std::optional<uint64_t> place(uint32_t id, Fit fit, uint64_t &lists,
                                uint64_t maxLists = UINT64_MAX);

private:
  std::pair<size_t, size_t> leafRange(uint32_t id) const;
  /// Records `run` for an item over leaves [l, r).
  void add(size_t l, size_t r, Run run);
  /// First fit over `sources`, searched lazily (consumes them); `probes`
  /// counts the sources probed; nullopt once they pass `maxProbes`.
  std::optional<uint64_t> firstFit(uint64_t size, uint64_t alignment,
                                   uint64_t &probes, uint64_t maxProbes);
  /// Best fit over `sources`, merged; `lists` counts the ranges read;
  /// nullopt (nothing read) where they are more than `maxLists`.
  std::optional<uint64_t> bestFit(uint64_t size, uint64_t alignment,
                                  uint64_t &lists, uint64_t maxLists);
  /// Adds `run` to the coalesced, sorted `runs`; false when a run there
  /// covered it already (nothing changed).
  static bool insert(llvm::SmallVectorImpl<Run> &runs, Run run);

  ArrayRef<PackItem> items;
  StartLeaves starts;
  size_t leaves = 1; // a power of two >= starts.size()
  /// Each item's leafRange, by item index, on large segments (else empty).
  std::vector<std::pair<uint32_t, uint32_t>> leafOf;
  std::vector<llvm::SmallVector<Run, 0>> here, within;
  using Source = std::pair<const Run *, const Run *>;
  std::vector<Source> sources;
  /// firstFit's copy of each source's current run, and its probe order.
  std::vector<Run> heads;
  std::vector<uint32_t> turn;
  std::vector<Run> busy, scratch;
  std::vector<size_t> bounds; // where each list starts in busy, then its end
};

/// Places item `id` in the gap `fit` picks among the items added to `index`
/// (and adds it), charging `budget` as placeInOrder does. `count` counts
/// the items placed (the clock is read every 256); `arena` is raised to the
/// item's top. False when the work left does not pay for the placement
/// (nothing placed; the rest of the work is then charged, so that `budget`
/// reads expired: a placement never ends past the bound), the time is up,
/// or the arena reached `cutoff`.
bool placeNext(BusyIndex &index, ArrayRef<PackItem> items, uint32_t id,
               std::vector<uint64_t> &offsets, const Budget *budget,
               uint64_t cutoff, Fit fit, size_t &count, uint64_t &arena);

/// Places `order` one by one, each in the gap `fit` picks among the items of
/// `order` placed before it (BusyIndex::place; `index` is cleared first).
/// Charges `budget` (when given) kFirstFitProbeWeight per probe of a
/// first-fit query (a galloping search in one list), kBestFitListWeight per
/// coalesced range a best-fit one reads and kNodeWeight per node walked
/// (BusyIndex::nodesPerItem). Returns the arena, or nullopt when `budget`
/// runs out (placeNext) or the arena passes `cutoff`.
std::optional<uint64_t> placeInOrder(BusyIndex &index, ArrayRef<PackItem> items,
                                     ArrayRef<uint32_t> order,
                                     std::vector<uint64_t> &offsets,
                                     const Budget *budget, uint64_t cutoff,
                                     Fit fit = Fit::Best);

/// One classic rule (greedy-time, greedy-size, first-fit-size,
/// first-fit-start) on one segment. Returns the arena; offsets filled.
uint64_t packRule(const Segment &seg, PackAlgorithm algorithm,
                  std::vector<uint64_t> &offsets);

/// Segments of more than this many items are *huge*: one first-fit pass
/// over one costs about a fifth of the default work bound, so after the
/// seeded fits packGreedy runs only the classic rules it has not run yet,
/// and where Best coalesces such a segment the composites get more of the
/// work (packCoalesced).
constexpr size_t kMinHugeItems = size_t(1) << 16;

/// The greedy rules for one segment, in this order: the peak split, the
/// start-order sweep, first fit decreasing, the seeded fits (when `seeded`,
/// on segments of more than 1024 items: the 256, 512, ... 2048 largest
/// items packed by the canonical search at `target`, while it packs them,
/// and every item placed by first fit, those first in the order of their
/// offsets, then the others by size class), first fit by size class (octaves,
/// then eighths of an octave; the longest-lived first within a class), the
/// start-order sweep with the longest-lived first at equal starts, then best
/// fit by size, size x lifetime, lifetime and start, and first fit by start;
/// until `budget` or `target`; on a huge segment (kMinHugeItems) only the
/// classic rules after the seeded fits, where they run (best fit by size, first
/// fit by start: with the start-order sweep and first fit decreasing, what
/// memplan-pack's --algorithm offers). Returns the arena; offsets filled. The
/// peak split and the sweeps are charged kSweepWeight units per item per level
/// of a sort, what their free lists cost (docs/Packing.md). The first-fit and
/// best-fit rules place through `index`, built here when empty.
///
/// `index` (here, in improveBySqueaking and improveRandomly): the segment's
/// busy index, kept by the caller so that the phases of one segment build
/// it once and reuse its lists' memory (on 10^5 items, building it, growing
/// its lists on the first pass and freeing them took about 70 ms each
/// time). The charges do not depend on whether it was built: the squeaky
/// wheel charges for building it either way (as it did when it built its
/// own), the rules and the random orders never did.
uint64_t packGreedy(const Segment &seg, std::vector<uint64_t> &offsets,
                    const Budget &budget, uint64_t target,
                    std::optional<BusyIndex> &index, bool seeded);

/// Best's squeaky-wheel improvement of a segment's packing (`offsets`, arena
/// `best`; Joslin and Clements' squeaky wheel optimization applied to first
/// fit): passes of first fit in priority order, the size at first; after
/// each pass, every item whose top ended above `target` gains priority in
/// proportion to how far above (kSqueak), so the items that make the arena
/// come earlier next time. A pass stops once its arena is halfway past the
/// incumbent's excess over the target (the items placed so far still
/// squeak). After kMaxSqueakStall passes in a row without a lower arena it
/// starts over, up to `maxRestarts` times, from new priorities: each item's
/// size times a noise in [0.5, 1.5) drawn from `seed` (mt19937_64, so the
/// same on any machine). Until `budget`, `target`, or a stall with no
/// restart left. Returns the arena; offsets hold the best packing.
uint64_t improveBySqueaking(const Segment &seg, std::vector<uint64_t> &offsets,
                            const Budget &budget, uint64_t target,
                            uint64_t best, std::optional<BusyIndex> &index,
                            uint64_t seed, unsigned maxRestarts);

/// Best's randomized improvement of a segment's packing (`offsets`, arena
/// `best`): random size orders (size times a noise in [0.5, 1.5), placed by
/// first fit) until `budget`, `target`, or kMaxStall orders in a row without
/// a lower arena. Returns the arena; offsets hold the best packing.
uint64_t improveRandomly(const Segment &seg, std::vector<uint64_t> &offsets,
                         const Budget &budget, uint64_t target, uint64_t seed,
                         uint64_t best, std::optional<BusyIndex> &index);

/// Local repair of a packing (Best on segments too large for the canonical
/// search, docs/Packing.md): a move takes out the items that reach the top of
/// the arena and every item overlapping one of them in time (and, on deeper
/// moves, overlapping those: up to kRepairHops hops) whose top lies in a band
/// below them, and re-places them by first fit (largest first, sizes scaled by
/// a random factor in [0.5, 1.5)) among the items left in place. A move whose
/// re-placed items stay within the arena is kept (the other items end below
/// it, so the arena never grows; an equal arena is a sideways move), any
/// other is undone. The band deepens after each move that does not lower the
/// arena and starts over after one that does. Stops at `target`, on
/// `budget`, or after kMaxRepairStall moves without a lower arena. `arena` is
/// the packing's arena; returns the new one.
uint64_t repairTop(const Segment &seg, std::vector<uint64_t> &offsets,
                   const Budget &budget, uint64_t target, uint64_t seed,
                   uint64_t arena);

//===----------------------------------------------------------------------===//
// PackBand.cpp
//===----------------------------------------------------------------------===//

/// Best's band search on a segment's packing (`offsets`, arena `arena`;
/// docs/Packing.md): the items whose tops lie in a band below the arena are
/// taken out and packed again by the canonical search (searchPortfolio on a
/// SearchProblem with floors), each above the highest top of the items left
/// in place that it overlaps: at the target, else halfway to it, else just
/// below the arena. The band starts as deep as the arena's excess over the
/// target (the items above the target) and grows by half its depth, at most
/// doubling its items, until a search lowers the arena (then it starts over
/// from the new top) or the band would hold more than kMaxBandItems items.
/// Each attempt gets kBandAttemptShare of the work left. Until `budget` or
/// `target`; deterministic. Returns the arena (offsets hold its packing);
/// what the searches prove impossible concerns the band above its floors,
/// never the segment.
uint64_t improveTopBand(const Segment &seg, std::vector<uint64_t> &offsets,
                        const Budget &budget, uint64_t target, uint64_t arena);

//===----------------------------------------------------------------------===//
// PackSearch.cpp
//===----------------------------------------------------------------------===//

/// The canonical search with restarts: rounds over the static orders with
/// a node limit growing kNodeLimitGrowth-fold each round, until `budget`
/// or the first arena <= cap. `exhausted` means no arena <= cap exists (each
/// run is complete whatever the order). `offsets` (indexed by item) changes
/// only when a packing is found, and then only for the problem's items.
SearchOutcome searchPortfolio(const SearchProblem &problem,
                              std::vector<uint64_t> &offsets,
                              const Budget &budget, uint64_t cap);

} // namespace packing
} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_LIB_PLANNING_PACKINGINTERNAL_H
