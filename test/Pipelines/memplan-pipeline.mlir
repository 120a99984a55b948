// One flag takes a tensor-level training step to the LLVM dialect with one
// arena per function, and writes the report.
// RUN: memplan-opt %s --memplan-pipeline="report=%t.json" | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json
// RUN: memplan-opt %s --memplan-pipeline="algorithm=greedy-time alignment=16" | FileCheck %s
// An unknown target is refused by the option parser.
// RUN: not memplan-opt %s --memplan-pipeline="target=tpu" 2>&1 | FileCheck %s --check-prefix=TARGET

// CHECK-LABEL: llvm.func @step
// One aligned allocation (the arena) and its free; nothing else allocated.
// CHECK: llvm.call @malloc
// CHECK-NOT: llvm.call @malloc
// CHECK: llvm.call @free
// CHECK-NOT: memplan.
// REPORT: "arena_bytes": 128
// REPORT: "lower_bound_bytes": 128
// TARGET: Cannot find option named 'tpu'
func.func @step(%x: tensor<16xf32>) -> f32 {
  %e0 = tensor.empty() : tensor<16xf32>
  %a = linalg.exp ins(%x : tensor<16xf32>) outs(%e0 : tensor<16xf32>) -> tensor<16xf32>
  %e1 = tensor.empty() : tensor<16xf32>
  %b = linalg.add ins(%a, %x : tensor<16xf32>, tensor<16xf32>) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<16xf32>
  %c = linalg.mul ins(%b, %b : tensor<16xf32>, tensor<16xf32>) outs(%e2 : tensor<16xf32>) -> tensor<16xf32>
  %i = arith.constant 3 : index
  %v = tensor.extract %c[%i] : tensor<16xf32>
  return %v : f32
}
