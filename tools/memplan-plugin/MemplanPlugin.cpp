//===- MemplanPlugin.cpp - memplan as a plugin of stock mlir-opt ----------===//
//
// Part of memplan. libMemplanPlugin.so is both a dialect plugin and a pass
// plugin of upstream MLIR tools:
//
//   mlir-opt --load-dialect-plugin=libMemplanPlugin.so \
//            --load-pass-plugin=libMemplanPlugin.so \
//            --pass-pipeline='builtin.module(memplan-pipeline)' step.mlir
//
// It registers the memplan dialect, every memplan pass and the registered
// pipelines (memplan-pipeline, memplan-prepare, memplan-lower-to-llvm,
// memplan-lower-to-nvvm). The upstream passes the pipelines use must be
// registered by the host tool, as mlir-opt does.
//
//===----------------------------------------------------------------------===//

#include "memplan/Conversion/Passes.h"
#include "memplan/IR/MemplanDialect.h"
#include "memplan/Pipelines/Pipelines.h"
#include "memplan/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Memplan", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            registry->insert<memplan::MemplanDialect>();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "MemplanPasses", LLVM_VERSION_STRING, []() {
            memplan::registerMemplanPasses();
            memplan::registerMemplanConversionPasses();
            memplan::registerMemplanPipelines();
          }};
}
