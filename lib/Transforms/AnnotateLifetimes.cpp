//===- AnnotateLifetimes.cpp - Record lifetimes as attributes -------------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Analysis/Lifetimes.h"
#include "memplan/IR/MemplanOps.h"
#include "memplan/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

namespace mlir {
namespace memplan {
#define GEN_PASS_DEF_ANNOTATELIFETIMESPASS
#include "memplan/Transforms/Passes.h.inc"
} // namespace memplan
} // namespace mlir

using namespace mlir;
using namespace mlir::memplan;

namespace {
struct AnnotateLifetimesPass
    : public memplan::impl::AnnotateLifetimesPassBase<AnnotateLifetimesPass> {
  using Base::Base;

  void runOnOperation() override {
    WalkResult walk = getOperation()->walk([&](FunctionOpInterface func) {
      if (func.isExternal() || isHostFunction(func))
        return WalkResult::advance();
      FailureOr<std::optional<FunctionLifetimes>> lifetimes =
          analyzeForPlanning(func, strict, /*allowDynamicShapes=*/true);
      if (failed(lifetimes))
        return WalkResult::interrupt();
      if (*lifetimes)
        annotate(func, **lifetimes);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
  }

  static void annotate(FunctionOpInterface func,
                       const FunctionLifetimes &lifetimes) {

    MLIRContext *ctx = func.getContext();
    StringRef name = MemplanDialect::LifetimeAttrHelper::getNameStr();
    // Group the lifetimes of op results by op, so multi-result ops get one
    // array in result order.
    llvm::MapVector<Operation *, SmallVector<Attribute>> perOp;
    for (const Root &root : lifetimes.getRoots()) {
      // External storage (constants, call results, ...) is not planned; an
      // annotation on it would only be carried, stale, by later conversions.
      if (root.kind == RootKind::External)
        continue;
      auto attr = LifetimeAttr::get(ctx, root.live.start, root.live.end);
      if (auto arg = dyn_cast<BlockArgument>(root.value)) {
        func.setArgAttr(arg.getArgNumber(), name, attr);
        continue;
      }
      Operation *op = root.value.getDefiningOp();
      auto &entries = perOp[op];
      if (entries.empty())
        entries.assign(op->getNumResults(), UnitAttr::get(ctx));
      entries[cast<OpResult>(root.value).getResultNumber()] = attr;
    }
    for (auto &[op, entries] : perOp) {
      if (entries.size() == 1)
        op->setAttr(name, entries.front());
      else
        op->setAttr(name, ArrayAttr::get(ctx, entries));
    }
  }
};
} // namespace
