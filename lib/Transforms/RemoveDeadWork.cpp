//===- RemoveDeadWork.cpp - Drop computations nobody needs ----------------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//
//
// Before lifetimes are computed, ops whose results reach no function result
// and no side effect are erased (upstream runRegionDCE on each function
// body), so their buffers never take arena space: what an autodiff runtime
// does when it frees backward nodes nobody can reach. The contract is the
// pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "memplan/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir {
namespace memplan {
#define GEN_PASS_DEF_REMOVEDEADWORKPASS
#include "memplan/Transforms/Passes.h.inc"
} // namespace memplan
} // namespace mlir

using namespace mlir;
using namespace mlir::memplan;

namespace {
struct RemoveDeadWorkPass
    : public memplan::impl::RemoveDeadWorkPassBase<RemoveDeadWorkPass> {
  void runOnOperation() override {
    SmallVector<FunctionOpInterface> functions;
    getOperation()->walk([&](FunctionOpInterface func) {
      if (!func.isExternal())
        functions.push_back(func);
    });
    IRRewriter rewriter(&getContext());
    for (FunctionOpInterface func : functions)
      (void)runRegionDCE(rewriter, func.getFunctionBody());
  }
};
} // namespace
