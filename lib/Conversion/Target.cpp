//===- Target.cpp - The lowering targets and their option values ---------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Conversion/Passes.h"

using namespace mlir;
using namespace mlir::memplan;

llvm::cl::ValuesClass mlir::memplan::loweringTargetValues() {
  return llvm::cl::values(
      clEnumValN(LoweringTarget::CPU, "cpu",
                 "the host, through the LLVM dialect (mlir-runner)"),
      clEnumValN(LoweringTarget::NVVM, "nvvm",
                 "an NVIDIA GPU: kernels serialized with the CUDA toolkit, "
                 "host code in the LLVM dialect calling memplan's CUDA "
                 "runtime (docs/GPU.md)"));
}

llvm::StringRef mlir::memplan::stringifyLoweringTarget(LoweringTarget target) {
  switch (target) {
  case LoweringTarget::CPU:
    return "cpu";
  case LoweringTarget::NVVM:
    return "nvvm";
  }
  llvm_unreachable("unknown lowering target");
}
