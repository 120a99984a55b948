//===- MemplanDialect.h - The memplan dialect -------------------*- C++ -*-===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_IR_MEMPLANDIALECT_H
#define MEMPLAN_IR_MEMPLANDIALECT_H

#include "mlir/IR/Dialect.h"

#include "memplan/IR/MemplanOpsDialect.h.inc"

#endif // MEMPLAN_IR_MEMPLANDIALECT_H
