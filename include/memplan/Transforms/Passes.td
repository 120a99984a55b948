//===- Passes.td - memplan transformation passes -----------*- tablegen -*-===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_TRANSFORMS_PASSES
#define MEMPLAN_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def AnnotateLifetimesPass : Pass<"memplan-annotate-lifetimes"> {
  let summary = "Annotate every buffer-owning value with its lifetime";
  let description = [{
    Runs the lifetime analysis on each function with a body nested in the
    op it runs on (a module or a function) and records its result as
    `memplan.lifetime = #memplan.lifetime<start, end>`: on the defining op of
    every root the function allocates or has placed (an array in result order,
    with `unit` for results that own none, when the op has several results)
    and as an argument attribute on each tensor or memref argument. External
    storage (constants, globals, stack allocations, call results) is not
    annotated. Works on
    tensor-level and memref-level functions; it changes nothing else.

    **Steps.** The ops of the function body in program order — its blocks
    in their order in the region, each from first op to terminator — the
    first op being step 0. Ops nested in the regions of control-flow ops (ops
    implementing `RegionBranchOpInterface`: `scf.for`, `scf.if`, `scf.while`,
    `memplan.recompute`, ...) get steps too, in pre-order: the region op
    first, then its nested ops, terminators included (implicit ones too).
    So do the regions of loops that are not region branches
    (`LoopLikeOpInterface`: `affine.parallel`, ...) and of `vector.mask`;
    buffers created there stay there (one slot serves every iteration; on
    the CPU their iterations run in order), and a mask's results share the
    buffers its masked op yields. Payload regions of other ops (linalg
    bodies) get no steps; a use inside them counts at the step of the op that
    holds the payload.

    **Roots.** At memref level, `memref.alloc` results. At tensor level, the
    results of ops that create a new tensor (`tensor.empty`,
    `bufferization.alloc_tensor`, `tensor.pad`, `tensor.concat`,
    `tensor.generate`, `tensor.from_elements`, `tensor.splat`, elementwise ops
    on tensors). A destination-style op's result shares the buffer of its
    init, so its root is the init's root. Views, casts, reshapes, slices and
    `memplan.checkpoint` alias their source; an `arith.select` of buffers
    aliases both its values; values forwarded by region
    terminators (`scf.yield`, `scf.condition`) and block arguments of the
    function body (forwarded by `cf.br`, `cf.cond_br`, any
    `BranchOpInterface` terminator) merge with what they are forwarded to, and every root that may share a value gets the lifetime of
    the merged group. Function arguments, constants, globals, `memref.alloca`
    and call results are not planned. Roots that reach the function's return
    are the caller's and are not planned either.

    **Lifetimes.** A value defined at step `d` and last used at step `u` is
    live on `[d, u+1)`. A use, inside a region op, of a value defined outside
    it counts at the last nested step of the outermost region op that
    contains the use but not the definition (so a value read in a loop lives
    until the loop ends). Arguments are live from step 0; returned values
    until the return op's step + 1; an unused value on `[d, d+1)`.
    `memref.dealloc` is not a use. In a function of several blocks, a value
    that upstream `mlir::Liveness` finds live into (out of) a block is also
    live at the block's first (last) step, so a value live around a loop of
    blocks stays live over every block of the loop, whatever their order.
    Values that may share storage live on the hull of their intervals.

    **Per-function fallback.** A function the analysis rejects is left as it
    is: the first reason becomes a located warning `memplan leaves @f
    unplanned: <reason>` (with its notes), the function is marked
    `memplan.unplanned = "<reason>"` so that later memplan passes leave it
    too, and the other functions are annotated. With `strict` the reasons are
    errors and the pass fails instead. Functions at every module nesting
    level are handled alike.

    **Rejections.** Each is a located error with `strict` (a warning and a
    fallback otherwise):
    - `unranked type ... is not supported: memplan plans ranked shapes`, on a
      root or a function argument (a view of a ranked root may be unranked:
      its root's size is known). Dynamic shapes are analysed: their sizes are
      expressions over the function's symbols (docs/Lifetimes.md, "Symbolic
      sizes")
    - `element type ... of ... has no storage size in the data layout` (for
      instance a scalable vector) on a root; sizes come from MLIR's
      DataLayout (docs/Lifetimes.md, "Sizes")
    - `the size of ... overflows 64 bits`
    - `buffer allocated inside a loop of blocks is carried across
      iterations; memplan cannot plan loop-carried allocations` (a value
      that may hold the buffer is still live where the buffer is allocated
      again, with a note at that value; not for a buffer that reaches the
      function's return, which is never planned)
    - `memplan cannot follow the tensors or memrefs passed to a successor by
      '...': it does not implement BranchOpInterface`, `memplan cannot analyse
      a tensor or memref produced by the terminator '...' for its successor`,
      `memplan cannot tell where the buffer of this block argument comes
      from: no predecessor forwards it`
    - `region #i of '...' has N blocks; memplan supports single-block regions only`
    - `memplan cannot analyse '...': it produces a tensor or memref and memplan
      does not know whether it allocates a new buffer or aliases an operand`
    - `tensor or memref produced inside the payload region of '...' is not
      supported`
    - `buffer allocated inside a loop is carried across iterations; memplan
      cannot plan loop-carried allocations` (a root defined in a loop body
      that reaches the loop's iteration arguments or results: two of its
      instances can be live at once; not for one that reaches the function's
      return)
    - `memplan cannot tell where the buffer of a tensor or memref of '...'
      comes from` (a region-branch result or region argument that no
      terminator or entry operand forwards to)
  }];
  let options = [
    Option<"strict", "strict", "bool", /*default=*/"false",
           "Reject a function the analysis cannot handle (an error) instead "
           "of leaving it unplanned with a warning">,
  ];
  let dependentDialects = ["::mlir::memplan::MemplanDialect"];
}

def PackArenaPass : Pass<"memplan-pack-arena", "::mlir::ModuleOp"> {
  let summary = "Place every internal allocation of a function in one arena";
  let description = [{
    Runs at memref level (after bufferization) on every function of the
    module. Every identity-layout `memref.alloc` that the
    lifetime analysis plans (not returned) and that does not escape becomes
    a `memplan.view` into one `memplan.arena` created at the function's
    entry — one arena per memory space, in the space of its buffers, each
    packed and reported on its own (the report's `memory_space` field names
    a non-default space); the `memref.dealloc`s of those buffers disappear. An allocation
    escapes when any value sharing its buffer is passed to a call whose
    callee may keep or return it, stored into memory as data (a
    `memref.store` or affine store of the memref itself), or freed together
    with a buffer that is not planned. A callee keeps no reference when it is a function of the
    module whose argument, through views and casts, is only read, written
    or handed to another such call (up to four calls deep), or one of MLIR's
    runner printers (`printMemref*`); anything else (an external function, a
    return, a store of the memref, a dealloc, a region forwarding it) may. escaping
    and returned allocations, zero-byte ones and those with a layout are left
    as they are.

    Each buffer occupies its bytes rounded up to its alignment: the largest
    of `alignment`, the allocation's own `alignment` attribute and its
    element's storage size (rounded up to a power of two, so that the view
    starts on an element boundary). Lifetimes are
    those of the lifetime analysis (`--memplan-annotate-lifetimes`): aliases
    extend their root, allocations in loops are planned per iteration.

    Options: `algorithm` (greedy-size, greedy-time, first-fit-size,
    first-fit-start, best, exact; see
    docs/Packing.md), `alignment` (default 64), `work-limit` (the bound of
    best and exact in work units, default 500000000, about 1 s; the same
    input and options give the same plan on any machine), `time-limit`
    (seconds; an additional wall-clock bound, off by default: with it the plan
    depends on the machine's speed; `work-limit=0 time-limit=S` bounds by the
    clock alone), `report=<file.json>` (the JSON v1 report of
    docs/Interfaces.md), `html=<file.html>` (a self-contained picture),
    `export-csv=<file.csv>` (each arena's buffers as a packing instance for
    `memplan-pack` or MiniMalloc: `id,lower,upper,size,alignment`, sizes as
    packed; with several arenas one file each, `<stem>.<function>.csv`),
    `explain=<file>` or `explain=-` (stderr): per arena, why it is as large
    as it is — the arena against the lower bound, the peak step, the largest
    buffers live there with their ops, locations and share of the peak, and
    what a budget recomputed at what extra compute.

    **Dynamic shapes** (docs/Packing.md, "Symbolic sizes"): when a
    function's planned allocations include dynamic shapes, each buffer's
    size is an expression over the function's symbols (dimensions of its
    arguments and its index arguments, named by `memplan.symbols`, bounded by
    `memplan.bounds` or the `bounds` option). The pass emits, at the entry,
    the code that computes every offset and the arena's size from the
    arguments' sizes (`memplan.arena ... size(%n) : memref<?xi8>`, buffers
    as `memplan.dynamic_view`), following a plan valid for every size:
    `symbolic-algorithm` = `partitions` (tract's), `ordered` (the orders of
    packings at the representative sizes and at 1/8 and 1/64 of them, the
    smallest arena taken at run time) or `auto` (those and the partitions). With `bounded`, one static plan at the bounds is
    used for every smaller shape, each dynamic buffer checked where it is
    allocated against its planned bytes (`cf.assert`). `eval` names points at which
    the report evaluates the plan. The bounds used are recorded in
    `memplan.bounds`. A buffer whose size is no function of the arguments'
    sizes that memplan can state (sums and products) stays on the heap (listed in the report's
    `heap_buffers` with why); the rest is planned.

    A function the lifetime analysis rejects is left as it is, with the
    fallback of `memplan-annotate-lifetimes` (a warning, `memplan.unplanned`;
    an error with `strict`); functions already marked `memplan.unplanned` are
    skipped. The report lists each such function with `"unplanned":
    "<reason>"` and no arena.

    Rejections (located errors; the pass fails): everything the lifetime
    analysis rejects when `strict`, and
    - `alignment must be a power of two, got N`
    - `time-limit X is not a number of seconds in (0, 1e6]`
    - `work-limit=0 leaves the search unbounded: give a time-limit with it`
    - `memplan-pack-arena: this buffer of N bytes, aligned to A, needs more
      than 2^63-1 bytes` or `the planned buffers of @f up to this one total
      more than 2^63-1 bytes` (on the alloc: the arena's extent is an index)
    - `a dealloc frees a value that may be a planned buffer or not`
    - `memplan-pack-arena: bounded=true needs a bound for every symbol of @f;
      missing: B (...)`, `bad bounds option: ...`, `bad eval option: ...`,
      `'memplan.bounds' bounds 'S', which is not a symbol of @f (its
      symbols: ...)`, `symbol 'B' names two dimensions of @f; give each its
      own name`
    - `the size of this buffer, <expr> bytes, does not fit an index at
      <point>` (at the representative point)
    - `the arena of @f at the bounds B=64 is N bytes, over its budget of M
      bytes` (a function with `memplan.budget`)
    - `cannot write the report '...': ...`
  }];
  let options = [
    Option<"algorithm", "algorithm", "::mlir::memplan::PackAlgorithm",
           /*default=*/"::mlir::memplan::PackAlgorithm::Best",
           "Packing algorithm: greedy-size, greedy-time, first-fit-size, "
           "first-fit-start, best (default) or exact",
           [{::mlir::memplan::packAlgorithmValues()}]>,
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "Byte alignment of every buffer (a power of two)">,
    Option<"workLimit", "work-limit", "uint64_t", /*default=*/"500000000",
           "Bound of the best and exact algorithms, in work units (about 1 s "
           "at the default; 0: none). Deterministic">,
    Option<"timeLimit", "time-limit", "double", /*default=*/"0.0",
           "Also stop best and exact after this many seconds (0, the "
           "default: no wall-clock bound; with one the plan depends on the "
           "machine's speed)">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Write the JSON v1 plan report to this file">,
    Option<"exportCsv", "export-csv", "std::string", /*default=*/"\"\"",
           "Write each arena's buffers as a packing instance (MiniMalloc CSV "
           "plus an alignment column) to this file; with several arenas, "
           "one file each, named <stem>.<function>[.space<S>].csv">,
    Option<"explain", "explain", "std::string", /*default=*/"\"\"",
           "Write why each arena is as large as it is (peak step, largest "
           "buffers there with their ops and locations, what a budget "
           "recomputed) to this file, or to stderr with '-'">,
    Option<"html", "html", "std::string", /*default=*/"\"\"",
           "Write a self-contained HTML picture of the plan to this file">,
    Option<"strict", "strict", "bool", /*default=*/"false",
           "Reject a function the analysis cannot handle (an error) instead "
           "of leaving it unplanned with a warning">,
    Option<"symbolicAlgorithm", "symbolic-algorithm",
           "::mlir::memplan::SymbolicAlgorithm",
           /*default=*/"::mlir::memplan::SymbolicAlgorithm::Auto",
           "Functions with dynamic shapes: partitions (tract's), ordered, or "
           "auto (both, the smaller arena chosen at run time; the default)",
           [{::mlir::memplan::symbolicAlgorithmValues()}]>,
    Option<"bounded", "bounded", "bool", /*default=*/"false",
           "Functions with dynamic shapes: one static plan at the bounds, "
           "used for every smaller shape (every symbol needs a bound)">,
    Option<"boundsOption", "bounds", "std::string", /*default=*/"\"\"",
           "Bounds of symbols not bounded by memplan.bounds: B=64,S=1024">,
    Option<"evalOption", "eval", "std::string", /*default=*/"\"\"",
           "Points the report evaluates dynamic plans at: B=8,S=1024;B=1,S=16">,
  ];
  // -mlir-pass-statistics (only with an LLVM built with statistics:
  // Debian's LLVM 22 is not, and prints none; the JSON report carries the
  // same numbers). Debug tracing: -debug-only=memplan-pack-arena, likewise
  // only with an LLVM built with assertions.
  let statistics = [
    Statistic<"numArenas", "arenas", "Arenas created">,
    Statistic<"numPlanned", "buffers-planned", "Buffers placed in arenas">,
    Statistic<"arenaBytes", "arena-bytes", "Bytes of static arenas">,
    Statistic<"lowerBoundBytes", "lower-bound-bytes",
              "Peak live bytes of the planned buffers (static arenas)">
  ];
  let dependentDialects = ["::mlir::memplan::MemplanDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::tensor::TensorDialect"];
}

