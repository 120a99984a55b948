//===- GPUMapLoops.cpp - linalg to GPU-mapped parallel loops --------------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//
//
// Device functions: each linalg op becomes one 1-D grid of threads, one
// thread per point of its parallel loops (reductions run inside the thread).
// Host functions: linalg ops become sequential loops.
//
//===----------------------------------------------------------------------===//

#include "memplan/Conversion/Passes.h"
#include "memplan/IR/MemplanDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace memplan {
#define GEN_PASS_DEF_GPUMAPLOOPSPASS
#include "memplan/Conversion/Passes.h.inc"
} // namespace memplan
} // namespace mlir

using namespace mlir;
using namespace mlir::memplan;

namespace {
/// True when every parallel loop of `op` comes before its first reduction.
bool parallelLoopsFirst(linalg::LinalgOp op) {
  bool seenReduction = false;
  for (utils::IteratorType it : op.getIteratorTypesArray()) {
    if (it != utils::IteratorType::parallel)
      seenReduction = true;
    else if (seenReduction)
      return false;
  }
  return true;
}

bool hasParallelLoop(linalg::LinalgOp op) {
  return llvm::any_of(op.getIteratorTypesArray(), [](utils::IteratorType it) {
    return it == utils::IteratorType::parallel;
  });
}

/// Rewrites `loop` (no results) into an `scf.for` nest, outermost dimension
/// first.
void parallelToFor(scf::ParallelOp loop) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  SmallVector<Value> ivs;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    auto f = scf::ForOp::create(b, loc, lb, ub, step);
    ivs.push_back(f.getInductionVar());
    b.setInsertionPoint(f.getBody()->getTerminator());
  }
  IRMapping map;
  map.map(loop.getInductionVars(), ivs);
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, map);
  loop.erase();
}

