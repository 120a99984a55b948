// Budgets on functions whose buffers the remat graph does not see (found by
// reviews): each is measured on a bufferized, packed copy and refused when
// the budget cannot be kept, never passed silently.
// RUN: not memplan-opt %s -split-input-file --memplan-pipeline="budget=1000" -o /dev/null 2>&1 | FileCheck %s

// @h creates no tensor, but bufferization gives it a 4096-byte copy of %t
// (@g writes its argument in place, @h reads %t after the call).
// CHECK: error: the budget of 1000 bytes is infeasible for @h: the smallest budget policy 'budget' reaches is 4096 bytes
func.func @g(%t: tensor<1024xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c = arith.constant 2.0 : f32
  %w = linalg.fill ins(%c : f32) outs(%t : tensor<1024xf32>) -> tensor<1024xf32>
  %v = tensor.extract %w[%c0] : tensor<1024xf32>
  return %v : f32
}
func.func @h(%t: tensor<1024xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %a = call @g(%t) : (tensor<1024xf32>) -> f32
  %b = tensor.extract %t[%c0] : tensor<1024xf32>
  %s = arith.addf %a, %b : f32
  return %s : f32
}

// -----

// A function with control flow whose buffer has a size read from data: it
// stays on the heap, where no budget can count it.
// CHECK: error: memplan cannot keep a budget for @f: a buffer of run-time size stays on the heap (memref.alloc @ {{.*}}budget-edge-cases.mlir:[[@LINE+8]]:10), outside the arena the budget bounds
func.func @f(%x: tensor<16xf32>, %k: tensor<i32>, %p: i1) -> f32 {
  %c0 = arith.constant 0 : index
  %ki = tensor.extract %k[] : tensor<i32>
  %n = arith.index_cast %ki : i32 to index
  %e0 = tensor.empty() : tensor<16xf32>
  %a = linalg.add ins(%x, %x : tensor<16xf32>, tensor<16xf32>) outs(%e0 : tensor<16xf32>) -> tensor<16xf32>
  %r = scf.if %p -> f32 {
    %e = tensor.empty(%n) : tensor<?xf32>
    %z = arith.constant 1.0 : f32
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    %v = tensor.extract %f[%c0] : tensor<?xf32>
    scf.yield %v : f32
  } else {
    %v = tensor.extract %a[%c0] : tensor<16xf32>
    scf.yield %v : f32
  }
  return %r : f32
}
