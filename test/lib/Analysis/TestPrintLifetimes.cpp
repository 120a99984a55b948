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
// where <status> is `planned`, `placed`, `returned` (caller-owned),
// `argument` or `external`.
//
//===----------------------------------------------------------------------===//

#include "memplan/Analysis/Lifetimes.h"

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
      FailureOr<FunctionLifetimes> lifetimes = FunctionLifetimes::analyze(func);
      if (failed(lifetimes))
        return WalkResult::interrupt();
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
        os << ": " << root.size << " B [" << root.live.start << ", "
           << root.live.end << ") " << getStatus(root) << "\n";
      }
      LowerBound peak = lifetimes->getPeak();
      os << "peak = " << peak.bytes << " at step " << peak.step << "\n";
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace

namespace mlir {
namespace memplan {
void registerTestPrintLifetimesPass() {
  PassRegistration<TestPrintLifetimesPass>();
}
} // namespace memplan
} // namespace mlir
