//===- TestPrintLifetimes.cpp - Print the lifetime analysis ---------------===//
//
// Part of memplan. Test-only: prints what FunctionLifetimes computes, one
// line per root, then the peak, in a stable text format:
//
//   lifetimes of @f (N steps)
//     %name = <op name> @<step>: <size> B [start, end) <status>
//     %argN = argument: <size> B [start, end) argument
//   peak = <bytes> at step <s>
//
// With `cross-check`, also checks the analysis against upstream
// mlir::Liveness: wherever Liveness finds a tensor or memref value live at an
// op of the function body, every root the value may share storage with must
// be live at that op's step (an error otherwise), and prints
//
//   liveness cross-check: <n> live (op, value) pairs covered
//
// and against upstream BufferViewFlowAnalysis: every value a root's memref
// may flow into must share that root's storage (an error otherwise):
//
//   view-flow cross-check: <n> (root, alias) pairs covered; through
//   calls: <c> cleared by the callee, <e> escaping
//
// (a call's results may alias its operands for upstream; the analysis
// follows the callee, which keeps no reference to the operand (cleared) or
// may keep or return it, and then pack-arena leaves the buffer on the heap:
// escaping pairs are counted, not checked here, and values that flow on
// from a call's result are exempt too, even where they are also reached
// from the root directly; test/Transforms/pack-arena-calls.mlir checks
// that escaping buffers stay on the heap)
//
// where <status> is `planned`, `placed`, `returned` (caller-owned),
// `argument` or `external`.
//
//===----------------------------------------------------------------------===//

#include "memplan/Analysis/Lifetimes.h"
#include "memplan/Analysis/SymbolicSizes.h"
#include "memplan/IR/MemplanOps.h"

#include "mlir/Analysis/Liveness.h"
#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::memplan;

