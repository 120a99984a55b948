// RUN: memplan-opt %s --memplan-lower-dynamic-expand-shape | FileCheck %s
// RUN: memplan-opt %s --memplan-lower-dynamic-expand-shape | mlir-opt --expand-strided-metadata -o /dev/null

// Two dynamic sizes in one group (what upstream expand-strided-metadata
// crashes on in LLVM 22) become a reinterpret_cast of the source's base with
// the output sizes and strides computed from the source's.
// CHECK-LABEL: func.func @split_rows
// CHECK-SAME: (%[[M:.*]]: memref<?x8xf32>, %[[B:.*]]: index, %[[S:.*]]: index)
// CHECK: %[[BASE:.*]], %{{.*}}, %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[M]]
// CHECK: %[[ROW:.*]] = arith.muli %{{.*}}, %[[S]] : index
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [%[[B]], %[[S]], 2, 4], strides: [%[[ROW]], 8, 4, 1] : memref<f32> to memref<?x?x2x4xf32>
// CHECK-NOT: memref.expand_shape
func.func @split_rows(%m: memref<?x8xf32>, %b: index, %s: index) -> memref<?x?x2x4xf32> {
  %e = memref.expand_shape %m [[0, 1], [2, 3]] output_shape [%b, %s, 2, 4] : memref<?x8xf32> into memref<?x?x2x4xf32>
  return %e : memref<?x?x2x4xf32>
}

// A strided source with a dynamic offset: the offset and the strides come
// from its metadata.
// CHECK-LABEL: func.func @strided
// CHECK: %[[BASE:.*]], %[[OFF:.*]], %{{.*}}:2, %[[ST:.*]]:2 = memref.extract_strided_metadata
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [%[[OFF]]], sizes: [%{{.*}}, %{{.*}}, 4], strides: [%{{.*}}, %[[ST]]#0, 1]
func.func @strided(%m: memref<?x4xf32, strided<[?, 1], offset: ?>>, %b: index, %s: index) -> memref<?x?x4xf32, strided<[?, ?, 1], offset: ?>> {
  %e = memref.expand_shape %m [[0, 1], [2]] output_shape [%b, %s, 4] : memref<?x4xf32, strided<[?, 1], offset: ?>> into memref<?x?x4xf32, strided<[?, ?, 1], offset: ?>>
  return %e : memref<?x?x4xf32, strided<[?, ?, 1], offset: ?>>
}

// One dynamic size per group is left to upstream.
// CHECK-LABEL: func.func @one_dynamic
// CHECK: memref.expand_shape
func.func @one_dynamic(%m: memref<?xf32>, %b: index) -> memref<?x4xf32> {
  %e = memref.expand_shape %m [[0, 1]] output_shape [%b, 4] : memref<?xf32> into memref<?x4xf32>
  return %e : memref<?x4xf32>
}
