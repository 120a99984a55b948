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
          isUnplannedFunction(func) || succeeded(verifyFunction(func)))
        return WalkResult::advance();
      return WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
    markAllAnalysesPreserved();
  }

  static LogicalResult verifyFunction(FunctionOpInterface func) {
    // At most one arena per memory space.
    SmallVector<ArenaOp> arenas;
    DenseMap<Attribute, ArenaOp> arenaOfSpace;
    WalkResult walk = func.walk([&](ArenaOp op) {
      auto [it, inserted] =
          arenaOfSpace.try_emplace(op.getType().getMemorySpace(), op);
      if (!inserted) {
        InFlightDiagnostic diag =
            op.emitError("second memplan.arena in the same memory space; "
                         "memplan plans one per function and memory space");
        diag.attachNote(it->second.getLoc()) << "the first one";
        return WalkResult::interrupt();
      }
      arenas.push_back(op);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    if (auto budget = func->getAttrOfType<IntegerAttr>(
            MemplanDialect::getBudgetAttrName()))
      for (ArenaOp arena : arenas)
        if (arena.getSizeInBytes() > budget.getInt())
          return arena.emitError("arena of ")
                 << arena.getSizeInBytes() << " bytes exceeds the budget of "
                 << budget.getInt() << " bytes";
    FailureOr<FunctionLifetimes> lifetimes = FunctionLifetimes::analyze(func);
    if (failed(lifetimes))
      return failure();

    // The views of each arena, checked against each other.
    struct Placed {
      std::vector<PackItem> items;
      std::vector<uint64_t> offsets;
      SmallVector<ViewOp> views;
    };
    SmallVector<Placed> placed(arenas.size());
    for (const Root &root : lifetimes->getRoots()) {
      auto view = root.value.getDefiningOp<ViewOp>();
      if (!view)
        continue;
      auto *arena = llvm::find_if(
          arenas, [&](ArenaOp a) { return view.getArena() == a.getResult(); });
      if (arena == arenas.end())
        return view.emitError(
            "view does not take one of its function's memplan.arenas");
      if (root.returned)
        return view.emitError("view escapes its function: a buffer in the "
                              "arena is returned");
      PlacementAttr placement = view.getPlacement();
      uint64_t offset = placement.getOffset(), size = placement.getSize();
      uint64_t arenaBytes = arena->getSizeInBytes();
      if (offset + size > arenaBytes)
        return view.emitError("view [")
               << offset << ", " << offset + size << ") ends past its arena of "
               << arenaBytes << " bytes";
      Placed &group = placed[arena - arenas.begin()];
      group.items.push_back(
          {root.live, size, static_cast<uint64_t>(placement.getAlignment())});
      group.offsets.push_back(offset);
      group.views.push_back(view);
    }
    for (Placed &group : placed) {
      auto clash = findPackingClash(group.items, group.offsets);
      if (!clash)
        continue;
      auto [first, second] = *clash;
      const auto &items = group.items;
      const auto &offsets = group.offsets;
      InFlightDiagnostic diag =
          group.views[second].emitError(
              "buffers overlap in time and share bytes: [")
          << offsets[second] << ", " << offsets[second] + items[second].size
          << ") live on [" << items[second].live.start << ", "
          << items[second].live.end << ")";
      diag.attachNote(group.views[first].getLoc())
          << "clashes with this buffer: [" << offsets[first] << ", "
          << offsets[first] + items[first].size << ") live on ["
          << items[first].live.start << ", " << items[first].live.end << ")";
      return diag;
    }
    return success();
  }
};
} // namespace
