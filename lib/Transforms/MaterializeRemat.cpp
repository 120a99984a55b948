//===- MaterializeRemat.cpp - Inline recompute regions --------------------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/IR/MemplanOps.h"
#include "memplan/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir {
namespace memplan {
#define GEN_PASS_DEF_MATERIALIZEREMATPASS
#include "memplan/Transforms/Passes.h.inc"
} // namespace memplan
} // namespace mlir

using namespace mlir;
using namespace mlir::memplan;

namespace {
struct MaterializeRematPass
    : public memplan::impl::MaterializeRematPassBase<MaterializeRematPass> {
  void runOnOperation() override {
    SmallVector<CheckpointOp> checkpoints;
    SmallVector<RecomputeOp> recomputes;
    getOperation()->walk([&](Operation *op) {
      if (auto c = dyn_cast<CheckpointOp>(op))
        checkpoints.push_back(c);
      else if (auto r = dyn_cast<RecomputeOp>(op))
        recomputes.push_back(r);
    });
    for (CheckpointOp c : checkpoints) {
      c.getResult().replaceAllUsesWith(c.getInput());
      c.erase();
    }
    // Outer regions first (walk is post-order): inline innermost last.
    for (RecomputeOp r : llvm::reverse(recomputes)) {
      OpBuilder b(r);
      IRMapping mapping;
      Block &body = r.getBody().front();
      for (auto [arg, input] : llvm::zip(body.getArguments(), r.getInputs()))
        mapping.map(arg, input);
      for (Operation &op : body.without_terminator())
        b.clone(op, mapping);
      auto yield = cast<YieldOp>(body.getTerminator());
      for (auto [result, value] : llvm::zip(r.getResults(), yield.getValues()))
        result.replaceAllUsesWith(mapping.lookupOrDefault(value));
      r.erase();
    }
  }
};
} // namespace
