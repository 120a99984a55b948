//===- ArenaLowering.h - Shared by the arena conversions --------*- C++ -*-===//
//
// Part of memplan. Internal to lib/Conversion.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_LIB_CONVERSION_ARENALOWERING_H
#define MEMPLAN_LIB_CONVERSION_ARENALOWERING_H

#include "memplan/IR/MemplanOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir {
namespace memplan {
/// Replaces `arena` by `buffer` (a memref of the arena's type): each
/// memplan.view and memplan.dynamic_view becomes a memref.view of `buffer`
/// at its byte offset; the arena op is erased.
inline void replaceArena(ArenaOp arena, Value buffer) {
  OpBuilder b(arena);
  for (Operation *user : llvm::make_early_inc_range(arena->getUsers())) {
    if (auto dynamic = dyn_cast<DynamicViewOp>(user)) {
      b.setInsertionPoint(dynamic);
      auto replacement =
          memref::ViewOp::create(b, dynamic.getLoc(), dynamic.getType(), buffer,
                                 dynamic.getOffset(), dynamic.getSizes());
      dynamic.getResult().replaceAllUsesWith(replacement.getResult());
      dynamic.erase();
      continue;
    }
    auto view = cast<ViewOp>(user);
    b.setInsertionPoint(view);
    Value offset = arith::ConstantIndexOp::create(
        b, view.getLoc(), view.getPlacement().getOffset());
    auto replacement = memref::ViewOp::create(b, view.getLoc(), view.getType(),
                                              buffer, offset, ValueRange());
    view.getResult().replaceAllUsesWith(replacement.getResult());
    view.erase();
  }
  arena.getResult().replaceAllUsesWith(buffer);
  arena.erase();
}
} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_LIB_CONVERSION_ARENALOWERING_H
