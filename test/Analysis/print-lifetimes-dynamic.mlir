// RUN: memplan-opt %s -split-input-file --test-memplan-print-lifetimes -o /dev/null | FileCheck %s

// Dynamic shapes: each size is an expression over the function's symbols
// (dimensions of arguments, named by memplan.symbols or a<N>d<D>, and index
// arguments, a<N>), found through upstream's value bounds (tensor.dim,
// affine.apply, ...). Lifetimes are as for static shapes.
// CHECK-LABEL: lifetimes of @f (15 steps)
// CHECK-NEXT:    %arg0 = argument: B * 32 B [0, 6) argument
// CHECK-NEXT:    %arg2 = argument: 512 B [0, 6) argument
// CHECK-NEXT:    = tensor.empty @3: B * 64 B [3, 9) planned
// CHECK-NEXT:    = tensor.empty @7: (a1 + B * 2) * 64 B [7, 12) planned
// CHECK-NEXT:    = tensor.empty @10: B * 64 B [10, 15) returned
// CHECK-NEXT:    = tensor.empty @13: 4 B [13, 14) planned
// CHECK-NEXT:  peak = 4 at step 13 (buffers of dynamic size not counted)
func.func @f(%x: tensor<?x8xf32> {memplan.symbols = ["B", ""]}, %n: index, %w: tensor<8x16xf32>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %b = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e1 = tensor.empty(%b) : tensor<?x16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?x16xf32>) -> tensor<?x16xf32>
  %h = linalg.matmul ins(%x, %w : tensor<?x8xf32>, tensor<8x16xf32>) outs(%f1 : tensor<?x16xf32>) -> tensor<?x16xf32>
  %two = affine.apply affine_map<()[s0, s1] -> (s0 * 2 + s1)>()[%b, %n]
  %e2 = tensor.empty(%two) : tensor<?x16xf32>
  %c = tensor.insert_slice %h into %e2[0, 0] [%b, 16] [1, 1] : tensor<?x16xf32> into tensor<?x16xf32>
  %s = tensor.extract_slice %c[0, 0] [%b, 16] [1, 1] : tensor<?x16xf32> to tensor<?x16xf32>
  %e3 = tensor.empty(%b) : tensor<?x16xf32>
  %r = linalg.exp ins(%s : tensor<?x16xf32>) outs(%e3 : tensor<?x16xf32>) -> tensor<?x16xf32>
  %k = arith.index_cast %n : index to i32
  %e4 = tensor.empty() : tensor<4xi8>
  return %r : tensor<?x16xf32>
}

// -----

// A size read from memory is no function of the arguments: "?".
// CHECK-LABEL: lifetimes of @loaded
// CHECK-NEXT:    %arg0 = argument: 8 B [0, 1) argument
// CHECK-NEXT:    = memref.alloc @1: ? B [1, 2) planned
func.func @loaded(%size: memref<index>) {
  %n = memref.load %size[] : memref<index>
  %a = memref.alloc(%n) : memref<?x3xf32>
  memref.dealloc %a : memref<?x3xf32>
  return
}
