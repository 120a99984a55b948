//===- VerifyPlan.cpp - Check a packed plan independently -----------------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Analysis/Lifetimes.h"
#include "memplan/IR/MemplanOps.h"
#include "memplan/Planning/Packing.h"
#include "memplan/Transforms/Passes.h"

namespace mlir {
namespace memplan {
#define GEN_PASS_DEF_VERIFYPLANPASS
#include "memplan/Transforms/Passes.h.inc"
} // namespace memplan
} // namespace mlir

using namespace mlir;
using namespace mlir::memplan;

namespace {
struct VerifyPlanPass
    : public memplan::impl::VerifyPlanPassBase<VerifyPlanPass> {
  void runOnOperation() override {
    WalkResult walk = getOperation()->walk([&](FunctionOpInterface func) {
      if (func.isExternal() || isHostFunction(func) ||
          succeeded(verifyFunction(func)))
        return WalkResult::advance();
      return WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
    markAllAnalysesPreserved();
  }

  static LogicalResult verifyFunction(FunctionOpInterface func) {
    SmallVector<ArenaOp> arenas;
    func.walk([&](ArenaOp op) { arenas.push_back(op); });
    if (arenas.size() > 1)
      return func.emitError("function has ")
             << arenas.size() << " arenas; memplan plans one per function";
    if (auto budget = func->getAttrOfType<IntegerAttr>(
            MemplanDialect::getBudgetAttrName());
        budget && !arenas.empty() &&
        arenas.front().getSizeInBytes() > budget.getInt())
      return arenas.front().emitError("arena of ")
             << arenas.front().getSizeInBytes()
             << " bytes exceeds the budget of " << budget.getInt() << " bytes";
    FailureOr<FunctionLifetimes> lifetimes = FunctionLifetimes::analyze(func);
    if (failed(lifetimes))
      return failure();

    std::vector<PackItem> items;
    std::vector<uint64_t> offsets;
    SmallVector<ViewOp> views;
    for (const Root &root : lifetimes->getRoots()) {
      auto view = root.value.getDefiningOp<ViewOp>();
      if (!view)
        continue;
      if (arenas.empty() || view.getArena() != arenas.front().getResult())
        return view.emitError(
            "view does not take its function's memplan.arena");
      if (root.returned)
        return view.emitError("view escapes its function: a buffer in the "
                              "arena is returned");
      PlacementAttr placement = view.getPlacement();
      uint64_t offset = placement.getOffset(), size = placement.getSize();
      uint64_t arenaBytes = arenas.front().getSizeInBytes();
      if (offset + size > arenaBytes)
        return view.emitError("view [")
               << offset << ", " << offset + size << ") ends past its arena of "
               << arenaBytes << " bytes";
      items.push_back(
          {root.live, size, static_cast<uint64_t>(placement.getAlignment())});
      offsets.push_back(offset);
      views.push_back(view);
    }
    if (auto clash = findPackingClash(items, offsets)) {
      auto [first, second] = *clash;
      InFlightDiagnostic diag =
          views[second].emitError("buffers overlap in time and share bytes: [")
          << offsets[second] << ", " << offsets[second] + items[second].size
          << ") live on [" << items[second].live.start << ", "
          << items[second].live.end << ")";
      diag.attachNote(views[first].getLoc())
          << "clashes with this buffer: [" << offsets[first] << ", "
          << offsets[first] + items[first].size << ") live on ["
          << items[first].live.start << ", " << items[first].live.end << ")";
      return diag;
    }
    return success();
  }
};
} // namespace
