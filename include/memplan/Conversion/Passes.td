//===- Passes.td - memplan conversion passes ---------------*- tablegen -*-===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_CONVERSION_PASSES
#define MEMPLAN_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertMemplanToMemRefPass
    : Pass<"convert-memplan-to-memref", "::mlir::ModuleOp"> {
  let summary = "Lower arenas and views to upstream memref ops";
  let description = [{
    Each `memplan.arena alignment(A) : memref<Nxi8>` becomes one
    `memref.alloc() {alignment = A} : memref<Nxi8>`, freed by a
    `memref.dealloc` before the function's return; each `memplan.view`
    becomes a `memref.view` at its byte offset. The result lowers with
    upstream passes (for instance `finalize-memref-to-llvm`) and runs under
    `mlir-runner`.

    Rejections: `memplan.arena must be in a single-block function body`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

#endif // MEMPLAN_CONVERSION_PASSES
