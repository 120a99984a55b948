//===- embed.cpp - memplan embedded in another tool -----------------------===//
//
// Part of memplan's examples: the smallest tool that embeds memplan. It
// reads a linalg-on-tensors module, runs memplan's whole pipeline
// (buildMemplanPipeline: plan, pack, lower for the CPU) on it, prints the
// result and, when asked, writes the plan report.
//
//   memplan-embed step.mlir [report.json]
//
//===----------------------------------------------------------------------===//

#include "memplan/IR/MemplanDialect.h"
#include "memplan/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    llvm::errs() << "usage: memplan-embed step.mlir [report.json]\n";
    return 2;
  }
  // The pipeline builds its passes itself (no global pass registration
  // needed); register every dialect the input and the lowering use, with
  // their bufferization and LLVM-conversion interfaces.
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<mlir::memplan::MemplanDialect>();
  mlir::MLIRContext context(registry);

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1; // the parser printed a located error

  mlir::memplan::MemplanPipelineOptions options;
  if (argc == 3)
    options.report = argv[2]; // the plan, as JSON (docs/Interfaces.md)
  mlir::PassManager pm(&context);
  mlir::memplan::buildMemplanPipeline(pm, options);
  if (mlir::failed(pm.run(*module)))
    return 1; // the failing pass printed a located error

  module->print(llvm::outs());
  llvm::outs() << "\n";
  return 0;
}
