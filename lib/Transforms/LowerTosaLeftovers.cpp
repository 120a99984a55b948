//===- LowerTosaLeftovers.cpp - What tosa-to-linalg leaves, to arith ------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Transforms/Passes.h"

#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

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
    SmallVector<Operation *> tosaOps;
    getOperation()->walk([&](Operation *op) {
      if (isa_and_present<tosa::TosaDialect>(op->getDialect()))
        tosaOps.push_back(op);
    });
    if (tosaOps.empty()) {
      markAllAnalysesPreserved();
      return;
    }
    // Upstream tosa-to-arith's patterns (with include-apply-rescale), on the
    // TOSA ops only: no folding, no constant CSE, no region simplification,
    // so that nothing else in the module changes.
    RewritePatternSet patterns(&getContext());
    tosa::populateTosaToArithConversionPatterns(&patterns);
    tosa::populateTosaRescaleToArithConversionPatterns(&patterns);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps)
        .enableFolding(false)
        .enableConstantCSE(false)
        .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    // Whatever is left (an op the patterns do not handle) is for
    // memplan-verify-lowered to report, with its location.
    (void)applyOpPatternsGreedily(tosaOps, std::move(patterns), config);
  }
};
} // namespace
