//===- DoubleBuffer.cpp - Two alternating slots for loop-carried buffers --===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//
//
// A buffer allocated in an scf.for body and yielded to the next iteration
// becomes two allocations hoisted before the loop, selected by the parity of
// the iteration (a new i1 iteration argument); likewise a buffer allocated
// in a loop of blocks and passed back to the loop's header (a new i1 header
// argument). The contract, and when the rewrite applies, is the pass
// description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "memplan/Transforms/Passes.h"

#include "mlir/Analysis/Liveness.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

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

/// Whether `user`'s memory effects on `value` are reads and writes of the
/// buffer, and there is at least one.
bool onlyAccesses(Operation *user, Value value) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(user);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> onValue;
  effects.getEffectsOnValue(value, onValue);
  return !onValue.empty() &&
         llvm::all_of(onValue, [](const MemoryEffects::EffectInstance &e) {
           return isa<MemoryEffects::Read, MemoryEffects::Write>(e.getEffect());
         });
}

/// Whether every use of `value` and of the views of it only reads or writes
/// the buffer, except uses by the terminator `yield` as its operand
/// `allowedYield` (when not negative), which `yieldUses` counts. A use that
/// frees the buffer, hands it to a call, forwards it into or out of a region
/// op or to a block, or makes a value of unknown aliasing from it keeps or
/// moves the buffer out of sight.
bool staysInIteration(Value value, Operation *yield, int64_t allowedYield,
                      int64_t &yieldUses) {
  SmallVector<Value> work{value};
  while (!work.empty()) {
    Value current = work.pop_back_val();
    for (OpOperand &use : current.getUses()) {
      Operation *user = use.getOwner();
      if (user == yield) {
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
      // Allowed, not merely not forbidden: an op that only reads or writes
      // the buffer through this operand, or a pure one (memref.dim). A
      // store of the memref itself as data, a free (bufferization.dealloc)
      // or an op of unknown effects could keep or release it.
      if (!onlyAccesses(user, current) && !isPure(user))
        return false;
    }
  }
  return true;
}

/// A buffer carried around a loop of blocks that two slots can hold: the
/// allocation, the header, and the back edge (the terminator of `latch` and
/// its operand that passes the buffer to header argument `argument`).
struct CarriedAcrossBlocks {
  memref::AllocOp alloc;
  Block *header = nullptr;
  Block *latch = nullptr;
  unsigned argument = 0;
};

/// Whether `block` can reach itself without passing through `header`.
bool inCycleAvoiding(Block *block, Block *header) {
  SmallVector<Block *> work(block->getSuccessors());
  llvm::SmallPtrSet<Block *, 16> seen;
  while (!work.empty()) {
    Block *next = work.pop_back_val();
    if (next == block)
      return true;
    if (next == header || !seen.insert(next).second)
      continue;
    llvm::append_range(work, next->getSuccessors());
  }
  return false;
}

/// Whether `value` or a view of it is live after `op`.
bool liveAt(Value value, Operation *op, Liveness &liveness) {
  SmallVector<Value> work{value};
  while (!work.empty()) {
    Value current = work.pop_back_val();
    if (!liveness.isDeadAfter(current, op))
      return true;
    for (Operation *user : current.getUsers())
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == current)
        llvm::append_range(work, user->getResults());
  }
  return false;
}

