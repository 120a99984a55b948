//===- DoubleBuffer.cpp - Two alternating slots for loop-carried buffers --===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//
//
// A buffer allocated in an scf.for body and yielded to the next iteration
// becomes two allocations hoisted before the loop, selected by the parity of
// the iteration (a new i1 iteration argument). The contract, and when the
// rewrite applies, is the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "memplan/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir {
namespace memplan {
#define GEN_PASS_DEF_DOUBLEBUFFERPASS
#include "memplan/Transforms/Passes.h.inc"
} // namespace memplan
} // namespace mlir

using namespace mlir;
using namespace mlir::memplan;

namespace {
/// The memref.alloc that `value` views (through view-like ops), if any.
memref::AllocOp getAllocatedRoot(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto alloc = dyn_cast<memref::AllocOp>(def))
      return alloc;
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      return nullptr;
    value = view.getViewSource();
  }
  return nullptr;
}

/// Whether every use of `value` and of the views of it only reads or writes
/// the buffer, except uses by `yield` at position `allowedYield` (when not
/// negative), which `yieldUses` counts. A use that frees the buffer, hands it
/// to a call, forwards it into or out of a region op, or makes a value of
/// unknown aliasing from it keeps or moves the buffer out of sight.
bool staysInIteration(Value value, scf::YieldOp yield, int64_t allowedYield,
                      int64_t &yieldUses) {
  SmallVector<Value> work{value};
  while (!work.empty()) {
    Value current = work.pop_back_val();
    for (OpOperand &use : current.getUses()) {
      Operation *user = use.getOwner();
      if (user == yield.getOperation()) {
        if (int64_t(use.getOperandNumber()) != allowedYield)
          return false;
        ++yieldUses;
        continue;
      }
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == current) {
        llvm::append_range(work, user->getResults());
        continue;
      }
      if (isa<memref::DeallocOp, CallOpInterface, RegionBranchOpInterface>(
              user) ||
          user->hasTrait<OpTrait::IsTerminator>())
        return false;
      if (llvm::any_of(user->getResultTypes(), [](Type type) {
            return isa<BaseMemRefType, TensorType>(type);
          }))
        return false;
    }
  }
  return true;
}

struct DoubleBufferPass
    : public memplan::impl::DoubleBufferPassBase<DoubleBufferPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops)
      if (failed(rewrite(rewriter, loop)))
        return signalPassFailure();
  }

  static LogicalResult rewrite(IRRewriter &rewriter, scf::ForOp loop) {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    SmallVector<memref::AllocOp> carried;
    for (auto [position, yielded] : llvm::enumerate(yield.getOperands())) {
      if (!isa<MemRefType>(yielded.getType()))
        continue;
      memref::AllocOp alloc = getAllocatedRoot(yielded);
      if (!alloc || alloc->getBlock() != loop.getBody() ||
          !alloc.getType().hasStaticShape() ||
          !alloc.getSymbolOperands().empty() ||
          llvm::is_contained(carried, alloc))
        continue;
      int64_t yieldUses = 0;
      if (!staysInIteration(alloc.getResult(), yield, position, yieldUses) ||
          yieldUses != 1)
        continue;
      int64_t carriedUses = 0;
      if (!staysInIteration(loop.getRegionIterArgs()[position], yield,
                            /*allowedYield=*/-1, carriedUses))
        continue;
      carried.push_back(alloc);
    }
    if (carried.empty())
      return success();

    // Two slots per carried buffer, before the loop.
    rewriter.setInsertionPoint(loop);
    SmallVector<std::pair<Value, Value>> slots;
    for (memref::AllocOp alloc : carried) {
      auto even = cast<memref::AllocOp>(rewriter.clone(*alloc));
      auto odd = cast<memref::AllocOp>(rewriter.clone(*alloc));
      slots.push_back({even.getResult(), odd.getResult()});
    }
    // The parity of the iteration: false in the first, flipped at each
    // yield.
    Location loc = loop.getLoc();
    Value first = arith::ConstantIntOp::create(rewriter, loc, 0, 1);
    FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
        rewriter, ValueRange{first},
        /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &b, Location yieldLoc, ArrayRef<BlockArgument> args) {
          Value one = arith::ConstantIntOp::create(b, yieldLoc, 1, 1);
          Value next = arith::XOrIOp::create(b, yieldLoc, args.front(), one);
          return SmallVector<Value>{next};
        });
    if (failed(replaced))
      return loop.emitError("memplan cannot add an iteration argument to "
                            "this loop");
    auto newLoop = cast<scf::ForOp>(replaced->getOperation());
    Value odd = newLoop.getRegionIterArgs().back();
    for (auto [alloc, slot] : llvm::zip(carried, slots)) {
      rewriter.setInsertionPoint(alloc);
      Value chosen = arith::SelectOp::create(rewriter, alloc.getLoc(), odd,
                                             slot.second, slot.first);
      rewriter.replaceOp(alloc, chosen);
    }
    return success();
  }
};
} // namespace
