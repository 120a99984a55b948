// RUN: memplan-opt --memplan-lower-to-llvm %s | mlir-runner -e main -entry-point-result=void %runner_libs | FileCheck %s

// memplan-lower-dynamic-expand-shape's reinterpret_cast reads what the
// expand_shape would: rows of a strided window of a 6x8 table split into
// [2, 3, 4] blocks (both leading sizes dynamic), and a contiguous vector
// split into [3, 4].

func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  %t = memref.alloc() : memref<6x8xf32>
  scf.for %i = %c0 to %c6 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %k = arith.muli %i, %c8 : index
      %l = arith.addi %k, %j : index
      %v = arith.index_cast %l : index to i32
      %f = arith.sitofp %v : i32 to f32
      memref.store %f, %t[%i, %j] : memref<6x8xf32>
    }
  }
  // Columns 2..5 of every row, seen as 6 rows of 4 (row stride 8).
  %w0 = memref.subview %t[0, 2] [6, 4] [1, 1] : memref<6x8xf32> to memref<6x4xf32, strided<[8, 1], offset: 2>>
  %w = memref.cast %w0 : memref<6x4xf32, strided<[8, 1], offset: 2>> to memref<?x4xf32, strided<[?, 1], offset: ?>>
  %e = memref.expand_shape %w [[0, 1], [2]] output_shape [%c2, %c3, 4] : memref<?x4xf32, strided<[?, 1], offset: ?>> into memref<?x?x4xf32, strided<[?, ?, 1], offset: ?>>
  // CHECK: sizes = [2, 3, 4]
  // CHECK: [2,  3,  4,  5]
  // CHECK: [10,  11,  12,  13]
  // CHECK: [18,  19,  20,  21]
  // CHECK: [26,  27,  28,  29]
  // CHECK: [34,  35,  36,  37]
  // CHECK: [42,  43,  44,  45]
  %u = memref.cast %e : memref<?x?x4xf32, strided<[?, ?, 1], offset: ?>> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  %flat = memref.collapse_shape %t [[0, 1]] : memref<6x8xf32> into memref<48xf32>
  %dyn = memref.cast %flat : memref<48xf32> to memref<?xf32>
  %head = memref.subview %dyn[0] [%c12] [1] : memref<?xf32> to memref<?xf32, strided<[1]>>
  %hc = memref.cast %head : memref<?xf32, strided<[1]>> to memref<?xf32>
  %g = memref.expand_shape %hc [[0, 1]] output_shape [%c3, %c4] : memref<?xf32> into memref<?x?xf32>
  // CHECK: sizes = [3, 4]
  // CHECK: [0,  1,  2,  3]
  // CHECK: [4,  5,  6,  7]
  // CHECK: [8,  9,  10,  11]
  %gu = memref.cast %g : memref<?x?xf32> to memref<*xf32>
  call @printMemrefF32(%gu) : (memref<*xf32>) -> ()
  memref.dealloc %t : memref<6x8xf32>
  return
}
