//===- BufferizeModules.cpp - One-shot-bufferize at every nesting level ---===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"

namespace mlir {
namespace memplan {
#define GEN_PASS_DEF_BUFFERIZEMODULESPASS
#include "memplan/Transforms/Passes.h.inc"
} // namespace memplan
} // namespace mlir

using namespace mlir;
using namespace mlir::memplan;

namespace {
/// Upstream one-shot-bufferize with memplan's options.
void addOneShotBufferize(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions options;
  options.bufferizeFunctionBoundaries = true;
  options.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(options));
}

struct BufferizeModulesPass
    : public memplan::impl::BufferizeModulesPassBase<BufferizeModulesPass> {
  void getDependentDialects(DialectRegistry &registry) const override {
    OpPassManager pm(ModuleOp::getOperationName());
    addOneShotBufferize(pm);
    pm.getDependentDialects(registry);
  }

  void runOnOperation() override {
    // Post-order: every nested module before the module holding it, the
    // operation itself last.
    SmallVector<ModuleOp> modules;
    getOperation()->walk([&](ModuleOp module) { modules.push_back(module); });
    OpPassManager pm(ModuleOp::getOperationName());
    addOneShotBufferize(pm);
    for (ModuleOp module : modules)
      if (failed(runPipeline(pm, module)))
        return signalPassFailure();
  }
};
} // namespace
