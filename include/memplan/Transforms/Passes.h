//===- Passes.h - memplan transformation passes -----------------*- C++ -*-===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_TRANSFORMS_PASSES_H
#define MEMPLAN_TRANSFORMS_PASSES_H

#include "memplan/IR/MemplanDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace memplan {

#define GEN_PASS_DECL
#include "memplan/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "memplan/Transforms/Passes.h.inc"

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_TRANSFORMS_PASSES_H
