//===- memplan-opt.cpp - The memplan optimizer driver ---------------------===//
//
// Part of memplan. An mlir-opt with every upstream dialect and pass plus
// memplan's dialect, passes and test passes.
//
//===----------------------------------------------------------------------===//

#include "memplan/Conversion/Passes.h"
#include "memplan/IR/MemplanDialect.h"
#include "memplan/Pipelines/Pipelines.h"
#include "memplan/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

namespace mlir {
namespace memplan {
void registerTestPrintLifetimesPass();
void registerTestPrintRematPass();
} // namespace memplan
} // namespace mlir

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::memplan::registerMemplanPasses();
  mlir::memplan::registerMemplanConversionPasses();
  mlir::memplan::registerMemplanPipelines();
  mlir::memplan::registerTestPrintLifetimesPass();
  mlir::memplan::registerTestPrintRematPass();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates kernels to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<mlir::memplan::MemplanDialect>();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "memplan optimizer driver: static memory planning passes\n",
      registry));
}
