//===- Packing.cpp - Packing buffers into one arena -----------------------===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
// The driver: splits the items into time segments and runs, per segment,
// the greedy packers (PackGreedy.cpp), the canonical search (PackSearch.cpp)
// and the probes between them, within one work budget. Checks, bounds and
// names: PackChecks.cpp.
//
//===----------------------------------------------------------------------===//

#include "PackingInternal.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/thread.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <numeric>
#include <optional>

using namespace mlir::memplan;
using namespace mlir::memplan::packing;
using llvm::ArrayRef;

namespace {
/// Splits items into segments that no lifetime crosses.
std::vector<Segment> splitSegments(ArrayRef<PackItem> items) {
  std::vector<uint32_t> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  // Ties by index, so that the order does not depend on the standard
  // library's sort: the start order (OrderKind::Start) and the sweeps
  // inherit it.
  llvm::sort(order, [&](uint32_t a, uint32_t b) {
    return std::make_pair(items[a].live.start, a) <
           std::make_pair(items[b].live.start, b);
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
    std::vector<LiveRange> ranges;
    ranges.reserve(seg.ids.size());
    for (uint32_t id : seg.ids)
      ranges.push_back({items[id].live, items[id].size});
    LowerBound bound = computeLowerBound(ranges);
    seg.lowerBound = bound.bytes;
    seg.peakStep = bound.step;
  }
  return segments;
}

/// Work units between two PackOptions::progress calls (about 0.03 s).
constexpr uint64_t kProgressWork = uint64_t(1) << 24;

/// Segments up to this size are searched exactly by Best too.
constexpr size_t kMaxSearchItems = 4096;

/// On a segment too large for the search: the share of its work the random
/// orders may take, then the share of what they leave that the squeaky wheel
/// gets; the band search (improveTopBand) goes on with the rest until it
/// finds no lower arena, and the repair has what it leaves. Chosen on the 25
/// traces of bench/pack_suite.py and 12 others (docs/benchmarks.md): the
/// squeaky wheel first does better on planted traces but leaves the random
/// orders too little to reach LB on irregular ones that admit it; with 60 %
/// rather than 85 % for the squeaky wheel, the band search did no better.
constexpr double kRandomShare = 0.3;
constexpr double kSqueakShare = 0.85;

/// On a segment the search takes but could not pack at its goal: the
/// squeaky wheel gets this share of the work left before the probes, where
/// the segment has more than kMaxSmallSqueakItems buffers (kSmallSqueakShare
/// where it has more than kMinSqueakItems, up to that). On 12 planted and
/// irregular traces of 3000-4000 buffers it lowered six arenas (one from
/// 1.091 to 1.028 x LB) and raised none. On segments of 513-1024 buffers
/// it (with the band search after it) took 13 of 40 planted traces of 3000
/// and 6000 pieces closer to LB (a 718-buffer segment from 1.0057 x LB to
/// LB, proven) and raised none, and 11 of 12 random uniform ones of
/// 600-1000 buffers (mean excess 0.058 -> 0.043; one 1.0218 -> 1.0373).
constexpr double kSqueakAfterSearchShare = 0.6;
/// The floor: segments of at most this many buffers keep the probes alone.
/// On those of 129-512 buffers the squeaky wheel and the band search get
/// the smaller shares below. Chosen on 99 traces (MiniMalloc's eleven, 42
/// random uniform, 46 planted; the grid is in docs/benchmarks.md, ninth
/// stop): the mean excess over LB fell on every group, MiniMalloc's J
/// 1.0569 -> 1.0248 x LB at the default bound (1.0580 -> 1.0600 at half of
/// it), 10 planted arenas lower and none higher, 10 uniform ones lower and
/// 5 higher. A floor of 256 took J to 1.0652; one of 64 gave the same as
/// 128 on all 99. (It was 512 before, and 1024 before that.)
constexpr size_t kMinSqueakItems = 128;
/// On a segment of more than kMinSqueakItems but at most kMaxSmallSqueakItems
/// buffers, the shares the squeaky wheel and then the band search get
/// there instead of kSqueakAfterSearchShare and kBandAfterSearchShare.
constexpr size_t kMaxSmallSqueakItems = 512;
constexpr double kSmallSqueakShare = 0.3;
constexpr double kSmallBandShare = 0.1;
/// There, once it stalls, the squeaky wheel starts over from noisy sizes up
/// to this many times, within the same share: on the small set of
/// bench/pack_suite.py the mean excess went from 0.00616 to 0.00410 (planted
/// 8000 pieces, seed 3: 1.0217 to 1.0047 x LB), none higher (measured when
/// it ran on segments of more than 512 buffers only; on those of 129-512 it
/// restarts too, as on the 99 traces above: a stall of 32, 64 or 256 passes
/// instead of kMaxSqueakStall's 128 did no better there; the count itself
/// was not varied). Not on larger segments (more than kMaxSearchItems): there
/// the band search and the repair after it need the work (held-out set: 0.00208
/// to 0.00228, five arenas at LB to two, when it restarted there too;
/// docs/benchmarks.md).
constexpr unsigned kMaxSqueakRestarts = 64;
/// There, after the squeaky wheel, the band search gets this share of the
/// work left before the probes. On the small set of bench/pack_suite.py the
/// mean excess went from 0.00678 to 0.00616 (0.00606 with half the work
/// left, but then the three planted traces laid end to end of
/// segment-floor.test went from 1.0390 to 1.0730 x LB: the probes of the
/// highest segment lost the work they need); on MiniMalloc's suite, D went
/// from 1.0571 to 1.0976 when it ran there with this share (it runs there
/// with kSmallBandShare now). On segments of more than kMaxSmallSqueakItems.
constexpr double kBandAfterSearchShare = 0.25;

/// The share of the remaining time the decision search at the goal gets
/// before the probes between the goal and the incumbent.
constexpr double kDecisionShare = 0.7;
/// The same, on a segment where the squeaky wheel or the band search follows
/// a failed decision search (Best, more than kMinSqueakItems buffers, not
/// in decision mode (kCapacityPolishDecisionShare there), either phase on; with
/// both off the decision search keeps kDecisionShare, so that the probes get
/// what they got before these phases ran): a decision search that succeeds
/// mostly does so early, and one that fails there leaves them the work. On 44
/// traces held out from the choice (planted, 1500-8000 pieces; uniform, 700 and
/// 2000 buffers) the mean excess over LB went from 0.00501 to 0.00450 (17
/// arenas lower, 2 higher; 0.00487 with 0.5, 0.00450 with 0.15 but 4
/// higher); on the small set of bench/pack_suite.py from 0.00026 to 0.00018
/// (docs/benchmarks.md). Segments of 129-512 buffers get it too: on the 99
/// traces of kMinSqueakItems, 0.2, 0.4 and 0.5 left J at 1.0497, 1.0549 and
/// 1.0590 (0.3: 1.0248) and did no better on the others (ninth stop).
constexpr double kPolishDecisionShare = 0.3;
/// The same in decision mode (where no probes follow, and only the decision
/// search proves that nothing fits): the squeaky wheel and the band search
/// follow a failed decision search there too (not one that proved the
/// capacity too small), so that decision mode is not weaker than a plain
/// run (a 1024-buffer trace that plain Best packs at 1.0032 x LB was
/// answered "does not fit" under 1.0088 x LB when the decision search had
/// all the work). On 67 trace files at capacity = plain Best's arena, 40
/// fit before, 59 with 0.5 (one fewer halfway between LB and that arena),
/// 54 with 0.7; no proof was lost on 13 traces at capacity = the exact
/// search's arena - 1 (docs/benchmarks.md, ninth stop).
constexpr double kCapacityPolishDecisionShare = 0.5;

/// The first probe slices: about 0.02 s of search (kDefaultPackWork is
/// about 1 s).
constexpr uint64_t kFirstProbeWork = kDefaultPackWork / 50;
constexpr double kFirstProbeSeconds = 0.02;

/// Best and Exact for one segment, between their two phases.
struct SegmentSearch {
  uint64_t arena = 0;
  /// No arena for the whole trace is below it: the trace's lower bound at
  /// first (which bounds the whole arena, not this segment), raised to
  /// cap + 1 by every search that exhausted its tree at a cap.
  uint64_t provenLow = 0;
  /// Set when the segment is left above its goal and may be probed.
  std::unique_ptr<SearchProblem> problem;
  /// Phase two: the time and work slices of the segment's next round of
  /// probes (probeRound).
  double slice = kFirstProbeSeconds;
  uint64_t sliceWork = kFirstProbeWork;
  /// The busy index of the greedy placers, kept from the rules to the
  /// improvement on a segment too large for the search (built once there,
  /// its lists' memory reused); empty otherwise.
  std::optional<BusyIndex> index;
};

/// Whether Best or Exact searches `seg` with the canonical search (Exact
/// every segment, Best those small enough) rather than random orders.
bool searchable(const Segment &seg, const PackOptions &options) {
  return options.algorithm == PackAlgorithm::Exact ||
         seg.ids.size() <= kMaxSearchItems;
}

/// Phase one after the rules for a segment too large for the canonical
/// search: randomized greedy orders (kRandomShare of `budget` at most), then
/// the squeaky wheel (kSqueakShare of what they left), then the band search
/// until it stalls, then the repair with the rest (each where its option is
/// on), until the goal.
void improveLarge(const Segment &seg, SegmentSearch &state,
                  std::vector<uint64_t> &offsets, const Budget &budget,
                  uint64_t goal, const PackOptions &options) {
  state.arena = improveRandomly(
      seg, offsets, options.squeakyWheel ? budget.share(kRandomShare) : budget,
      goal, options.seed, state.arena, state.index);
  if (options.squeakyWheel && state.arena > goal && !budget.expired())
    state.arena =
        improveBySqueaking(seg, offsets, budget.share(kSqueakShare), goal,
                           state.arena, state.index, options.seed,
                           /*maxRestarts=*/0);
  state.index.reset();
  if (options.bandSearch && state.arena > goal && !budget.expired())
    state.arena = improveTopBand(seg, offsets, budget, goal, state.arena);
  if (options.repair && state.arena > goal && !budget.expired())
    state.arena =
        repairTop(seg, offsets, budget, goal, options.seed, state.arena);
}

/// Phase one of Best and Exact after the rules, for a segment they left above
/// its goal (the larger of the lower bound and the aligned bound, or
/// the capacity in decision mode; or what the whole arena is already sure
/// to reach, the floor of packOnThisStack), within
/// `budget` (its share): segments small enough (every one for Exact) get the
/// canonical search at the goal with kDecisionShare of it (all of it in
/// decision mode; kPolishDecisionShare where the squeaky wheel and the band
/// search follow, kCapacityPolishDecisionShare in decision mode) and are
/// kept for the probes when it fails (outside decision mode; before them,
/// and in decision mode too, Best, on a segment of more than
/// kMinSqueakItems buffers, gives the squeaky wheel, with restarts,
/// kSqueakAfterSearchShare of what is left, then the band search
/// kBandAfterSearchShare of the rest; kSmallSqueakShare and kSmallBandShare on
/// one of at most kMaxSmallSqueakItems); larger ones, and those whose search
/// problem cannot be built (more overlapping pairs or section memberships than
/// kMaxSearchEntries, or more work than is left), get improveLarge within
/// `largeShare` of `budget`. Sets `infeasible` when the capacity is proven too
/// small.
void improveSegment(const Segment &seg, SegmentSearch &state,
                    std::vector<uint64_t> &offsets, const Budget &budget,
                    uint64_t goal, const PackOptions &options,
                    double largeShare, bool &infeasible) {
  if (!searchable(seg, options)) {
    improveLarge(seg, state, offsets, budget.share(largeShare), goal, options);
    return;
  }
  auto problem = std::make_unique<SearchProblem>(seg, budget.workAffordable());
  budget.charge(problem->buildWork);
  // Too large (then what a large segment gets), or the work left cannot
  // build it (the bound is then all but spent: building costs at most about
  // 2^23 units).
  if (problem->tooLarge) {
    if (!budget.expired())
      improveLarge(seg, state, offsets, budget.share(largeShare), goal,
                   options);
    return;
  }
  // What follows a failed decision search (below) decides its share.
  const bool polish = options.algorithm == PackAlgorithm::Best &&
                      seg.ids.size() > kMinSqueakItems &&
                      (options.squeakyWheel || options.bandSearch);
  double share = options.capacity
                     ? (polish ? kCapacityPolishDecisionShare : 1.0)
                 : polish ? kPolishDecisionShare
                          : kDecisionShare;
  SearchOutcome decision =
      searchPortfolio(*problem, offsets, budget.share(share), goal);
  if (decision.arena <= goal) {
    state.arena = decision.arena;
    return;
  }
  if (decision.exhausted)
    state.provenLow = goal + 1;
  // In decision mode a proof that nothing fits settles the segment.
  if (options.capacity && decision.exhausted) {
    infeasible = true;
    return;
  }
  // The search could not reach the goal: on a segment of more than
  // kMinSqueakItems buffers the squeaky wheel and the band search may still
  // lower the incumbent before the probes (smaller ones keep the probes
  // alone). In decision mode too: they stop at the capacity, and prove
  // nothing.
  const bool smallSegment = seg.ids.size() <= kMaxSmallSqueakItems;
  const double squeakShare =
      smallSegment ? kSmallSqueakShare : kSqueakAfterSearchShare;
  const double bandShare =
      smallSegment ? kSmallBandShare : kBandAfterSearchShare;
  if (polish && options.squeakyWheel && !budget.expired())
    state.arena = improveBySqueaking(seg, offsets, budget.share(squeakShare),
                                     goal, state.arena, state.index,
                                     options.seed, kMaxSqueakRestarts);
  state.index.reset();
  // Then the band search, as on larger segments, aiming no lower than what
  // the decision search proved impossible.
  const uint64_t bandGoal = std::max(goal, state.provenLow);
  if (polish && options.bandSearch && state.arena > bandGoal &&
      !budget.expired())
    state.arena = improveTopBand(seg, offsets, budget.share(bandShare),
                                 bandGoal, state.arena);
  // No probes follow in decision mode: what the phases leave goes on to the
  // other segments and the composites (a second decision search with it
  // fitted fewer: 56 rather than 59 of the 67 traces of
  // kCapacityPolishDecisionShare).
  if (!options.capacity && !decision.tooDeep)
    state.problem = std::move(problem);
}

/// Phase two, one round on one segment: probes at caps between the
/// segment's proven low and its incumbent — at 1/2, 3/4, 7/8 of the way and
/// just below the incumbent, recomputed after each probe that lowers the
/// incumbent or raises the proven low — each with the
/// segment's time slice, which doubles every round (a search that fails at
/// one cap often succeeds quickly at another; starting halfway rather than a
/// quarter of the way up spends less time on caps far below any packing
/// found: D and J of MiniMalloc's suite reach 1.057 within 0.5 s, were
/// 1.064–1.079 at 1 s). A probe that finds a packing lowers the incumbent;
/// one that exhausts its tree proves every arena up to its cap impossible.
/// Returns false once no round can lower the segment: proven optimal, too
/// deep for any cap, or no search can begin with the work left.
bool probeRound(SegmentSearch &state, std::vector<uint64_t> &offsets,
                const Budget &budget) {
  for (double t : {0.5, 0.75, 0.875, 1.0}) {
    if (state.provenLow >= state.arena || budget.expired())
      break;
    uint64_t cap =
        state.provenLow +
        static_cast<uint64_t>(
            t * static_cast<double>(state.arena - 1 - state.provenLow));
    // Writes the segment's offsets only when it finds a packing, whose
    // arena is then at most cap, below the incumbent.
    SearchOutcome probe =
        searchPortfolio(*state.problem, offsets,
                        budget.slice(state.sliceWork, state.slice), cap);
    if (probe.arena <= cap) {
      state.arena = probe.arena;
    } else if (probe.exhausted) {
      state.provenLow = std::max(state.provenLow, cap + 1);
    } else if (probe.tooDeep ||
               (probe.starved && !budget.affords(state.problem->setupWork))) {
      // No cap will do better, or no search can begin with the work left
      // (a starved slice only waits for a larger one).
      return false;
    }
  }
  state.slice *= 2;
  state.sliceWork =
      state.sliceWork > UINT64_MAX / 2 ? UINT64_MAX : 2 * state.sliceWork;
  return state.provenLow < state.arena;
}

} // namespace

/// What packCoalesced does between the rules and the search on the items:
/// given the items of the segments the rules left above their goal
/// (ascending), the most items one of those segments has, and the budget,
/// it adds its work to the last argument (charged to the run) and returns
/// the share of the work and time left that the search gets (1: all of it).
using BeforeSearch = llvm::function_ref<double(ArrayRef<uint32_t>, size_t,
                                               const Budget &, uint64_t &)>;

/// pack() itself, on a stack large enough for the canonical search, with
/// `beforeSearch` (Best with coalescing) called once after the rules where
/// they left a segment above its goal and the bound is not spent.
static PackResult packOnThisStack(ArrayRef<PackItem> items,
                                  const PackOptions &options,
                                  BeforeSearch beforeSearch = nullptr) {
  PackResult result;
  result.offsets.assign(items.size(), 0);
  if (items.empty()) {
    result.optimal = true;
    return result;
  }
  Budget budget(result.work, options.workLimit, options.timeLimitSeconds);
  std::vector<Segment> segments = splitSegments(items);
  for (const Segment &seg : segments)
    result.lowerBound = std::max(result.lowerBound, seg.lowerBound);
  std::vector<SegmentSearch> states(segments.size());
  // Segments through phase one (at their goal after the rules, or through
  // their improvement), and the one being worked on now.
  size_t decided = 0, current = 0;
  Budget::Ticker ticker{kProgressWork, kProgressWork, nullptr};
  bool done = false;
  auto progress = [&] {
    PackProgress p;
    // Every segment the rules have packed counts with its arena; the one
    // being worked on with the best it has reached so far.
    for (auto [k, state] : llvm::enumerate(states)) {
      uint64_t arena = state.arena;
      if (k == current && ticker.segmentArena)
        arena =
            arena ? std::min(arena, ticker.segmentArena) : ticker.segmentArena;
      p.arena = std::max(p.arena, arena);
    }
    p.done = done;
    p.lowerBound = result.lowerBound;
    p.work = result.work;
    p.workLimit = options.workLimit;
    p.segmentsDecided = decided;
    p.segments = segments.size();
    options.progress(p);
  };
  ticker.fn = progress;
  if (options.progress)
    budget.setTicker(&ticker);
  // No segment needs to go below the bound that the whole arena must reach:
  // the peak live bytes, or more where alignment forces padding.
  const uint64_t target = std::max(result.lowerBound, paddedLowerBound(items));
  const uint64_t goal =
      options.capacity ? std::max(target, *options.capacity) : target;
  // Decision mode with a capacity below that bound: nothing fits, and
  // nothing needs searching. Each segment gets the start-order sweep only
  // (an arena to report, whatever the bounds).
  const bool hopeless = options.capacity && *options.capacity < target;
  if (hopeless)
    result.provenInfeasible = true;
  bool provenOptimal = true;
  // Phase one, first the greedy rules on every segment, so that a large
  // segment's random orders cannot take the work every other segment needs
  // to get at least what the classic rules give (on a 10^5-buffer trace of
  // several segments they took it all: the arena was 1.74 x LB where first
  // fit decreasing alone gives 1.22). Each segment's rules get a share of
  // what is left in proportion to its size (what one leaves goes to the
  // next): the rules on a 10^5-buffer segment can cost several times the
  // whole bound, and would leave a later segment nothing.
  size_t itemsLeft = items.size();
  for (auto [k, seg, state] : llvm::enumerate(segments, states)) {
    current = k;
    ticker.segmentArena = 0;
    switch (options.algorithm) {
    case PackAlgorithm::GreedyTime:
    case PackAlgorithm::GreedySize:
    case PackAlgorithm::FirstFitSize:
    case PackAlgorithm::FirstFitStart:
      state.arena = packRule(seg, options.algorithm, result.offsets);
      break;
    case PackAlgorithm::Best:
    case PackAlgorithm::Exact:
      // Only the lower bound is a proof: a capacity is a goal, not a bound.
      state.provenLow = target;
      if (hopeless) {
        state.arena = packRule(seg, PackAlgorithm::GreedyTime, result.offsets);
        break;
      }
      state.arena =
          packGreedy(seg, result.offsets,
                     budget.share(static_cast<double>(seg.ids.size()) /
                                  static_cast<double>(itemsLeft)),
                     goal, state.index, options.seededFit);
      // Kept only for the improvement of a segment too large for the
      // search (the memory of every segment's index at once could be a
      // hundred bytes an item).
      if (state.arena <= goal || searchable(seg, options))
        state.index.reset();
      break;
    }
    itemsLeft -= seg.ids.size();
    if (state.arena <= goal)
      ++decided;
  }
  std::vector<uint32_t> aboveIds;
  size_t largestAbove = 0;
  // (Not where a capacity below the bounds has settled the answer.)
  if (beforeSearch && !hopeless && !budget.expired())
    for (auto [seg, state] : llvm::zip(segments, states))
      if (state.arena > goal) {
        aboveIds.insert(aboveIds.end(), seg.ids.begin(), seg.ids.end());
        largestAbove = std::max(largestAbove, seg.ids.size());
      }
  uint64_t units = orderWork(aboveIds.size());
  if (!aboveIds.empty() && budget.affords(units)) {
    llvm::sort(aboveIds);
    double share = beforeSearch(aboveIds, largestAbove, budget, units);
    budget.charge(units);
    if (share < 1.0)
      budget = budget.share(share);
  }
  // Then the segments left above their goal, the highest arena first (only
  // the highest decides the arena): the search at the goal with
  // kDecisionShare (or kPolishDecisionShare) of the work left, as before
  // this split; random orders
  // and the repair, which rarely stop before the bound on a large segment,
  // with an equal share of what is left among the segments still to go.
  std::vector<size_t> above;
  if (options.algorithm == PackAlgorithm::Best ||
      options.algorithm == PackAlgorithm::Exact)
    for (auto [k, state] : llvm::enumerate(states))
      if (state.arena > goal)
        above.push_back(k);
  llvm::stable_sort(above, [&](size_t a, size_t b) {
    return states[a].arena > states[b].arena;
  });
  // The arena is the highest segment's: once a segment is improved, no
  // later one needs to go below what the arena is now sure to reach
  // (`floor`), and one already at or below it gets no work. Only what no
  // later phase changes raises the floor: the arena of a segment left
  // without a search problem, or, for one the probes may still lower, the
  // arena it is proven not to go below. Not in decision mode: there every
  // segment is searched at the capacity, so that one that cannot fit is
  // proven so.
  uint64_t floor = goal;
  for (auto [improved, k] : llvm::enumerate(above)) {
    // Decision mode: a segment proven not to fit settles the answer.
    if (budget.expired() || result.provenInfeasible)
      break;
    current = k;
    ticker.segmentArena = states[k].arena;
    ++decided;
    if (states[k].arena <= floor) {
      states[k].index.reset();
      continue;
    }
    bool infeasible = false;
    // A large segment (or one whose search problem cannot be built) gets
    // an equal share of what is left among those still to go; one the
    // search takes, all of it (its decision search takes kDecisionShare or
    // kPolishDecisionShare).
    improveSegment(segments[k], states[k], result.offsets, budget, floor,
                   options, 1.0 / static_cast<double>(above.size() - improved),
                   infeasible);
    result.provenInfeasible |= infeasible;
    if (!options.capacity)
      floor = std::max(floor, states[k].problem ? std::min(states[k].provenLow,
                                                           states[k].arena)
                                                : states[k].arena);
  }
  // Segments the loop did not reach (out of work) keep no index either.
  for (SegmentSearch &state : states)
    state.index.reset();
  current = segments.size();
  decided = segments.size();
  // Phase two: probes on the segments left above their goal, round by
  // round, each round on the highest of them (the arena is the highest
  // segment's): a lower one is probed only once the rounds have brought
  // every higher one below it. They stop once the highest is at or below a
  // segment that no round will lower (`settled`: the arena is at least its
  // arena).
  std::vector<size_t> open;
  uint64_t settled = goal;
  for (auto [k, state] : llvm::enumerate(states)) {
    if (state.problem)
      open.push_back(k);
    else
      settled = std::max(settled, state.arena);
  }
  while (!open.empty() && !budget.expired()) {
    // The highest, the first segment of the highest on ties.
    size_t top = 0;
    for (size_t j = 1; j < open.size(); ++j)
      if (states[open[j]].arena > states[open[top]].arena)
        top = j;
    size_t k = open[top];
    if (states[k].arena <= settled)
      break;
    if (!probeRound(states[k], result.offsets, budget)) {
      settled = std::max(settled, states[k].arena);
      open.erase(open.begin() + top);
    }
  }
  result.provenLowerBound = target;
  for (const SegmentSearch &state : states) {
    bool segmentProven = state.provenLow >= state.arena;
    if (state.arena > target && !segmentProven)
      provenOptimal = false;
    result.arena = std::max(result.arena, state.arena);
    // No arena below min(provenLow, the segment's arena) holds this
    // segment, and the arena holds every segment.
    result.provenLowerBound = std::max(result.provenLowerBound,
                                       std::min(state.provenLow, state.arena));
  }
  // Proven when every segment above the bound is, or when one segment's
  // proof already reaches the arena (the others cannot lower it).
  result.optimal = provenOptimal || result.provenLowerBound >= result.arena;
  if (result.optimal)
    result.provenLowerBound = result.arena;
  // Decision mode: no arena below the proven bound exists.
  if (options.capacity && *options.capacity < result.provenLowerBound)
    result.provenInfeasible = true;
  if (options.progress && (options.algorithm == PackAlgorithm::Best ||
                           options.algorithm == PackAlgorithm::Exact)) {
    done = true;
    progress();
  }
  return result;
}

/// The share of what the items' rules leave of the work bound (and of the
/// time limit) that Best gives the search on the items themselves; the
/// coalesced items get the rest (the items' rules run within the whole
/// bound, as without coalescing). Chosen on the three sets of
/// bench/pack_suite.py and MiniMalloc's challenging suite
/// (docs/benchmarks.md): the composites reach their best arenas with half
/// the work or less, and some traces need half for the items (MiniMalloc's
/// J, when this was chosen: 1.0569 x LB from 2.5 * 10^8 units, 1.0580 with
/// 1.5 * 10^8; since the ninth stop 1.0600 at 2.5 * 10^8, 1.0248 at the
/// default bound).
constexpr double kItemsShare = 0.5;
/// The same where one of the segments coalesced is huge (kMinHugeItems)
/// and the seeded fits are on:
/// there the composites' rules need most of what the items' rules leave
/// (on 10^5-buffer traces, one first-fit pass over the composites costs
/// about 5 * 10^7 units, and their seeded fits are what lowers PL3 of
/// bench/pack_suite.py's large set, 1.1010 -> 1.0566 x LB, and PL5, 1.0050
/// -> 1.0019; with 0.5 they do not reach them; the 21 other 10^5-buffer
/// traces measured are unchanged: docs/benchmarks.md, eighth stop).
constexpr double kHugeItemsShare = 0.3;

/// Best with coalescing (PackCoalesce.cpp): the items packed first; where
/// their rules leave segments above their goal, those segments' items are
/// coalesced then, and if any merge (and the work the items' search would
/// leave pays for the composites' first packing twice over), the search on
/// the items gets kItemsShare of what is left (kHugeItemsShare where one of
/// those segments is huge and the seeded fits are on), and, unless it ends at a
/// proven optimum, the composites get the rest; each of those segments
/// keeps the lower of its two packings (the items' on a tie: no chain
/// joins two segments, so the composites' segments are the items'). The
/// items come first so that their rules run as they would without
/// coalescing, and so that a trace the rules pack at LB (10^6 layered
/// buffers) pays nothing for it. Only the items' run proves anything: a
/// search exhausted on the composites says nothing of packings that split
/// them, but a bound proven for the items holds for every packing of them,
/// the composites' too. In decision mode the composites are packed only
/// where the items' run neither fits the capacity nor proves that nothing
/// does: a packing of the composites under the capacity is a packing of the
/// items, and a proof about the items stands (what the composites' run
/// proves about them is dropped). Not for Exact, whose answers are proofs.
static PackResult packCoalesced(ArrayRef<PackItem> items,
                                const PackOptions &options) {
  auto begin = Clock::now();
  // Progress: one run after the other, counted as one: the work before a
  // run added; while the composites are packed, the items' arena, lower
  // bound and segments (all decided); `done` only at the end.
  uint64_t before = 0;
  PackProgress last;
  PackOptions first = options;
  if (options.progress)
    first.progress = [&](const PackProgress &p) {
      last = p;
      last.done = false;
      options.progress(last);
    };
  // The items of the segments coalesced, those items and their composites.
  std::vector<uint32_t> ids;
  std::vector<PackItem> sub;
  Coalesced merged;
  PackResult own = packOnThisStack(
      items, first,
      [&](ArrayRef<uint32_t> above, size_t largest, const Budget &budget,
          uint64_t &work) {
        const double itemsShare = options.seededFit && largest > kMinHugeItems
                                      ? kHugeItemsShare
                                      : kItemsShare;
        ids.assign(above.begin(), above.end());
        sub.clear();
        for (uint32_t id : ids)
          sub.push_back(items[id]);
        uint64_t cap = budget.workAffordable();
        merged = coalesce(sub, work, cap, [&] { return budget.overTime(); });
        if (!merged.items.empty() && cap != UINT64_MAX &&
            (1.0 - itemsShare) * static_cast<double>(cap - work) <
                static_cast<double>(2 * sweepWork(merged.items.size()) +
                                    2 * orderWork(sub.size())))
          merged = Coalesced();
        return merged.items.empty() ? 1.0 : itemsShare;
      });
  auto finish = [&]() -> PackResult & {
    if (options.progress) {
      last.arena = own.arena;
      last.lowerBound = own.lowerBound;
      last.work = own.work;
      last.workLimit = options.workLimit;
      last.segmentsDecided = last.segments;
      last.done = true;
      options.progress(last);
    }
    return own;
  };
  // The composites' run makes each segment's first packing (the peak
  // split, two half sweeps) whatever its bound: not begun where the work
  // left cannot pay for that and as much again, so that the whole run stays
  // within the bound, nor once the time limit is reached (a limit of 0
  // would mean no clock). The choice between the two packings after it is
  // reserved (a search for each coalesced item: at most a sort's work; the
  // reserve is twice that, the callback's share decision counted with it).
  // In decision mode, picking the segments still above the capacity costs
  // as much again (below).
  const uint64_t choice = (options.capacity ? 3 : 2) * orderWork(sub.size());
  PackOptions second = options;
  if (options.timeLimitSeconds > 0)
    second.timeLimitSeconds =
        options.timeLimitSeconds -
        std::chrono::duration<double>(Clock::now() - begin).count();
  const bool decided = options.capacity &&
                       (own.provenInfeasible || own.arena <= *options.capacity);
  if (merged.items.empty() || own.optimal || decided ||
      (options.timeLimitSeconds > 0 && second.timeLimitSeconds <= 0) ||
      (options.workLimit && (own.work >= options.workLimit ||
                             options.workLimit - own.work <
                                 2 * sweepWork(merged.items.size()) + choice)))
    return finish();
  before = own.work;
  if (options.workLimit)
    second.workLimit = options.workLimit - own.work - choice;
  if (options.progress)
    second.progress = [&](const PackProgress &p) {
      PackProgress q = last;
      q.arena = own.arena;
      q.lowerBound = own.lowerBound;
      q.work = before + p.work;
      q.workLimit = options.workLimit;
      q.segmentsDecided = q.segments;
      options.progress(q);
    };
  ArrayRef<int64_t> cuts = merged.segmentStarts;
  auto segmentAt = [&](int64_t start) {
    return static_cast<size_t>(llvm::upper_bound(cuts, start) - cuts.begin() -
                               1);
  };
  const uint64_t lookup = llvm::Log2_64_Ceil(cuts.size() + 1) + 1;
  // Each coalesced item's segment, looked up once.
  std::vector<uint32_t> group(sub.size());
  std::vector<uint64_t> ownTop(cuts.size(), 0);
  for (size_t j = 0; j < sub.size(); ++j) {
    group[j] = static_cast<uint32_t>(segmentAt(sub[j].live.start));
    ownTop[group[j]] =
        std::max(ownTop[group[j]], own.offsets[ids[j]] + sub[j].size);
  }
  // Decision mode: only the composites of the segments the items' packing
  // leaves above the capacity (a segment under it is done; searching it
  // again could take the work the others need). `slot`: each composite's
  // index among those packed (empty otherwise: all of them, in order).
  std::vector<PackItem> picked;
  std::vector<uint32_t> slot;
  if (options.capacity) {
    slot.resize(merged.items.size());
    for (auto [c, composite] : llvm::enumerate(merged.items)) {
      const bool above =
          ownTop[segmentAt(composite.live.start)] > *options.capacity;
      slot[c] = above ? static_cast<uint32_t>(picked.size()) : UINT32_MAX;
      if (above)
        picked.push_back(composite);
    }
    own.work += (sub.size() + merged.items.size()) * lookup;
    if (picked.empty())
      return finish();
  }
  PackResult composites =
      packOnThisStack(options.capacity ? ArrayRef<PackItem>(picked)
                                       : ArrayRef<PackItem>(merged.items),
                      second);
  own.work += composites.work;
  // Each coalesced segment keeps the lower of its two packings (the items'
  // where its composites were not packed).
  auto theirs = [&](size_t j) -> std::optional<uint64_t> {
    uint32_t k = slot.empty() ? merged.of[j] : slot[merged.of[j]];
    if (k == UINT32_MAX)
      return std::nullopt;
    return composites.offsets[k] + merged.at[j];
  };
  std::vector<uint64_t> theirTop(cuts.size(), 0);
  for (size_t j = 0; j < sub.size(); ++j) {
    std::optional<uint64_t> at = theirs(j);
    uint64_t &top = theirTop[group[j]];
    top = at ? std::max(top, *at + sub[j].size) : UINT64_MAX;
  }
  for (size_t j = 0; j < sub.size(); ++j)
    if (theirTop[group[j]] < ownTop[group[j]])
      own.offsets[ids[j]] = *theirs(j);
  own.work += sub.size() * lookup;
  assert(own.work <= before + composites.work + choice &&
         "the choice costs at most what was reserved");
  own.arena = 0;
  for (size_t i = 0; i < items.size(); ++i)
    own.arena = std::max(own.arena, own.offsets[i] + items[i].size);
  own.optimal = own.provenLowerBound >= own.arena;
  if (own.optimal)
    own.provenLowerBound = own.arena;
  return finish();
}

PackResult mlir::memplan::pack(ArrayRef<PackItem> items,
                               const PackOptions &options) {
  if (options.algorithm != PackAlgorithm::Best &&
      options.algorithm != PackAlgorithm::Exact)
    return packOnThisStack(items, options);
  const bool coalescing =
      options.coalesce && options.algorithm == PackAlgorithm::Best;
  // The canonical search nests up to kMaxSearchDepth levels: it runs on a
  // thread whose stack holds them, whatever the caller's (an MLIR pass may
  // run on a pool thread).
  PackResult result;
  llvm::thread worker(std::optional<unsigned>(kSearchStackBytes), [&] {
    result = coalescing ? packCoalesced(items, options)
                        : packOnThisStack(items, options);
  });
  worker.join();
  return result;
}
