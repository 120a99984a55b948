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

#include "mlir/Interfaces/DataLayoutInterfaces.h"

#include <optional>

namespace mlir {
namespace memplan {
/// The bytes one element of `elementType` occupies in a buffer, as the LLVM
/// lowering allocates it, from MLIR's DataLayout `layout` (the module's
/// `dlti.dl_spec`, or the defaults): the type's size rounded up to its ABI
/// alignment. Integers and floats, `index`, fixed-size vectors of them and
/// types implementing DataLayoutTypeInterface are sized through the layout;
/// `complex<T>` takes two of T. An integer or float never takes less than
/// its byte width rounded up to a power of two (what LLVM's default layouts
/// store `iN` in: `i1` and `i4` one byte, `i24` four, `i65` sixteen), where
/// MLIR's default alignment for wide integers is smaller. Returns
/// std::nullopt for types the layout cannot size (scalable vectors, opaque
/// types, zero-width types).
std::optional<uint64_t> getElementStorageBytes(Type elementType,
                                               const DataLayout &layout);

/// The bytes of a static-shaped ranked tensor or memref: element count times
/// the storage size of one element. std::nullopt when the shape is not static,
/// the element type cannot be sized, or the product overflows 64 bits.
std::optional<uint64_t> getStaticStorageBytes(ShapedType type,
                                              const DataLayout &layout);
} // namespace memplan
} // namespace mlir

#define GET_OP_CLASSES
#include "memplan/IR/MemplanOps.h.inc"

#endif // MEMPLAN_IR_MEMPLANOPS_H
