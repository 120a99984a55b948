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
    bool nvvm = target == LoweringTarget::NVVM;
    llvm::StringSet<> reported;
    bool failedAny = false;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      // A nested module with anything left in it was not lowered at all:
      // one error there, with the way to lower it, rather than one per op.
      if (auto nested = dyn_cast<ModuleOp>(op);
          nested && op != getOperation().getOperation()) {
        Operation *leftover = nullptr;
        nested->walk([&](Operation *inner) {
          if (!leftover && !isa<ModuleOp>(inner) && !isAllowed(inner, nvvm))
            leftover = inner;
        });
        if (!leftover)
          return WalkResult::skip();
        nested.emitError("nested module")
            << (nested.getSymName() ? " @" + nested.getSymName()->str() : "")
            << " is not lowered for target=" << stringifyLoweringTarget(target)
            << ": '" << leftover->getName()
            << "' is left in it (the pipeline lowers nested modules for "
               "target=cpu, except vector.mask; run it on the nested module "
               "alone: --pass-pipeline='builtin.module(builtin.module("
               "memplan-pipeline))')";
        failedAny = true;
        return WalkResult::skip();
      }
      if (isa<ModuleOp>(op) || isAllowed(op, nvvm))
        return WalkResult::advance();
      if (!reported.insert(op->getName().getStringRef()).second)
        return WalkResult::advance();
      op->emitError("'") << op->getName() << "' is left after lowering for "
                         << "target=" << stringifyLoweringTarget(target)
                         << ": no stage of the pipeline lowers it, so the "
                            "output would not run";
      return WalkResult::advance();
    });
    if (!reported.empty() || failedAny)
      signalPassFailure();
    markAllAnalysesPreserved();
  }

  static bool isAllowed(Operation *op, bool nvvm) {
    return isa_and_present<LLVM::LLVMDialect>(op->getDialect()) ||
           (nvvm && isa<gpu::BinaryOp, gpu::LaunchFuncOp>(op));
  }
};

} // namespace