struct GPUMapLoopsPass
    : public memplan::impl::GPUMapLoopsPassBase<GPUMapLoopsPass> {
  using GPUMapLoopsPassBase::GPUMapLoopsPassBase;

  void runOnOperation() override {
    if (blockSize < 1 || blockSize > 1024) {
      getOperation().emitError("block-size must be between 1 and 1024, got ")
          << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      LogicalResult result =
          isHostFunction(func) ? lowerHost(func) : lowerDevice(func);
      if (failed(result))
        return signalPassFailure();
    }
  }

  static SmallVector<linalg::LinalgOp> linalgOps(func::FuncOp func) {
    SmallVector<linalg::LinalgOp> ops;
    func.walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    return ops;
  }

  static LogicalResult requireBuffers(linalg::LinalgOp op) {
    if (op.hasPureBufferSemantics())
      return success();
    return op.emitError(
        "linalg op on tensors: bufferize before memplan-gpu-map-loops");
  }

  LogicalResult lowerHost(func::FuncOp func) {
    IRRewriter rewriter(func.getContext());
    for (linalg::LinalgOp op : linalgOps(func)) {
      if (failed(requireBuffers(op)))
        return failure();
      rewriter.setInsertionPoint(op);
      if (failed(linalg::linalgOpToLoops(rewriter, op)))
        return op.emitError("cannot lower this linalg op to loops");
      rewriter.eraseOp(op);
    }
    return success();
  }

  LogicalResult lowerDevice(func::FuncOp func) {
    MLIRContext *ctx = func.getContext();
    IRRewriter rewriter(ctx);
    SmallVector<memref::CopyOp> copies;
    func.walk([&](memref::CopyOp op) { copies.push_back(op); });
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }
    for (linalg::LinalgOp op : linalgOps(func)) {
      if (failed(requireBuffers(op)))
        return failure();
      if (!parallelLoopsFirst(op)) {
        rewriter.setInsertionPoint(op);
        auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
        if (!generic) {
          FailureOr<linalg::GenericOp> g =
              linalg::generalizeNamedOp(rewriter, op);
          if (failed(g))
            return op.emitError("cannot generalize this linalg op");
          generic = *g;
        }
        SmallVector<unsigned> order;
        auto iters = generic.getIteratorTypesArray();
        for (unsigned i = 0; i < iters.size(); ++i)
          if (iters[i] == utils::IteratorType::parallel)
            order.push_back(i);
        for (unsigned i = 0; i < iters.size(); ++i)
          if (iters[i] != utils::IteratorType::parallel)
            order.push_back(i);
        FailureOr<linalg::GenericOp> swapped =
            linalg::interchangeGenericOp(rewriter, generic, order);
        if (failed(swapped))
          return generic.emitError("cannot interchange the loops of this op");
        op = cast<linalg::LinalgOp>(swapped->getOperation());
      }
      rewriter.setInsertionPoint(op);
      if (!hasParallelLoop(op)) {
        // One thread: a one-iteration parallel loop around the op.
        Location loc = op.getLoc();
        Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
        Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
        auto single = scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                              ValueRange{one}, ValueRange{one});
        op->moveBefore(single.getBody()->getTerminator());
        rewriter.setInsertionPoint(op);
      }
      if (failed(linalg::linalgOpToParallelLoops(rewriter, op)))
        return op.emitError("cannot lower this linalg op to parallel loops");
      rewriter.eraseOp(op);
    }

    // Memory is touched only by kernels-to-be, gpu ops and calls.
    WalkResult walk =
        func.walk<WalkOrder::PreOrder>([&](Operation *op) {
          if (isa<scf::ParallelOp>(op))
            return WalkResult::skip();
          if (isa<gpu::GPUDialect>(op->getDialect()))
            return WalkResult::skip();
          auto effects = dyn_cast<MemoryEffectOpInterface>(op);
          if (!effects)
            return WalkResult::advance();
          SmallVector<MemoryEffects::EffectInstance> list;
          effects.getEffects(list);
          for (const MemoryEffects::EffectInstance &e : list) {
            if (!isa<MemoryEffects::Read, MemoryEffects::Write>(e.getEffect()))
              continue;
            Value v = e.getValue();
            if (!v || !isa<BaseMemRefType>(v.getType()))
              continue;
            op->emitError("'")
                << op->getName()
                << "' reads or writes memory on the host in a device function: "
                   "kernels own the device memory; move this into a linalg op "
                   "or a host function";
            return WalkResult::interrupt();
          }
          return WalkResult::advance();
        });
    if (walk.wasInterrupted())
      return failure();

    SmallVector<scf::ParallelOp> outermost;
    func.walk<WalkOrder::PreOrder>([&](scf::ParallelOp loop) {
      outermost.push_back(loop);
      return WalkResult::skip();
    });
    for (scf::ParallelOp loop : outermost)
      if (failed(mapLoop(loop)))
        return failure();
    return success();
  }

  LogicalResult mapLoop(scf::ParallelOp loop) {
    // Nested parallel loops run sequentially inside the thread, innermost
    // first so each rewrite sees a loop without nested parallel loops.
    SmallVector<scf::ParallelOp> nested;
    loop.getBody()->walk<WalkOrder::PostOrder>(
        [&](scf::ParallelOp inner) { nested.push_back(inner); });
    for (scf::ParallelOp inner : nested) {
      if (inner.getNumResults() != 0)
        return inner.emitError(
            "scf.parallel with reductions in a device function is not "
            "supported");
      parallelToFor(inner);
    }
    if (loop.getNumResults() != 0)
      return loop.emitError("scf.parallel with reductions in a device "
                            "function is not supported");

    // Static trip counts (kDynamic where the upper bound is not a constant)
    // and their product.
    SmallVector<int64_t> lbs, steps, trips;
    uint64_t total = 1;
    bool dynamic = false;
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    auto idx = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    for (auto [lb, ub, step] : llvm::zip(
             loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      std::optional<int64_t> l = getConstantIntValue(lb);
      std::optional<int64_t> u = getConstantIntValue(ub);
      std::optional<int64_t> s = getConstantIntValue(step);
      if (!l || !s || *s <= 0)
        return loop.emitError("scf.parallel with a non-constant lower bound "
                              "or step in a device function: memplan's "
                              "device lowering needs them constant (a "
                              "positive step)");
      lbs.push_back(*l);
      steps.push_back(*s);
      if (!u) {
        dynamic = true;
        trips.push_back(ShapedType::kDynamic);
        continue;
      }
      int64_t trip = *u <= *l ? 0 : int64_t(llvm::divideCeil(*u - *l, *s));
      trips.push_back(trip);
      bool overflow = false;
      total = llvm::SaturatingMultiply(total, uint64_t(trip), &overflow);
      if (overflow || total > uint64_t(INT64_MAX))
        return loop.emitError(
            "the iteration space of this loop has more than 2^63 points");
    }
    if (total == 0) {
      loop.erase();
      return success();
    }
    // Run-time trip counts: max(0, ceil((ub - lb) / step)) each, the
    // product of all (the number of threads needed), and the blocks of
    // `blockSize` threads that cover them, at least one (CUDA refuses a
    // grid of 0 blocks; with no point, every thread's bound check fails).
    // No scf.if around the launch: gpu-async-region would give it a stream
    // of its own and a host synchronization. The loops of a linalg op over
    // buffers range over dimensions of those buffers, so the product is at
    // most the elements of a buffer that exists and cannot overflow; a grid
    // of more than 2^31-1 blocks fails at launch (docs/GPU.md).
    // The run-time trip counts (null where static) and the number of points.
    SmallVector<Value> runTrips(trips.size());
    Value runTotal;
    if (dynamic) {
      for (auto [d, ub] : llvm::enumerate(loop.getUpperBound())) {
        if (!ShapedType::isDynamic(trips[d]))
          continue;
        Value span = arith::SubIOp::create(b, loc, ub, idx(lbs[d]));
        Value positive = arith::MaxSIOp::create(b, loc, span, idx(0));
        runTrips[d] = steps[d] == 1 ? positive
                                    : Value(arith::CeilDivUIOp::create(
                                          b, loc, positive, idx(steps[d])));
      }
      runTotal = idx(int64_t(total));
      for (Value trip : runTrips)
        if (trip)
          runTotal = arith::MulIOp::create(b, loc, runTotal, trip);
    }
    int64_t threads =
        dynamic ? blockSize : std::min<int64_t>(blockSize, int64_t(total));
    int64_t blocks = int64_t(llvm::divideCeil(total, uint64_t(threads)));
    if (!dynamic && blocks > int64_t(INT32_MAX))
      return loop.emitError("the iteration space of this loop needs more "
                            "than 2^31-1 GPU blocks of ")
             << threads << " threads";

    Value zero = idx(0), one = idx(1);
    Value gridSize =
        dynamic
            ? Value(arith::MaxUIOp::create(
                  b, loc,
                  arith::CeilDivUIOp::create(b, loc, runTotal, idx(threads)),
                  one))
            : idx(blocks);
    auto grid = scf::ParallelOp::create(b, loc, ValueRange{zero},
                                        ValueRange{gridSize}, ValueRange{one});
    b.setInsertionPoint(grid.getBody()->getTerminator());
    auto block =
        scf::ParallelOp::create(b, loc, ValueRange{idx(0)},
                                ValueRange{idx(threads)}, ValueRange{idx(1)});
    b.setInsertionPoint(block.getBody()->getTerminator());
    Value linear = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, grid.getInductionVars()[0], idx(threads)),
        block.getInductionVars()[0]);
    if (dynamic || total % uint64_t(threads) != 0) {
      Value inside =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, linear,
                                dynamic ? runTotal : idx(int64_t(total)));
      auto guard = scf::IfOp::create(b, loc, inside, /*withElse=*/false);
      b.setInsertionPoint(guard.thenBlock()->getTerminator());
    }
    // Row-major digits: the last dimension varies fastest.
    SmallVector<Value> ivs(trips.size());
    Value rest = linear;
    for (int d = int(trips.size()) - 1; d >= 0; --d) {
      Value digit = rest;
      if (d > 0) {
        Value trip = runTrips[d] ? runTrips[d] : idx(trips[d]);
        digit = arith::RemUIOp::create(b, loc, rest, trip);
        rest = arith::DivUIOp::create(b, loc, rest, trip);
      }
      Value iv = digit;
      if (steps[d] != 1)
        iv = arith::MulIOp::create(b, loc, iv, idx(steps[d]));
      if (lbs[d] != 0)
        iv = arith::AddIOp::create(b, loc, iv, idx(lbs[d]));
      ivs[d] = iv;
    }
    IRMapping map;
    map.map(loop.getInductionVars(), ivs);
    for (Operation &op : loop.getBody()->without_terminator())
      b.clone(op, map);
    MLIRContext *ctx = loop.getContext();
    loop.erase();

    AffineMap id = b.getDimIdentityMap();
    auto dim = [&](gpu::Processor p) {
      return gpu::ParallelLoopDimMappingAttr::get(ctx, p, id, id);
    };
    if (failed(gpu::setMappingAttr(grid, {dim(gpu::Processor::BlockX)})) ||
        failed(gpu::setMappingAttr(block, {dim(gpu::Processor::ThreadX)})))
      return grid.emitError("internal error: invalid GPU mapping");
    return success();
  }
};
} // namespace
