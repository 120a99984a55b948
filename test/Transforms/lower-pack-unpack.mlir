// RUN: memplan-opt %s -split-input-file -verify-diagnostics --memplan-lower-pack-unpack | FileCheck %s

// linalg.pack on static tensors becomes pad + expand_shape + transpose, and
// linalg.unpack becomes transpose + collapse_shape (+ slice): ops the lifetime
// analysis and bufferization handle. No pack/unpack is left.
// CHECK-LABEL: func.func @pack
// CHECK-NOT: linalg.pack
// CHECK: tensor.expand_shape
// CHECK: linalg.transpose
// CHECK-NOT: linalg.pack
func.func @pack(%a: tensor<8x8xf32>) -> tensor<2x2x4x4xf32> {
  %e = tensor.empty() : tensor<2x2x4x4xf32>
  %p = linalg.pack %a inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %e : tensor<8x8xf32> -> tensor<2x2x4x4xf32>
  return %p : tensor<2x2x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @unpack
// CHECK-NOT: linalg.unpack
// CHECK: linalg.transpose
// CHECK: tensor.collapse_shape
// CHECK-NOT: linalg.unpack
func.func @unpack(%a: tensor<2x2x4x4xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %u = linalg.unpack %a inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %e : tensor<2x2x4x4xf32> -> tensor<8x8xf32>
  return %u : tensor<8x8xf32>
}

// -----

func.func @dynamic(%a: tensor<?x8xf32>, %e: tensor<?x2x4x4xf32>) -> tensor<?x2x4x4xf32> {
  // expected-error @+1 {{memplan cannot lower this 'linalg.pack' (upstream's lowering needs static-shaped tensors)}}
  %p = linalg.pack %a inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %e : tensor<?x8xf32> -> tensor<?x2x4x4xf32>
  return %p : tensor<?x2x4x4xf32>
}