namespace {
static StringRef getStatus(const Root &root) {
  switch (root.kind) {
  case RootKind::Argument:
    return "argument";
  case RootKind::External:
    return "external";
  case RootKind::Placed:
  case RootKind::Allocated:
    if (root.returned)
      return "returned";
    return root.kind == RootKind::Placed ? "placed" : "planned";
  }
  llvm_unreachable("unknown root kind");
}

struct TestPrintLifetimesPass
    : public PassWrapper<TestPrintLifetimesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestPrintLifetimesPass)

  TestPrintLifetimesPass() = default;
  TestPrintLifetimesPass(const TestPrintLifetimesPass &other)
      : PassWrapper(other) {}

  StringRef getArgument() const final { return "test-memplan-print-lifetimes"; }
  StringRef getDescription() const final {
    return "Print the lifetime, size and status of every root, and the peak "
           "of planned bytes, of each function (test only)";
  }

  void runOnOperation() override {
    llvm::raw_ostream &os = llvm::outs();
    WalkResult walk = getOperation()->walk([&](FunctionOpInterface func) {
      if (func.isExternal())
        return WalkResult::advance();
      FailureOr<FunctionLifetimes> lifetimes =
          FunctionLifetimes::analyze(func, /*allowDynamicShapes=*/true);
      if (failed(lifetimes))
        return WalkResult::interrupt();
      FailureOr<SymbolicSizes> sizes = SymbolicSizes::create(func);
      if (failed(sizes))
        return WalkResult::interrupt();
      DataLayout layout = DataLayout::closest(func);
      AsmState state(func);
      os << "lifetimes of @" << func.getName() << " ("
         << lifetimes->getNumSteps() << " steps)\n";
      for (const Root &root : lifetimes->getRoots()) {
        os << "  ";
        root.value.printAsOperand(os, state);
        os << " = ";
        if (Operation *def = root.value.getDefiningOp())
          os << def->getName() << " @" << lifetimes->getStep(def);
        else
          os << "argument";
        os << ": ";
        if (!cast<ShapedType>(root.value.getType()).hasStaticShape()) {
          // The size over the function's symbols, or why there is none.
          auto shaped = cast<ShapedType>(root.value.getType());
          uint64_t element =
              getElementStorageBytes(shaped.getElementType(), layout)
                  .value_or(0);
          ScopedDiagnosticHandler quiet(func.getContext(),
                                        [](Diagnostic &) { return success(); });
          FailureOr<AffineExpr> bytes =
              sizes->getByteSize(root.value.getLoc(), root.value, element);
          os << (succeeded(bytes) ? sizes->print(*bytes) : "?") << " B [";
        } else {
          os << root.size << " B [";
        }
        os << root.live.start << ", " << root.live.end << ") "
           << getStatus(root) << "\n";
      }
      LowerBound peak = lifetimes->getPeak();
      os << "peak = " << peak.bytes << " at step " << peak.step;
      if (llvm::any_of(lifetimes->getRoots(), [](const Root &root) {
            return root.isPlanned() && root.dynamicSize;
          }))
        os << " (buffers of dynamic size not counted)";
      os << "\n";
      if (crossCheck && failed(checkAgainstLiveness(func, *lifetimes, state)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }

  LogicalResult checkAgainstLiveness(FunctionOpInterface func,
                                     const FunctionLifetimes &lifetimes,
                                     AsmState &state) {
    Liveness liveness(func.getOperation());
    int64_t covered = 0;
    for (Block &block : func.getFunctionBody()) {
      const LivenessBlockInfo *info = liveness.getLiveness(&block);
      for (Operation &op : block) {
        int64_t step = lifetimes.getStep(&op);
        for (Value value : info->currentlyLiveValues(&op)) {
          SmallVector<const Root *> roots = lifetimes.getRootsOf(value);
          // A value defined inside `op`'s regions must be live somewhere in
          // them; any other value at `op`'s own step.
          Operation *def = isa<BlockArgument>(value)
                               ? value.getParentRegion()->getParentOp()
                               : value.getDefiningOp();
          Interval at{step, step + 1};
          if (def != &op && op.isProperAncestor(def))
            at.end = lifetimes.getLastNestedStep(&op) + 1;
          for (const Root *root : roots) {
            if (root->live.overlaps(at))
              continue;
            std::string name;
            llvm::raw_string_ostream names(name);
            value.printAsOperand(names, state);
            return op.emitError("mlir::Liveness finds ")
                   << name << " live at step " << step
                   << ", outside the lifetime [" << root->live.start << ", "
                   << root->live.end << ") of a root it may share";
          }
          covered += !roots.empty();
        }
      }
    }
    llvm::outs() << "liveness cross-check: " << covered
                 << " live (op, value) pairs covered\n";
    return checkAgainstViewFlow(func, lifetimes, state);
  }

  /// Upstream's BufferViewFlowAnalysis: every value a root's memref may flow
  /// into (views, casts, region and block arguments, results) must share
  /// that root's storage in the analysis. With the Liveness check above,
  /// every use of every such value lies inside the root's lifetime.
  LogicalResult checkAgainstViewFlow(FunctionOpInterface func,
                                     const FunctionLifetimes &lifetimes,
                                     AsmState &state) {
    BufferViewFlowAnalysis flow(func.getOperation());
    int64_t covered = 0;
    int64_t cleared = 0, escaping = 0;
    for (const Root &root : lifetimes.getRoots()) {
      if (!isa<BaseMemRefType>(root.value.getType()))
        continue;
      BufferViewFlowAnalysis::ValueSetT aliases = flow.resolve(root.value);
      // What flows on from a call's results is the callee's business too.
      llvm::SmallPtrSet<Value, 16> afterCalls;
      for (Value alias : aliases)
        if (alias.getDefiningOp<CallOpInterface>())
          for (Value next : flow.resolve(alias))
            if (next != alias)
              afterCalls.insert(next);
      for (Value alias : aliases) {
        if (alias == root.value)
          continue;
        if (llvm::is_contained(lifetimes.getRootsOf(alias), &root)) {
          ++covered;
          continue;
        }
        // Upstream lets a call's results alias its operands. The analysis
        // follows the callee instead: either it keeps no reference to any
        // operand the root flows into (so cannot return one), or the buffer
        // escapes and pack-arena leaves it on the heap ("passed to @f,
        // which may keep or return it"); both are counted apart.
        if (auto call = alias.getDefiningOp<CallOpInterface>()) {
          bool keepsNone = llvm::all_of(
              llvm::enumerate(call.getArgOperands()), [&](auto indexed) {
                Value arg = indexed.value();
                return (arg != root.value && !aliases.contains(arg)) ||
                       calleeKeepsNoReference(call, indexed.index());
              });
          ++(keepsNone ? cleared : escaping);
          continue;
        }
        if (afterCalls.contains(alias))
          continue;
        std::string rootName, aliasName;
        llvm::raw_string_ostream rootOs(rootName), aliasOs(aliasName);
        root.value.printAsOperand(rootOs, state);
        alias.printAsOperand(aliasOs, state);
        return func.emitError("BufferViewFlowAnalysis finds ")
               << aliasName << " may alias " << rootName
               << ", which the lifetime analysis does not";
      }
    }
    llvm::outs() << "view-flow cross-check: " << covered
                 << " (root, alias) pairs covered; through calls: " << cleared
                 << " cleared by the callee, " << escaping << " escaping\n";
    return success();
  }

  Option<bool> crossCheck{
      *this, "cross-check",
      llvm::cl::desc(
          "Check every interval against upstream mlir::Liveness and every "
          "alias against BufferViewFlowAnalysis"),
      llvm::cl::init(false)};
};
} // namespace

namespace mlir {
namespace memplan {
void registerTestPrintLifetimesPass() {
  PassRegistration<TestPrintLifetimesPass>();
}
} // namespace memplan
} // namespace mlir
