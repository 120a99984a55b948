//===- MemplanDialect.h - The memplan dialect -------------------*- C++ -*-===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_IR_MEMPLANDIALECT_H
#define MEMPLAN_IR_MEMPLANDIALECT_H

#include "mlir/IR/Dialect.h"

#include "memplan/IR/MemplanOpsDialect.h.inc"

namespace mlir {
namespace memplan {
/// The location name that marks ops recomputed by memplan.recompute.
inline constexpr llvm::StringLiteral kRecomputeLocName = "memplan.recompute";
} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_IR_MEMPLANDIALECT_H
