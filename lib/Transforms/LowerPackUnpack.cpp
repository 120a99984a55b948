//===- LowerPackUnpack.cpp - linalg.pack/unpack to bufferizable ops -------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace memplan {
#define GEN_PASS_DEF_LOWERPACKUNPACKPASS
#include "memplan/Transforms/Passes.h.inc"
} // namespace memplan
} // namespace mlir

using namespace mlir;
using namespace mlir::memplan;

namespace {
struct LowerPackUnpackPass
    : public memplan::impl::LowerPackUnpackPassBase<LowerPackUnpackPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<linalg::PackOp, linalg::UnPackOp>(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops) {
      rewriter.setInsertionPoint(op);
      bool lowered = false;
      // Upstream's lowering handles tensors of static shape.
      bool onStaticTensors = llvm::all_of(op->getOperandTypes(), [](Type t) {
        auto tensor = dyn_cast<RankedTensorType>(t);
        return !isa<ShapedType>(t) || (tensor && tensor.hasStaticShape());
      });
      if (onStaticTensors) {
        if (auto pack = dyn_cast<linalg::PackOp>(op))
          lowered = succeeded(linalg::lowerPack(rewriter, pack));
        else
          lowered = succeeded(
              linalg::lowerUnPack(rewriter, cast<linalg::UnPackOp>(op)));
      }
      if (!lowered) {
        op->emitError("memplan cannot lower this '")
            << op->getName()
            << "' (upstream's lowering needs static-shaped tensors)";
        return signalPassFailure();
      }
    }
  }
};
} // namespace
