//===- RematRewriter.h - Rewrite a function to run a remat plan -*- C++ -*-===//
//
// Part of memplan. Private to lib/Transforms (memplan-insert-remat).
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_LIB_TRANSFORMS_REMATREWRITER_H
#define MEMPLAN_LIB_TRANSFORMS_REMATREWRITER_H

#include "memplan/Analysis/RematGraph.h"
#include "memplan/Planning/Remat.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
namespace memplan {

/// Rewrites `func` (the function `g` was built from) so that it executes
/// `plan.schedule` (Remat.h): a node's first execution is its ops where they
/// stand; the recomputations that precede it become one memplan.recompute
/// region right before the first of its ops that reads what the region
/// yields (else before its last writer), the reading chains' pure leading
/// ops moved after it; every read takes the instance the schedule reads.
/// Kept saved values that the backward pass reads get a memplan.checkpoint.
/// Fails with a located internal error when the function's op order cannot
/// host the schedule (never leaves invalid IR).
LogicalResult applyRematPlan(FunctionOpInterface func, FunctionRematGraph &g,
                             const RematPlan &plan);

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_LIB_TRANSFORMS_REMATREWRITER_H
