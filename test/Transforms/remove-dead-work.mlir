// RUN: memplan-opt %s -split-input-file --memplan-remove-dead-work | FileCheck %s

// A gradient nobody returns: its ops and buffers go; what is returned stays.
// CHECK-LABEL: func.func @unused_gradient
// CHECK-COUNT-1: tensor.empty
// CHECK-NOT: linalg.matmul
// CHECK: linalg.add
// CHECK-NOT: linalg.mul
// CHECK: return
func.func @unused_gradient(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %g = linalg.matmul ins(%x, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %e2 = tensor.empty() : tensor<4x4xf32>
  %h = linalg.mul ins(%g, %g : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e2 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %e3 = tensor.empty() : tensor<4x4xf32>
  %r = linalg.add ins(%x, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e3 : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// At memref level, an op writing memory is a side effect: it stays even if
// nothing reads the buffer afterwards. An allocation nobody uses goes.
// CHECK-LABEL: func.func @writes_stay
// CHECK: memref.alloc
// CHECK-NEXT: linalg.copy
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @writes_stay(%x: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  linalg.copy ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  %unused = memref.alloc() : memref<8xf32>
  return
}

// -----

// A value only carried around a loop of blocks and never used: dead too
// (the block argument and what feeds it).
// CHECK-LABEL: func.func @dead_cycle
// CHECK-NOT: tensor.empty
// CHECK: ^bb1(%{{.*}}: index):
func.func @dead_cycle(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<4xf32>
  cf.br ^loop(%e, %c0 : tensor<4xf32>, index)
^loop(%t: tensor<4xf32>, %i: index):
  %e2 = tensor.empty() : tensor<4xf32>
  %u = linalg.add ins(%t, %x : tensor<4xf32>, tensor<4xf32>) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %i1 = arith.addi %i, %c1 : index
  %c = arith.cmpi slt, %i1, %n : index
  cf.cond_br %c, ^loop(%u, %i1 : tensor<4xf32>, index), ^exit
^exit:
  return %x : tensor<4xf32>
}