/// The first buffer of `region` (a function body of several blocks) that
/// the rewrite below applies to (Passes.td states when).
std::optional<CarriedAcrossBlocks>
findCarried(Region &region, DominanceInfo &dom, Liveness &liveness) {
  for (Block &latch : region) {
    auto branch = dyn_cast<BranchOpInterface>(latch.getTerminator());
    if (!branch)
      continue;
    for (unsigned succ = 0, e = branch->getNumSuccessors(); succ < e; ++succ) {
      Block *header = branch->getSuccessor(succ);
      // A back edge, and the header's only edge from inside the loop (its
      // other predecessors enter the loop).
      if (!dom.dominates(header, &latch))
        continue;
      unsigned backEdges = 0;
      bool branchesOnly = true;
      for (Block *pred : header->getPredecessors()) {
        branchesOnly &= isa<BranchOpInterface>(pred->getTerminator());
        if (dom.dominates(header, pred))
          ++backEdges;
      }
      if (!branchesOnly || backEdges != 1)
        continue;
      SuccessorOperands operands = branch.getSuccessorOperands(succ);
      for (unsigned i = 0, n = operands.getForwardedOperands().size(); i < n;
           ++i) {
        Value carried = operands.getForwardedOperands()[i];
        if (!isa<MemRefType>(carried.getType()))
          continue;
        memref::AllocOp alloc = getAllocatedRoot(carried);
        if (!alloc || !alloc.getType().hasStaticShape() ||
            !alloc.getSymbolOperands().empty())
          continue;
        // Allocated once in every iteration: inside the loop, on every path
        // to the back edge, and not in an inner loop that avoids the header.
        Block *block = alloc->getBlock();
        if (block->getParent() != &region || !dom.dominates(header, block) ||
            !dom.dominates(block, &latch) || inCycleAvoiding(block, header))
          continue;
        int64_t uses = 0;
        unsigned position = operands.getOperandIndex(i);
        if (!staysInIteration(alloc.getResult(), branch, position, uses) ||
            uses != 1)
          continue;
        // The instance carried in is not passed on, freed or kept.
        unsigned argument = operands.getProducedOperandCount() + i;
        BlockArgument in = header->getArgument(argument);
        int64_t carriedUses = 0;
        if (!staysInIteration(in, nullptr, -1, carriedUses))
          continue;
        // Needed only while the instance carried in (or a view of it) is
        // still live where the new one is allocated: otherwise one slot
        // serves every iteration (the lifetime analysis accepts it).
        if (!liveAt(in, alloc, liveness))
          continue;
        return CarriedAcrossBlocks{alloc, header, &latch, argument};
      }
    }
  }
  return std::nullopt;
}

/// Two slots for `carried`, hoisted to the entry block; the header gets an
/// i1 argument, false on every edge into the loop and flipped on the back
/// edge, that selects the slot.
void rewriteAcrossBlocks(IRRewriter &rewriter, Region &region,
                         const CarriedAcrossBlocks &carried) {
  memref::AllocOp alloc = carried.alloc;
  rewriter.setInsertionPointToStart(&region.front());
  auto even = cast<memref::AllocOp>(rewriter.clone(*alloc));
  auto odd = cast<memref::AllocOp>(rewriter.clone(*alloc));
  Location loc = alloc.getLoc();
  BlockArgument parity = carried.header->addArgument(rewriter.getI1Type(), loc);
  for (Block *pred : SetVector<Block *>(carried.header->pred_begin(),
                                        carried.header->pred_end())) {
    auto branch = cast<BranchOpInterface>(pred->getTerminator());
    rewriter.setInsertionPoint(branch);
    for (unsigned succ = 0, e = branch->getNumSuccessors(); succ < e; ++succ) {
      if (branch->getSuccessor(succ) != carried.header)
        continue;
      Value next;
      if (pred == carried.latch) {
        Value one = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
        next = arith::XOrIOp::create(rewriter, loc, parity, one);
      } else {
        next = arith::ConstantIntOp::create(rewriter, loc, 0, 1);
      }
      branch.getSuccessorOperands(succ).append(next);
    }
  }
  rewriter.setInsertionPoint(alloc);
  Value chosen = arith::SelectOp::create(rewriter, loc, parity, odd.getResult(),
                                         even.getResult());
  rewriter.replaceOp(alloc, chosen);
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
    // Loops of blocks, one carried buffer at a time (each rewrite removes
    // one allocation from a loop, so this ends).
    SmallVector<FunctionOpInterface> funcs;
    getOperation()->walk([&](FunctionOpInterface f) { funcs.push_back(f); });
    for (FunctionOpInterface func : funcs) {
      if (func.isExternal() || func.getFunctionBody().hasOneBlock())
        continue;
      Region &body = func.getFunctionBody();
      for (;;) {
        DominanceInfo dom(func);
        Liveness liveness(func);
        std::optional<CarriedAcrossBlocks> carried =
            findCarried(body, dom, liveness);
        if (!carried)
          break;
        rewriteAcrossBlocks(rewriter, body, *carried);
      }
    }
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
