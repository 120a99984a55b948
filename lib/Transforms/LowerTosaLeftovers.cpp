//===- LowerTosaLeftovers.cpp - What tosa-to-linalg leaves, to arith ------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Transforms/Passes.h"

#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

namespace mlir {
namespace memplan {
#define GEN_PASS_DEF_LOWERTOSALEFTOVERSPASS
#include "memplan/Transforms/Passes.h.inc"
} // namespace memplan
} // namespace mlir

using namespace mlir;
using namespace mlir::memplan;

namespace {
struct LowerTosaLeftoversPass
    : public memplan::impl::LowerTosaLeftoversPassBase<LowerTosaLeftoversPass> {
  void runOnOperation() override {
    bool hasTosa =
        getOperation()
            ->walk([](Operation *op) {
              return isa_and_present<tosa::TosaDialect>(op->getDialect())
                         ? WalkResult::interrupt()
                         : WalkResult::advance();
            })
            .wasInterrupted();
    if (!hasTosa) {
      markAllAnalysesPreserved();
      return;
    }
    OpPassManager pm(ModuleOp::getOperationName());
    TosaToArithPassOptions options;
    options.includeApplyRescale = true;
    pm.addPass(createTosaToArithPass(options));
    if (failed(runPipeline(pm, getOperation())))
      signalPassFailure();
  }
};
} // namespace
