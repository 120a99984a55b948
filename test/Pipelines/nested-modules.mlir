// Functions of nested modules, at any depth, are bufferized, planned,
// reported and lowered like the top-level ones.
// RUN: memplan-opt %s --memplan-pipeline="report=%t.json" -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: FileCheck %s --check-prefix=NONE --input-file=%t.ll
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json

// CHECK: module @outer
// CHECK:   module @inner
// CHECK:     llvm.func @deep
// The arena and the returned buffer: the two intermediates share the arena.
// CHECK-COUNT-2: llvm.call @malloc
// CHECK-NOT:   llvm.call @malloc
// CHECK:   llvm.func @middle
// CHECK: llvm.func @top
// Nothing left unlowered at any level.
// NONE-NOT: func.func
// NONE-NOT: linalg.
// NONE-NOT: memref.

// One report for all levels, in walk order, each function named by its
// module path: @deep's two intermediates are live together (128 bytes),
// @middle's and @top's one each (64 bytes).
// REPORT: "arena_bytes": 128
// REPORT: "lower_bound_bytes": 128
// REPORT-NEXT: "name": "outer::inner::deep"
// REPORT: "arena_bytes": 64
// REPORT: "name": "outer::middle"
// REPORT: "arena_bytes": 64
// REPORT: "name": "top"
// REPORT-NOT: "unplanned"

module {
  module @outer {
    module @inner {
      func.func @deep(%x: tensor<16xf32>) -> tensor<16xf32> {
        %e = tensor.empty() : tensor<16xf32>
        %a = linalg.exp ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
        %e2 = tensor.empty() : tensor<16xf32>
        %b = linalg.exp ins(%a : tensor<16xf32>) outs(%e2 : tensor<16xf32>) -> tensor<16xf32>
        %e3 = tensor.empty() : tensor<16xf32>
        %c = linalg.add ins(%b, %a : tensor<16xf32>, tensor<16xf32>) outs(%e3 : tensor<16xf32>) -> tensor<16xf32>
        return %c : tensor<16xf32>
      }
    }
    func.func @middle(%x: tensor<16xf32>) -> tensor<16xf32> {
      %e = tensor.empty() : tensor<16xf32>
      %a = linalg.exp ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
      %e2 = tensor.empty() : tensor<16xf32>
      %b = linalg.exp ins(%a : tensor<16xf32>) outs(%e2 : tensor<16xf32>) -> tensor<16xf32>
      return %b : tensor<16xf32>
    }
  }
  func.func @top(%x: tensor<16xf32>) -> tensor<16xf32> {
    %e = tensor.empty() : tensor<16xf32>
    %a = linalg.exp ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
    %e2 = tensor.empty() : tensor<16xf32>
    %b = linalg.exp ins(%a : tensor<16xf32>) outs(%e2 : tensor<16xf32>) -> tensor<16xf32>
    return %b : tensor<16xf32>
  }
}
