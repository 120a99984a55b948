//===- DropTransformScripts.cpp - Remove transform-dialect scripts --------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace memplan {
#define GEN_PASS_DEF_DROPTRANSFORMSCRIPTSPASS
#include "memplan/Transforms/Passes.h.inc"
} // namespace memplan
} // namespace mlir

using namespace mlir;
using namespace mlir::memplan;

namespace {
constexpr StringLiteral kTransformNamespace = "transform";

bool isTransformOp(Operation &op) {
  return op.getName().getDialectNamespace() == kTransformNamespace;
}

struct DropTransformScriptsPass
    : public memplan::impl::DropTransformScriptsPassBase<
          DropTransformScriptsPass> {
  void runOnOperation() override {
    SmallVector<ModuleOp> modules;
    getOperation()->walk([&](ModuleOp module) { modules.push_back(module); });
    for (ModuleOp module : modules) {
      module->removeAttr("transform.with_named_sequence");
      for (Operation &op :
           llvm::make_early_inc_range(module.getBody()->getOperations())) {
        if (!isTransformOp(op))
          continue;
        std::string name = op.getName().getStringRef().str();
        if (auto symbol =
                op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
          name += " @" + symbol.getValue().str();
        op.emitWarning("memplan drops the transform script '")
            << name
            << "': apply it first with --transform-interpreter if the "
               "program needs it";
        op.erase();
      }
    }
  }
};
} // namespace
