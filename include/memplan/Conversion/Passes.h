//===- Passes.h - memplan conversion passes ---------------------*- C++ -*-===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_CONVERSION_PASSES_H
#define MEMPLAN_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/CommandLine.h"

namespace mlir {
namespace memplan {

/// Where a lowered program runs (memplan-verify-lowered, memplan-pipeline).
enum class LoweringTarget { CPU, NVVM };

/// The values of every `target` option: cpu, nvvm.
llvm::cl::ValuesClass loweringTargetValues();

/// The spelling of a target, as the option takes it.
llvm::StringRef stringifyLoweringTarget(LoweringTarget target);

#define GEN_PASS_DECL
#include "memplan/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "memplan/Conversion/Passes.h.inc"

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_CONVERSION_PASSES_H
