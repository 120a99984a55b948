//===- Passes.h - memplan conversion passes ---------------------*- C++ -*-===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_CONVERSION_PASSES_H
#define MEMPLAN_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace memplan {

#define GEN_PASS_DECL
#include "memplan/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "memplan/Conversion/Passes.h.inc"

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_CONVERSION_PASSES_H