def VerifyPlanPass : Pass<"memplan-verify-plan"> {
  let summary = "Check a packed plan independently of the packer";
  let description = [{
    Recomputes the lifetimes of every function from the IR and checks its
    plan: at most one `memplan.arena` per function and memory space, every
    `memplan.view` takes one of them, is not returned, lies inside it, no two
    views whose lifetimes overlap share a byte, and, when the function
    carries `memplan.budget`, the arena is no larger than the budget.

    A plan whose offsets or arena size are computed at run time (dynamic
    shapes: `memplan.dynamic_view`, an arena with a `size`) is checked by
    evaluating the function's index code at sample sizes of its symbols:
    the bounds (`memplan.bounds`) when every symbol has one, all symbols
    equal to 0, 1, 2, 3, 7, 64, 1000, 4096, and eight fixed pseudo-random
    points in [0, 4096], each clamped to its bound. At each point where the
    sizes are defined every view must be aligned, inside its arena, and not
    share a byte with a view live at the same time. That is evidence; with
    `remarks=true` the pass then tries a proof for every size (within the symbols' bounds, where
    they have them): the index code becomes polynomials over the symbols,
    with max, max(x, 0) and rounding up to a power of two as atoms whose
    bounds the prover uses (a run-time choice between plans, `arith.select`
    on a comparison, is split into cases, at most 6 conditions), and it
    shows for every view that its offset is aligned and non-negative and
    that it ends inside its arena, and for every pair live at once that one
    ends below the other. The proof is sound and incomplete, bounded by
    `proof-work-limit` units (deterministic); not finding one is no error,
    the samples stand. `remarks=true` says which check each function got
    ("proven for every size [within the bounds] without 64-bit overflow
    ... and checked by evaluation at N sample sizes", or "checked by
    evaluation at N sample sizes (not proven for all sizes: why)"). The
    proof is over the integers: it holds where the 64-bit index code does
    not overflow (the samples check that where they are taken), takes index
    arguments, which are sizes, as non-negative, and is not tried when index
    values are not 64 bits wide. (A view's memory space and the alignment of a static
    offset are checked by the view's own verifier, before any pass runs.)
    Functions marked `memplan.unplanned` are skipped. Changes nothing.

    A function the lifetime analysis rejects is left as it is, with the
    fallback of `memplan-annotate-lifetimes` (a warning, `memplan.unplanned`;
    an error with `strict`); functions already marked `memplan.unplanned` are
    skipped.

    Rejections (located errors; the pass fails): everything the lifetime
    analysis rejects when `strict`, and
    - `second memplan.arena in the same memory space; memplan plans one per
      function and memory space` (with a note at the first one)
    - `view does not take one of its function's memplan.arenas`
    - `view escapes its function: a buffer in the arena is returned`, or
      `... is stored into memory` (a `memref.store` or affine store of the
      view's memref as data, with a note at the view)
    - `view [a, b) ends past its arena of N bytes`
    - `buffers overlap in time and share bytes` on the later view, with a note
      `clashes with this buffer` on the other
    - `arena of N bytes exceeds the budget of B bytes`
    - `view aligned to A bytes in an arena aligned to B: its address is not
      guaranteed to be aligned` (A > B)
    - at sample sizes: `at B=7: buffers overlap in time and share bytes`,
      `at B=7: view [a, b) ends past its arena of N bytes`, `at B=7: offset
      N is not a multiple of the view's alignment A`
    - `memplan-verify-plan: an offset or size depends on this op, which
      cannot be evaluated at sample sizes, so the plan of @f cannot be
      checked` (the evaluator knows constants, integer `arith`,
      `affine.apply`, and the dimensions of arguments, allocations, views and
      casts)
    - `the plan of @f, sized at run time, could not be evaluated at any of N
      sample sizes`
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark per planned function saying how its plan was "
           "checked: exactly (static offsets), or, for offsets computed at "
           "run time, proven for every size and checked at sample sizes, or "
           "checked at sample sizes only (and why no proof was found)">,
    Option<"proofWorkLimit", "proof-work-limit", "uint64_t",
           /*default=*/"30000000",
           "Work bound of the proof for every size, per function (terms "
           "visited, about 10^7 a second; the same answer on any machine). "
           "0: no proof, samples only">,
  ];
  let dependentDialects = ["::mlir::memplan::MemplanDialect"];
}

def InsertRematPass : Pass<"memplan-insert-remat", "::mlir::ModuleOp"> {
  let summary = "Recompute saved activations so a training step fits a budget";
  let description = [{
    At tensor level, on every straight-line function of the module: builds
    the remat graph (one node per planned buffer with the destination-style
    chain that writes it; forward nodes are the buffers the loss — the
    function's first result — depends on; costs from docs/CostModel.md),
    plans a schedule — which forward buffers run again, and when
    (docs/Remat.md) — and rewrites the function to execute it:

    - a buffer's first execution is its original ops; the recomputations the
      schedule runs before a node become one `memplan.recompute` region
      placed right before that node's first op that reads them (else before
      its last writer); the reading chains' pure leading ops that came
      before the region (a `tensor.empty`, its fill) move to right after it,
      so that their buffer is not live across the recomputation. The region clones the chains it re-runs from the
      values the schedule reads — kept originals or the results of earlier
      regions (multi-level plans keep states recomputed by one region for
      the next) — so an original buffer dies after its last scheduled read;
    - a kept buffer read by the backward pass is marked with
      `memplan.checkpoint`, and its backward uses read the checkpoint;
    - with a budget, the function gets `memplan.budget = <bytes>`, which
      `--memplan-verify-plan` checks against the packed arena.

    With the budget policy, a function with control flow (an op with
    branching regions such as `scf.if`/`scf.for`, or several blocks: a
    driver, say) is not rewritten: it gets the budget, which the verifier
    checks on its arena; with `check-arena` it is measured here and a budget
    below its arena is refused (`the budget of N bytes is infeasible for @f:
    its arena is M bytes, and memplan-insert-remat does not rewrite
    functions with control flow ('scf.if')`). Other policies refuse such a
    function.

    Policies: keep-all, recompute-all, every-n (`every`), cost-threshold
    (`threshold`), sqrt, budget (the default with a budget: the first plan of
    a budget-independent sequence of multi-level schedules whose peak fits),
    chain (revolve-style DP; the forward buffers must form a chain) and
    optimal (the MILP on CBC, bounded by `milp-node-limit` nodes per solve so
    that the plan is the same on any machine, with `milp-time-limit` as a
    safety net that warns when it decides; builds without CBC refuse it).

    The budget bounds the liveness peak of the planned buffers (the remat
    graph's memory model). With `check-arena` (set by `--memplan-pipeline`)
    it is a promise about the packed arena. `budget`: the planner's sequence
    (independent of the budget, costs never decreasing) is walked in order,
    each plan's arena predicted without IR (its schedule's buffers packed,
    Planning/RematArena.h), and the first plan whose prediction fits and
    whose arena, measured on a copy of the module (materialized, bufferized
    and packed), fits is taken: normally one copy is measured. If none
    passes, the plans are measured (all up to 49, else every k-th and then
    the window before the first fit) and the first whose arena fits is
    taken. A smaller budget never gets an earlier plan (the walk's test is
    monotone in the budget), except where a prediction is above a measured
    arena and that fallback decides (docs/Remat.md). `chain`/`optimal`: the
    plan for the budget is packed on a copy, and while its arena overshoots
    the liveness target is lowered by the overshoot (8 rounds at most). If no plan fits,
    the error names the smallest arena measured.

    With `check-arena`, policy `budget` and stderr a terminal, each plan
    measured against the budget may print a progress line there
    (`memplan-insert-remat: @f: plan k of N (m measured): arena A bytes,
    budget B`): the first at once, then at most one a second over the whole
    run, one line for each plan whose prediction was too low (`plan k was
    predicted at P bytes and measured at M, above the budget`), and one line
    per function naming the plan chosen and how many plans were predicted
    and measured; `quiet` turns them off. They never change the plan. (`chain` and `optimal` print
    none.)

    `export-graph=<file>` writes the remat graph of every function whose
    backward pass reads a forward buffer, in the node-link JSON memplan-remat
    reads (node ids = graph indices, `name` = the buffer's op and location),
    so its solvers — the MILP included — can be run on a compiler's graphs.

    Rejections (located errors; the pass fails):
    - `cannot write the remat graph to '...': ...`
    - `policy '...' needs a budget` (budget, chain, optimal)
    - `policy 'optimal' needs the MILP solver, and this build has none ...`
    - `memplan-insert-remat supports straight-line functions only, found '...'`
    - `memplan-insert-remat cannot plan @f: policy 'chain' needs ...` on the
      op whose buffer breaks the chain (forward buffers not a chain, or
      backward ops out of reverse layer order)
    - `policy 'optimal' found no schedule for @f within S s (raise
      milp-time-limit)` or `... within N nodes (raise milp-node-limit)`, or
      `... for @f: CBC crashed (signal N)` (CBC runs in a child process; a
      crash or an overrun time limit with a greedy schedule at hand gives a
      warning and that schedule instead)
    - `the budget of N bytes is infeasible for @f: the smallest budget policy
      'P' reaches is M bytes`, and with `chain`/`optimal` `... with policy 'P':
      the smallest budget policy 'budget' reaches is M bytes` (or `this policy
      reached is M bytes` with `check-arena`) (M: the smallest liveness peak,
      or with `check-arena` the smallest packed arena reached); one error
      for each function that cannot keep the budget (it holds for every
      function of the module, so the smallest workable budget is the largest
      M named)
    - `time-limit X is not a number of seconds in (0, 1e6]` (also
      `milp-time-limit`), `work-limit=0 leaves the search unbounded: give a
      time-limit with it`, `milp-node-limit must be >= 0, got N`
    - a warning, not an error: `policy 'optimal' on @f: the MILP stopped on
      its time limit (S s), so this plan depends on the machine's speed`
    - `policy 'P' needs a schedule of more than 16777216 executions for @f`
      or `policy 'P' needs more work than plan-work-limit=N allows for @f`
      (e.g. recompute-all on a deep chain: its schedule is quadratic in the
      depth); for policy budget a
      warning, not an error: `the remat planner stopped on its work limit
      (plan-work-limit=N) for @f: cheaper plans and smaller budgets may be
      reachable with a larger limit` (the plan is valid and within budget;
      the bound is work, so the plan is the same on any machine)
    - `memplan-insert-remat cannot plan this function: node N: the output
      sizes up to here total more than 2^63-1 bytes` (or costs over 1e30)
    - dynamic shapes: `@f has dynamic shapes: a budget or remat policy
      applies at the bounds of its symbols, and B has none (...)`; with
      bounds, every buffer of dynamic shape is sized at the bounds, the
      arena check packs one static plan there, and the budget is a promise
      about the arena at the bounds (docs/Packing.md, "Symbolic sizes")
    and everything the lifetime analysis rejects. Internal errors (a
    schedule the function's op order cannot host — checked by dominance
    after the rewrite, never left as invalid IR) say so and name the op.
  }];
  let options = [
    Option<"bounds", "bounds", "std::string", /*default=*/"\"\"",
           "Dynamic shapes: bounds of symbols not bounded by memplan.bounds "
           "(B=64,S=1024); a budget applies at the bounds">,
    Option<"budget", "budget", "int64_t", /*default=*/"0",
           "Byte budget for the planned buffers of each function (0: none)">,
    Option<"policy", "policy", "::mlir::memplan::RematPolicyChoice",
           /*default=*/"::mlir::memplan::RematPolicyChoice::Auto",
           "keep-all, recompute-all, every-n, cost-threshold, sqrt, budget, "
           "chain, optimal or auto (the default: budget with a budget, "
           "keep-all without)", [{::mlir::memplan::rematPolicyValues()}]>,
    Option<"every", "every", "int64_t", /*default=*/"2",
           "every-n: keep every n-th forward buffer">,
    Option<"threshold", "threshold", "double", /*default=*/"0.0",
           "cost-threshold: keep forward buffers costing at least this">,
    Option<"exportGraph", "export-graph", "std::string", /*default=*/"\"\"",
           "Write each training function's remat graph (before planning) as "
           "networkx node-link JSON for memplan-remat to this file (with "
           "several such functions: <file>-<function>.json)">,
    Option<"milpTimeLimit", "milp-time-limit", "double", /*default=*/"60.0",
           "optimal: the MILP's time limit per solve, in seconds (a safety "
           "net: a solve it stops gets a warning, as its plan depends on the "
           "machine's speed)">,
    Option<"milpNodeLimit", "milp-node-limit", "int64_t",
           /*default=*/"100000",
           "optimal: the MILP's branch-and-bound nodes per solve (0: none); "
           "the bound that keeps the plan the same on any machine">,
    Option<"checkArena", "check-arena", "bool", /*default=*/"false",
           "Keep the budget for the packed arena: bufferize and pack a copy "
           "of the module, and re-plan with a tighter target while the arena "
           "overshoots (what --memplan-pipeline does)">,
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "check-arena: the packer's alignment">,
    Option<"algorithm", "algorithm", "::mlir::memplan::PackAlgorithm",
           /*default=*/"::mlir::memplan::PackAlgorithm::Best",
           "check-arena: the packer's algorithm",
           [{::mlir::memplan::packAlgorithmValues()}]>,
    Option<"workLimit", "work-limit", "uint64_t", /*default=*/"500000000",
           "check-arena: the packer's work bound (0: none)">,
    Option<"planWorkLimit", "plan-work-limit", "uint64_t",
           /*default=*/"4000000000",
           "The remat planner's work bound per function (units of "
           "Planning/Remat.h's RematWork; default 4e9, about 25 s; 0: none)">,
    Option<"timeLimit", "time-limit", "double", /*default=*/"0.0",
           "check-arena: the packer's wall-clock bound, in seconds (0: "
           "none)">,
    Option<"quiet", "quiet", "bool", /*default=*/"false",
           "check-arena: no progress lines (one per measured plan, at most "
           "one a second, printed to stderr only when it is a terminal)">,
  ];
  // As pack-arena's: printed only by an LLVM built with statistics.
  let statistics = [
    Statistic<"numRecomputed", "values-recomputed",
              "Saved values the plans recompute">,
    Statistic<"numKept", "values-kept", "Saved values the plans keep">,
    Statistic<"numMeasured", "plans-measured",
              "Plans measured on a bufferized, packed copy of the module">
  ];
  // check-arena bufferizes and packs a copy of the module.
  let dependentDialects = ["::mlir::memplan::MemplanDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect"];
}

def MaterializeRematPass : Pass<"memplan-materialize-remat"> {
  let summary = "Inline recompute regions and drop checkpoints";
  let description = [{
    Prepares a tensor-level function for bufferization: every
    `memplan.checkpoint` is replaced by its input (it only states a decision)
    and every `memplan.recompute` by a copy of its body placed where it
    stands, its block arguments replaced by its inputs and its results by the
    values it yields. The program computes the same values; recomputed ones
    are now ordinary ops whose buffers the lifetime analysis and the packer
    see. Rejects nothing.
  }];
}

def DropTransformScriptsPass
    : Pass<"memplan-drop-transform-scripts", "::mlir::ModuleOp"> {
  let summary = "Remove transform-dialect scripts from a payload module";
  let description = [{
    Transform scripts (`transform.named_sequence`, `transform.sequence`, ...)
    describe how to rewrite the payload; memplan does not interpret them.
    Apply them first (`--transform-interpreter`) when the program depends on
    them. This pass erases every top-level op of the `transform` dialect at
    any module nesting level, and the `transform.with_named_sequence` module
    attribute, each with a located warning:
    - `memplan drops the transform script '...': apply it first with
      --transform-interpreter if the program needs it`
    Rejects nothing; the payload is left unchanged.
  }];
}

def BufferizeModulesPass : Pass<"memplan-bufferize-modules",
                                "::mlir::ModuleOp"> {
  let summary = "One-shot-bufferize the module and every module nested in it";
  let description = [{
    Upstream `one-shot-bufferize` (across function boundaries, identity
    layouts: planned buffers are plain allocations the packer can place)
    handles the functions of the module it runs on, not those of modules
    nested in it. This pass runs it on every `builtin.module` in the
    operation, innermost first (a loop, not recursion), then on the
    operation itself, so that functions at every nesting level are
    bufferized, planned and lowered alike. The pipeline's bufferization
    stage (`buildBufferizeStage`), used by `memplan-pipeline` and by
    insert-remat's arena check.

    Rejects what one-shot-bufferize rejects, with its located errors.
  }];
}

def LowerTosaLeftoversPass : Pass<"memplan-lower-tosa-leftovers",
                                  "::mlir::ModuleOp"> {
  let summary = "Lower what upstream tosa-to-linalg leaves (tosa.apply_scale, "
                "tosa.const) to arith";
  let description = [{
    Upstream `tosa-to-linalg` keeps `tosa.apply_scale` (from `tosa.rescale`,
    in quantized programs) inside the `linalg.generic` bodies it emits, and
    may leave `tosa.const`; nothing after it lowers them. This pass applies
    upstream `tosa-to-arith`'s patterns (with the rescale ones, as
    `include-apply-rescale` does) to the TOSA ops of the module only, without
    folding or constant CSE: every other op stays as it is (upstream's pass,
    a dialect conversion, would also fold unrelated ops, such as a
    `tensor.insert` into a constant). Rejects nothing: a TOSA op the patterns
    do not handle is left for `memplan-verify-lowered` to report.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def LowerDynamicExpandShapePass
    : Pass<"memplan-lower-dynamic-expand-shape"> {
  let summary = "Rewrite memref.expand_shape ops that split one dimension "
                "into several dynamic ones as memref.reinterpret_cast";
  let description = [{
    Upstream `expand-strided-metadata` in LLVM 22 crashes on a
    `memref.expand_shape` whose reassociation group has more than one
    dynamic output dimension (llvm/llvm-project#186830, fixed after 22): it
    assumes one per group and passes a null size on. Such reshapes are what
    a dynamic batch and sequence give (`[B * S, D]` into `[B, S, H, E]`).
    This pass, which the lowering pipelines run before that pass, rewrites
    each one as `memref.extract_strided_metadata` of the source and a
    `memref.reinterpret_cast` of its base to the op's output sizes, with
    strides the source's stride times the sizes inner to it in the group:
    the same view. Other expand_shape ops are left to upstream.

    Rejections (located errors; the pass fails):
    - `memplan cannot lower this 'memref.expand_shape': its result layout
      has strides or an offset other than the source's give` (not produced
      by upstream's type inference)
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def LowerAssertsPass : Pass<"memplan-lower-asserts", "::mlir::ModuleOp"> {
  let summary = "Make each host cf.assert print its message on stderr before "
                "it aborts";
  let description = [{
    Upstream lowers `cf.assert` to `puts(message)` and `abort()`: the
    message goes to stdout, which the C library buffers when it is a file or
    a pipe, and `abort` does not flush it, so a program that fails an
    assertion (a bounded plan run above its bounds, a run-time verification
    check) dies with status 134 and no message in exactly the runs a user
    logs. This pass, which the lowering pipelines run before control flow
    is lowered, rewrites each `cf.assert` outside kernel code (`gpu.module`s
    and `gpu.launch` bodies keep upstream's lowering) into
    `scf.if (not %cond) { write(2, "<message>\n", n); abort() }`, with the
    message in a private constant global: the message reaches stderr
    unbuffered, then the program aborts as before. `write` and `abort`
    are declared (`llvm.func`) unless the module already declares them with
    the C signatures, as `func.func` or `llvm.func`; an assert in a nested
    `builtin.module` gets the declarations and global in that module.

    Rejections (located errors; the pass fails):
    - `cannot lower 'cf.assert': the module's 'write' (or 'abort') is not
      the C function` (a symbol of that name with another type)
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect"];
}

def LowerPackUnpackPass : Pass<"memplan-lower-pack-unpack"> {
  let summary = "Lower linalg.pack/unpack on tensors to pad, reshape, "
                "transpose and slice ops";
  let description = [{
    Upstream one-shot-bufferize does not bufferize `linalg.pack` and
    `linalg.unpack`. This pass rewrites each one on static-shaped tensors with
    upstream's `linalg::lowerPack` (`tensor.pad`, `tensor.expand_shape`,
    `linalg.transpose`) and `linalg::lowerUnPack` (`tensor.empty`,
    `linalg.transpose`, `tensor.collapse_shape`, `tensor.extract_slice`,
    `linalg.copy`), which the lifetime analysis and bufferization handle. It
    computes the same values.

    Rejections (located errors; the pass fails):
    - `memplan cannot lower this 'linalg.pack'` / `'linalg.unpack'` (upstream's
      lowering refused it, e.g. dynamic tiles or memref operands)
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def DoubleBufferPass : Pass<"memplan-double-buffer"> {
  let summary = "Give buffers carried across loop iterations (scf.for, "
                "loops of blocks) two alternating slots";
  let description = [{
    A buffer allocated in an `scf.for` body and yielded to the next iteration
    is still live (as the iteration argument) when the next iteration
    allocates it again, so one static slot cannot hold it: the lifetime
    analysis rejects such loop-carried allocations. This pass rewrites the
    common safe case into two alternating buffers, as double buffering does:
    the `memref.alloc` is replaced by `arith.select %odd, %b, %a` of two
    allocations hoisted before the loop, with `%odd` a new `i1` iteration
    argument (false on entry, flipped at each yield). Iteration k writes slot
    k mod 2 while it reads iteration k-1's buffer from the other slot.

    It applies to a `memref.alloc` of static shape directly in the loop's
    body block whose buffer (through views and casts) reaches only the
    yield, at one position i, and ops whose memory effects on it are reads
    and writes (or pure ops such as `memref.dim`): not a store of the memref
    as data, a free (`memref.dealloc`, `bufferization.dealloc`), a call, a
    region op or an op of unknown effects; and only when the buffer carried
    in at position i (the iteration argument, an older instance) is not
    yielded at another position and reaches only such ops either: then no instance older than
    the previous iteration's can be live, and two slots suffice. Other loops
    are left as they are (the lifetime analysis then explains why it cannot
    plan them). Works at memref level; tensor-level loops are untouched
    (one-shot-bufferize already refuses non-equivalent yields).

    Loops of blocks (a function body of several blocks, as scf-to-cf and a
    detensorized `scf.while` leave it) get the same rewrite: a
    `memref.alloc` of static shape in the function body whose buffer reaches
    only ops that read or write it (as above) and, once, the back edge to a
    loop header (a block that dominates the edge's source, with no other
    edge from inside the loop; every predecessor ends in a
    BranchOpInterface terminator), is replaced by `arith.select %odd, %b,
    %a` of two allocations hoisted to the entry block, with `%odd` a new
    `i1` argument of the header: false on every edge into the loop, flipped
    on the back edge. It applies only when the allocation runs once in every
    iteration (its block is dominated by the header, dominates the back
    edge's source and is on no cycle that avoids the header) and the
    instance carried in (the header argument) reaches only ops that read or
    write it (not a block, a return, a free, a call, a region op), and
    only when that instance (or a view of it) is still live where the new
    one is allocated: otherwise one slot serves every iteration and the
    loop is left as it is. The
    pipeline runs this pass a second time after bufferization, which is
    where such loops get their buffers.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def RemoveDeadWorkPass : Pass<"memplan-remove-dead-work"> {
  let summary = "Erase computations whose results nobody needs";
  let description = [{
    Erases, in the body of every function with a body, the ops whose results
    reach no function result and no side effect (upstream `runRegionDCE`:
    ops without memory effects or with only allocation effects on their own
    results, unused block arguments, dead cycles) — the weight gradient of a
    frozen layer, a gradient nobody returns. It runs before the lifetime
    analysis in `--memplan-pipeline`, so dead buffers never take arena space,
    and changes no value a function returns or writes. Ops with side effects
    (linalg ops on memrefs, stores, calls that may write) are kept. Rejects
    nothing.
  }];
}

#endif // MEMPLAN_TRANSFORMS_PASSES
