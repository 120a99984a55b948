//===- MemplanToGPU.cpp - Device functions' buffers to device memory ------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//
//
// The device calling convention (docs/GPU.md): a device function's arena is
// one device allocation owned by the runtime and cached in a module global,
// made on the function's first call; its other buffers are `gpu.alloc`s;
// constant globals are copied to the device once.
//
//===----------------------------------------------------------------------===//

#include "ArenaLowering.h"
#include "memplan/Conversion/Passes.h"
#include "memplan/IR/MemplanDialect.h"
#include "memplan/IR/MemplanOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace memplan {
#define GEN_PASS_DEF_CONVERTMEMPLANTOGPUPASS
#include "memplan/Conversion/Passes.h.inc"
} // namespace memplan
} // namespace mlir

using namespace mlir;
using namespace mlir::memplan;

namespace {
constexpr llvm::StringLiteral kArenaAcquire = "memplan_arena_acquire";
constexpr llvm::StringLiteral kConstantAcquire = "memplan_constant_acquire";

/// Bytes of a static memref as the LLVM lowering stores it (sizes from the
/// data layout around `op`), or nullopt when the shape is dynamic, the element
/// cannot be sized or the byte count does not fit in int64_t.
std::optional<uint64_t> staticBytes(Operation *op, MemRefType type) {
  std::optional<uint64_t> bytes =
      getStaticStorageBytes(type, DataLayout::closest(op));
  if (!bytes || *bytes > uint64_t(INT64_MAX))
    return std::nullopt;
  return bytes;
}

struct ConvertMemplanToGPUPass
    : public memplan::impl::ConvertMemplanToGPUPassBase<
          ConvertMemplanToGPUPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    constantSlots.clear();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> devices;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && !isHostFunction(func))
        devices.push_back(func);
    for (func::FuncOp func : devices)
      if (failed(convertFunction(func, symbols)))
        return signalPassFailure();
    dropMemplanAttributes(module);
  }

  /// The private declaration `name(args) -> memref<?xi8>` with the C
  /// interface, created once.
  func::FuncOp runtimeDecl(SymbolTable &symbols, StringRef name,
                           TypeRange args) {
    if (auto existing = symbols.lookup<func::FuncOp>(name))
      return existing;
    ModuleOp module = getOperation();
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    MLIRContext *ctx = module.getContext();
    auto result =
        MemRefType::get({ShapedType::kDynamic}, IntegerType::get(ctx, 8));
    auto decl = func::FuncOp::create(b, module.getLoc(), name,
                                     b.getFunctionType(args, {result}));
    decl.setPrivate();
    decl->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  UnitAttr::get(ctx));
    symbols.insert(decl);
    return decl;
  }

  /// A new private global pointer-sized slot, null at load time.
  LLVM::GlobalOp newSlot(SymbolTable &symbols, StringRef name) {
    ModuleOp module = getOperation();
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto ptr = LLVM::LLVMPointerType::get(module.getContext());
    auto global = LLVM::GlobalOp::create(
        b, module.getLoc(), ptr,
        /*isConstant=*/false, LLVM::Linkage::Internal, name, Attribute());
    Block *init = b.createBlock(&global.getInitializerRegion());
    b.setInsertionPointToStart(init);
    Value zero = LLVM::ZeroOp::create(b, module.getLoc(), ptr);
    LLVM::ReturnOp::create(b, module.getLoc(), zero);
    symbols.insert(global); // renames on a clash
    return global;
  }

  LogicalResult convertFunction(func::FuncOp func, SymbolTable &symbols) {
    MLIRContext *ctx = func.getContext();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    Type i64 = IntegerType::get(ctx, 64);

    // Check first, then rewrite: a rejected function is left untouched.
    SmallVector<ArenaOp> arenas;
    SmallVector<memref::AllocOp> allocs;
    SmallVector<memref::DeallocOp> deallocs;
    SmallVector<memref::GetGlobalOp> globals;
    WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
      if (auto arena = dyn_cast<ArenaOp>(op)) {
        if (arena->getBlock() != &func.getBody().front())
          return arena.emitError(
              "memplan.arena must be in the entry block of a function body");
        if (arena.getType().getMemorySpace())
          return arena.emitError("memplan.arena in memory space ")
                 << describeMemorySpace(arena.getType().getMemorySpace())
                 << " in a device function: the device arena is in the "
                    "default (global) memory space";
        arenas.push_back(arena);
      } else if (isa<ViewOp, DynamicViewOp>(op)) {
        // One slot per planned buffer: iterations of a parallel loop run at
        // once on the device and would share it.
        Operation *loop = op->getParentOp();
        while (loop &&
               !isa<scf::ParallelOp, scf::ForallOp, affine::AffineParallelOp>(
                   loop))
          loop = loop->getParentOp();
        if (loop) {
          InFlightDiagnostic diag =
              op->emitError("planned buffer inside '")
              << loop->getName()
              << "' in a device function: its iterations run at once on the "
                 "device and would share the buffer's one slot";
          diag.attachNote(loop->getLoc()) << "parallel loop";
          return diag;
        }
      } else if (isa<memref::AllocaOp>(op)) {
        return op->emitError("memref.alloca in a device function: kernels "
                             "cannot read host stack memory");
      } else if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        allocs.push_back(alloc);
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        deallocs.push_back(dealloc);
      } else if (auto get = dyn_cast<memref::GetGlobalOp>(op)) {
        auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
            get, get.getNameAttr());
        if (!global || !global.getConstant())
          return get.emitError("memref.get_global of a non-constant global in "
                               "a device function: its host memory is not "
                               "visible to kernels");
        if (!staticBytes(get, get.getType()) ||
            !get.getType().getLayout().isIdentity())
          return get.emitError("dynamic shape ")
                 << get.getType()
                 << " in a device function: memplan's device lowering "
                    "supports static shapes only";
        globals.push_back(get);
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();

    OpBuilder b(ctx);
    for (ArenaOp arena : arenas) {
      func::FuncOp acquire =
          runtimeDecl(symbols, kArenaAcquire, {ptrType, i64});
      LLVM::GlobalOp slot =
          newSlot(symbols, ("__memplan_arena." + func.getSymName()).str());
      Location loc = arena.getLoc();
      b.setInsertionPoint(arena);
      Value address = LLVM::AddressOfOp::create(b, loc, slot);
      // Sized at run time (dynamic shapes): the runtime grows the arena
      // when a call needs more than it holds.
      Value bytes =
          arena.isDynamic()
              ? Value(arith::IndexCastOp::create(b, loc, i64, arena.getSize()))
              : Value(arith::ConstantOp::create(
                    b, loc, i64, b.getI64IntegerAttr(arena.getSizeInBytes())));
      Value device =
          func::CallOp::create(b, loc, acquire, ValueRange{address, bytes})
              .getResult(0);
      replaceArena(arena,
                   memref::CastOp::create(b, loc, arena.getType(), device));
    }

    for (memref::AllocOp alloc : allocs) {
      b.setInsertionPoint(alloc);
      auto device = gpu::AllocOp::create(
          b, alloc.getLoc(), alloc.getType(), /*asyncToken=*/Type(),
          /*asyncDependencies=*/ValueRange(), alloc.getDynamicSizes(),
          alloc.getSymbolOperands(), /*hostShared=*/false);
      alloc.getResult().replaceAllUsesWith(device.getMemref());
      alloc.erase();
    }
    for (memref::DeallocOp dealloc : deallocs) {
      b.setInsertionPoint(dealloc);
      gpu::DeallocOp::create(b, dealloc.getLoc(), /*asyncToken=*/Type(),
                             ValueRange(), dealloc.getMemref());
      dealloc.erase();
    }

    // One device copy per constant global and module.
    for (memref::GetGlobalOp get : globals) {
      LLVM::GlobalOp &slot = constantSlots[get.getNameAttr().getAttr()];
      if (!slot)
        slot = newSlot(symbols, ("__memplan_constant." + get.getName()).str());
      func::FuncOp acquire =
          runtimeDecl(symbols, kConstantAcquire, {ptrType, i64, i64});
      Location loc = get.getLoc();
      b.setInsertionPointAfter(get);
      Value address = LLVM::AddressOfOp::create(b, loc, slot);
      Value host = memref::ExtractAlignedPointerAsIndexOp::create(
          b, loc, get.getResult());
      Value host64 = arith::IndexCastOp::create(b, loc, i64, host);
      Value bytes = arith::ConstantOp::create(
          b, loc, i64,
          b.getI64IntegerAttr(int64_t(*staticBytes(get, get.getType()))));
      Value device = func::CallOp::create(b, loc, acquire,
                                          ValueRange{address, host64, bytes})
                         .getResult(0);
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      auto view = memref::ViewOp::create(b, loc, get.getType(), device, zero,
                                         ValueRange());
      get.getResult().replaceAllUsesExcept(view.getResult(),
                                           host.getDefiningOp());
    }
    return success();
  }

  llvm::DenseMap<Attribute, LLVM::GlobalOp> constantSlots;
};
} // namespace
