//===- LowerAsserts.cpp - cf.assert messages on stderr --------------------===//
//
// Part of memplan. Upstream's cf.assert lowering prints with puts (stdout,
// buffered when it is a file or a pipe) and aborts without flushing: the
// message is lost. This writes it to stderr first.
//
//===----------------------------------------------------------------------===//

#include "memplan/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"

namespace mlir {
namespace memplan {
#define GEN_PASS_DEF_LOWERASSERTSPASS
#include "memplan/Transforms/Passes.h.inc"
} // namespace memplan
} // namespace mlir

using namespace mlir;
using namespace mlir::memplan;

namespace {
struct LowerAssertsPass
    : public memplan::impl::LowerAssertsPassBase<LowerAssertsPass> {
  void runOnOperation() override {
    // Per module (nested ones included: each gets its own declarations and
    // messages, as upstream's lowering does), the host asserts: not in
    // kernel code (a gpu.module, or a gpu.launch body before outlining).
    llvm::MapVector<Operation *, SmallVector<cf::AssertOp>> byModule;
    getOperation().walk([&](cf::AssertOp op) {
      if (op->getParentOfType<gpu::GPUModuleOp>() ||
          op->getParentOfType<gpu::LaunchOp>())
        return;
      byModule[op->getParentOfType<ModuleOp>().getOperation()].push_back(op);
    });
    for (auto &[module, asserts] : byModule)
      if (failed(lowerIn(cast<ModuleOp>(module), asserts)))
        return signalPassFailure();
  }

  LogicalResult lowerIn(ModuleOp module, ArrayRef<cf::AssertOp> asserts) {
    MLIRContext *ctx = module.getContext();
    OpBuilder b(ctx);
    Type i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
    Type ptr = LLVM::LLVMPointerType::get(ctx);
    Type voidType = LLVM::LLVMVoidType::get(ctx);
    SymbolTable symbols(module);
    std::optional<Callee> write =
        callee(module, symbols, "write", {i32, ptr, i64}, i64, asserts.front());
    if (!write)
      return failure();
    std::optional<Callee> abort =
        callee(module, symbols, "abort", {}, voidType, asserts.front());
    if (!abort)
      return failure();
    // One global per distinct message.
    llvm::StringMap<LLVM::GlobalOp> messages;
    for (cf::AssertOp op : asserts) {
      std::string text = op.getMsg().str() + "\n";
      LLVM::GlobalOp &global = messages[text];
      if (!global) {
        b.setInsertionPointToStart(module.getBody());
        auto type =
            LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), text.size());
        global = LLVM::GlobalOp::create(
            b, op.getLoc(), type, /*isConstant=*/true, LLVM::Linkage::Private,
            "__memplan_assert_message", b.getStringAttr(text));
        symbols.insert(global); // a fresh name per message
      }
      Location loc = op.getLoc();
      b.setInsertionPoint(op);
      Value failed = arith::XOrIOp::create(
          b, loc, op.getArg(), arith::ConstantIntOp::create(b, loc, 1, 1));
      auto ifOp = scf::IfOp::create(b, loc, failed, /*withElse=*/false);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      Value address = LLVM::AddressOfOp::create(b, loc, global);
      Value fd = arith::ConstantIntOp::create(b, loc, i32, 2);
      Value length = arith::ConstantIntOp::create(b, loc, i64, text.size());
      write->call(b, loc, {fd, address, length});
      abort->call(b, loc, {});
      op.erase();
    }
    return success();
  }

  /// A C function the rewritten asserts call: declared as an `llvm.func`
  /// when the module has no symbol of that name, otherwise the module's own
  /// declaration if it has the C signature.
  struct Callee {
    Operation *decl;
    void call(OpBuilder &b, Location loc, ValueRange args) const {
      if (auto func = dyn_cast<func::FuncOp>(decl))
        func::CallOp::create(b, loc, func, args);
      else
        LLVM::CallOp::create(b, loc, cast<LLVM::LLVMFuncOp>(decl), args);
    }
  };
  std::optional<Callee> callee(ModuleOp module, SymbolTable &symbols,
                               StringRef name, ArrayRef<Type> args, Type result,
                               cf::AssertOp user) {
    MLIRContext *ctx = &getContext();
    bool isVoid = isa<LLVM::LLVMVoidType>(result);
    Operation *existing = symbols.lookup(name);
    if (!existing) {
      OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
      auto decl = LLVM::LLVMFuncOp::create(
          b, module.getLoc(), name, LLVM::LLVMFunctionType::get(result, args));
      symbols.insert(decl);
      return Callee{decl};
    }
    if (auto func = dyn_cast<func::FuncOp>(existing)) {
      FunctionType type = func.getFunctionType();
      SmallVector<Type> results;
      if (!isVoid)
        results.push_back(result);
      if (type == FunctionType::get(ctx, args, results))
        return Callee{func};
    } else if (auto func = dyn_cast<LLVM::LLVMFuncOp>(existing)) {
      if (func.getFunctionType() == LLVM::LLVMFunctionType::get(result, args))
        return Callee{func};
    }
    user.emitError("cannot lower 'cf.assert': the module's '")
        << name << "' is not the C function";
    return std::nullopt;
  }
};
} // namespace
