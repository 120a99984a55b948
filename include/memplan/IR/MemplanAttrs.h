//===- MemplanAttrs.h - memplan attributes ----------------------*- C++ -*-===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_IR_MEMPLANATTRS_H
#define MEMPLAN_IR_MEMPLANATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"

#define GET_ATTRDEF_CLASSES
#include "memplan/IR/MemplanAttrs.h.inc"

#endif // MEMPLAN_IR_MEMPLANATTRS_H
