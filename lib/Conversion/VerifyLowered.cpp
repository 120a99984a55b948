//===- VerifyLowered.cpp - Only the target's dialects after lowering ------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Conversion/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSet.h"

namespace mlir {
namespace memplan {
#define GEN_PASS_DEF_VERIFYLOWEREDPASS
#include "memplan/Conversion/Passes.h.inc"
} // namespace memplan
} // namespace mlir

using namespace mlir;
using namespace mlir::memplan;

namespace {
struct VerifyLoweredPass
    : public memplan::impl::VerifyLoweredPassBase<VerifyLoweredPass> {
  using Base::Base;

  void runOnOperation() override {
    bool nvvm = target == "nvvm";
    if (!nvvm && target != "cpu") {
      getOperation().emitError("memplan-verify-lowered: unknown target '")
          << target << "' (expected cpu or nvvm)";
      return signalPassFailure();
    }
    llvm::StringSet<> reported;
    getOperation()->walk([&](Operation *op) {
      if (isa<ModuleOp>(op) ||
          isa_and_present<LLVM::LLVMDialect>(op->getDialect()) ||
          (nvvm && isa<gpu::BinaryOp, gpu::LaunchFuncOp>(op)))
        return;
      if (!reported.insert(op->getName().getStringRef()).second)
        return;
      op->emitError("'") << op->getName() << "' is left after lowering for "
                         << "target=" << target
                         << ": no stage of the pipeline lowers it, so the "
                            "output would not run";
    });
    if (!reported.empty())
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
