//===- MemplanToMemRef.cpp - Arenas and views to memref ops ---------------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "ArenaLowering.h"
#include "memplan/Conversion/Passes.h"
#include "memplan/IR/MemplanOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
namespace memplan {
#define GEN_PASS_DEF_CONVERTMEMPLANTOMEMREFPASS
#include "memplan/Conversion/Passes.h.inc"
} // namespace memplan
} // namespace mlir

using namespace mlir;
using namespace mlir::memplan;

namespace {
struct ConvertMemplanToMemRefPass
    : public memplan::impl::ConvertMemplanToMemRefPassBase<
          ConvertMemplanToMemRefPass> {
  void runOnOperation() override {
    SmallVector<ArenaOp> arenas;
    getOperation().walk([&](ArenaOp op) { arenas.push_back(op); });
    for (ArenaOp arena : arenas)
      if (failed(convert(arena)))
        return signalPassFailure();
    dropMemplanAttributes(getOperation());
  }

  static LogicalResult convert(ArenaOp arena) {
    auto func = arena->getParentOfType<FunctionOpInterface>();
    if (!func || arena->getBlock() != &func.getFunctionBody().front())
      return arena.emitError(
          "memplan.arena must be in the entry block of a function body");
    OpBuilder builder(arena);
    SmallVector<Value, 1> size;
    if (Value bytes = arena.getSize())
      size.push_back(bytes);
    auto alloc = memref::AllocOp::create(
        builder, arena.getLoc(), arena.getType(), size,
        builder.getI64IntegerAttr(arena.getAlignment()));
    // Freed at every exit of the function, when it can be: upstream's
    // lowering frees through `free`, whose pointer is in the default
    // address space, so an arena in another memory space is left allocated
    // (as unplanned buffers there are: a dealloc of one fails to lower).
    Attribute space = arena.getType().getMemorySpace();
    if (auto integer = dyn_cast_or_null<IntegerAttr>(space);
        space && !(integer && integer.getValue().isZero())) {
      replaceArena(arena, alloc.getResult());
      return success();
    }
    for (Block &block : func.getFunctionBody()) {
      if (block.empty() || !block.back().hasTrait<OpTrait::ReturnLike>())
        continue;
      builder.setInsertionPoint(&block.back());
      memref::DeallocOp::create(builder, arena.getLoc(), alloc);
    }
    replaceArena(arena, alloc.getResult());
    return success();
  }
};
} // namespace
