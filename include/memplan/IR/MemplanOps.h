//===- MemplanOps.h - memplan operations ------------------------*- C++ -*-===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_IR_MEMPLANOPS_H
#define MEMPLAN_IR_MEMPLANOPS_H

#include "memplan/IR/MemplanAttrs.h"
#include "memplan/IR/MemplanDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

namespace mlir {
namespace memplan {
/// The bytes one element of `type` occupies in memory, as the LLVM lowering
/// allocates it: ceil(bits / 8) rounded up to a power of two (i1 takes one
/// byte). Complex types take twice their element. Returns std::nullopt for
/// types without a fixed bit width (index, vectors, opaque types).
std::optional<uint64_t> getElementStorageBytes(Type elementType);

/// The bytes of a static-shaped ranked tensor or memref: element count times
/// the storage size of one element. std::nullopt when the shape is not static,
/// the element type has no fixed width, or the product overflows 64 bits.
std::optional<uint64_t> getStaticStorageBytes(ShapedType type);
} // namespace memplan
} // namespace mlir

#define GET_OP_CLASSES
#include "memplan/IR/MemplanOps.h.inc"

#endif // MEMPLAN_IR_MEMPLANOPS_H
