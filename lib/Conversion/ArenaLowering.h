//===- ArenaLowering.h - Shared by the arena conversions --------*- C++ -*-===//
//
// Part of memplan. Internal to lib/Conversion.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_LIB_CONVERSION_ARENALOWERING_H
#define MEMPLAN_LIB_CONVERSION_ARENALOWERING_H

#include "memplan/IR/MemplanDialect.h"
#include "memplan/IR/MemplanOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir {
namespace memplan {
/// Drops, from every op and function argument under `root`, the discardable
/// attributes whose value is a memplan attribute (`memplan.remat`,
/// `memplan.lifetime`): only the planning passes read them, and what the
/// arena conversions produce must parse without the memplan dialect (in
/// mlir-runner, mlir-translate). The plain-valued ones (`memplan.budget`,
/// `memplan.symbols`, ...) stay: anyone can parse them.
inline void dropMemplanAttributes(Operation *root) {
  // A memplan attribute anywhere in the value: `#memplan.lifetime`, or an
  // array of them (a multi-result op's annotation).
  auto isMemplan = [](NamedAttribute attr) {
    if (!attr.getName().getValue().starts_with("memplan."))
      return false;
    bool found = false;
    attr.getValue().walk([&](Attribute nested) {
      if (llvm::isa<MemplanDialect>(nested.getDialect()))
        found = true;
    });
    return found;
  };
  auto dropFrom = [&](Operation *op) {
    SmallVector<StringAttr> names;
    for (NamedAttribute attr : op->getDiscardableAttrs())
      if (isMemplan(attr))
        names.push_back(attr.getName());
    for (StringAttr name : names)
      op->removeDiscardableAttr(name);
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (!func)
      return;
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      for (NamedAttribute attr : func.getArgAttrs(i))
        if (isMemplan(attr))
          func.removeArgAttr(i, attr.getName());
  };
  root->walk(dropFrom);
}

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
