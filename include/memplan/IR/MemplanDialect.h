//===- MemplanDialect.h - The memplan dialect -------------------*- C++ -*-===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_IR_MEMPLANDIALECT_H
#define MEMPLAN_IR_MEMPLANDIALECT_H

#include "mlir/IR/Dialect.h"
#include "mlir/IR/Operation.h"

// The discardable attribute helpers name typed attributes.
#include "memplan/IR/MemplanAttrs.h"

#include "memplan/IR/MemplanOpsDialect.h.inc"

namespace mlir {
namespace memplan {
/// The location name that marks ops recomputed by memplan.recompute.
inline constexpr llvm::StringLiteral kRecomputeLocName = "memplan.recompute";

/// True for a function marked `memplan.host`: host code that memplan does not
/// plan (no lifetimes, remat or arena) and never offloads to a device.
inline bool isHostFunction(Operation *func) {
  return func->hasAttr(MemplanDialect::HostAttrHelper::getNameStr());
}

/// A memory space as diagnostics and reports name it: "default" for none,
/// the number for an integer space, the attribute as MLIR prints it
/// otherwise.
std::string describeMemorySpace(Attribute space);

/// True for a function an earlier memplan pass left unplanned
/// (`memplan.unplanned`): later passes leave it as it is.
inline bool isUnplannedFunction(Operation *func) {
  return func->hasAttr(MemplanDialect::UnplannedAttrHelper::getNameStr());
}
} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_IR_MEMPLANDIALECT_H
