// RUN: memplan-opt %s --memplan-insert-remat="budget=256" | FileCheck %s
// RUN: memplan-opt %s --memplan-insert-remat="budget=256" --memplan-bufferize-modules --memplan-pack-arena --memplan-verify-plan -o /dev/null
// RUN: not memplan-opt %s --memplan-insert-remat="budget=64" --memplan-bufferize-modules --memplan-pack-arena --memplan-verify-plan -o /dev/null 2>&1 | FileCheck %s --check-prefix=OVER
// RUN: not memplan-opt %s --memplan-insert-remat="budget=64 check-arena=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MEASURED
// RUN: not memplan-opt %s --memplan-pipeline="budget=64" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MEASURED
// RUN: memplan-opt %s --memplan-pipeline="budget=128" -o /dev/null

// With the budget policy, a function with control flow (here a driver that
// picks a branch) is not rewritten: it gets the budget, and its packed arena
// is checked against it like any other function's (memplan-verify-plan);
// with check-arena (as in the pipeline) insert-remat measures it and refuses
// a budget below its arena, saying why.
// Fixed policies still refuse it (insert-remat-loops.mlir).

// CHECK-LABEL: func.func @driver
// CHECK-SAME: memplan.budget = 256 : i64
// CHECK-NOT: memplan.recompute
// CHECK-NOT: memplan.checkpoint
// CHECK: scf.if
func.func @driver(%p: i1, %x: tensor<16xf32>) -> tensor<16xf32> {
  %r = scf.if %p -> tensor<16xf32> {
    %e = tensor.empty() : tensor<16xf32>
    %a = linalg.exp ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
    %f = tensor.empty() : tensor<16xf32>
    %b = linalg.add ins(%a, %x : tensor<16xf32>, tensor<16xf32>) outs(%f : tensor<16xf32>) -> tensor<16xf32>
    scf.yield %b : tensor<16xf32>
  } else {
    scf.yield %x : tensor<16xf32>
  }
  %e2 = tensor.empty() : tensor<16xf32>
  %s = linalg.exp ins(%r : tensor<16xf32>) outs(%e2 : tensor<16xf32>) -> tensor<16xf32>
  %e3 = tensor.empty() : tensor<16xf32>
  %t = linalg.add ins(%s, %r : tensor<16xf32>, tensor<16xf32>) outs(%e3 : tensor<16xf32>) -> tensor<16xf32>
  return %t : tensor<16xf32>
}

// OVER: error: arena of {{[0-9]+}} bytes exceeds the budget of 64 bytes
// MEASURED: error: the budget of 64 bytes is infeasible for @driver: its arena is 128 bytes, and memplan-insert-remat does not rewrite functions with control flow ('scf.if')
