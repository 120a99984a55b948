// RUN: memplan-opt %s -split-input-file --memplan-annotate-lifetimes | FileCheck %s
// The annotated IR parses and verifies again.
// RUN: memplan-opt %s -split-input-file --memplan-annotate-lifetimes | memplan-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @memref_level
// CHECK-SAME: (%{{.*}}: memref<8xf32> {memplan.lifetime = #memplan.lifetime<0, 4>}, %{{.*}}: f32)
// CHECK: memref.alloc() {memplan.lifetime = #memplan.lifetime<0, 4>} : memref<8xf32>
// CHECK: memref.alloc() {memplan.lifetime = #memplan.lifetime<2, 5>} : memref<8xf32>
// CHECK-NOT: memplan.lifetime
// CHECK: return
func.func @memref_level(%in: memref<8xf32>, %f: f32) -> memref<8xf32> {
  %a = memref.alloc() : memref<8xf32>                              // 0   [0, 4): read at 3
  linalg.copy ins(%in : memref<8xf32>) outs(%a : memref<8xf32>)    // 1
  %r = memref.alloc() : memref<8xf32>                              // 2   returned: [2, 5)
  linalg.add ins(%a, %in : memref<8xf32>, memref<8xf32>) outs(%r : memref<8xf32>)  // 3
  return %r : memref<8xf32>                                        // 4
}

// -----

// Only roots are annotated: the destination-style result and the view are not.
// CHECK-LABEL: func.func @tensor_level
// CHECK-SAME: (%{{.*}}: tensor<2x2xf32> {memplan.lifetime = #memplan.lifetime<0, 2>})
// CHECK: tensor.empty() {memplan.lifetime = #memplan.lifetime<0, 5>}
// CHECK-NEXT: linalg.exp
// CHECK-NOT: memplan.lifetime
// CHECK: tensor.collapse_shape
// CHECK-NOT: memplan.lifetime
// CHECK: return
func.func @tensor_level(%x: tensor<2x2xf32>) -> f32 {
  %e = tensor.empty() : tensor<2x2xf32>                            // 0   [0, 5): %c is read at 4
  %y = linalg.exp ins(%x : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>  // 1
  %c = tensor.collapse_shape %y [[0, 1]] : tensor<2x2xf32> into tensor<4xf32>  // 2
  %i = arith.constant 0 : index                                    // 3
  %v = tensor.extract %c[%i] : tensor<4xf32>                       // 4
  return %v : f32                                                  // 5
}

// -----

// External storage is not annotated: a call's results, constants.
func.func private @produce() -> (tensor<4xf32>, i32, tensor<2xf32>)
// CHECK-LABEL: func.func @externals
// CHECK: call @produce() :
// CHECK: arith.constant dense<1.000000e+00> : tensor<2xf32>
func.func @externals() -> tensor<2xf32> {
  %a, %n, %b = func.call @produce() : () -> (tensor<4xf32>, i32, tensor<2xf32>)  // 0
  %c = arith.constant dense<1.0> : tensor<2xf32>                   // 1
  return %b : tensor<2xf32>                                        // 2
}

// -----

// Nested functions in other ops are annotated too; declarations are left alone.
// CHECK-LABEL: func.func private @decl(memref<4xf32>)
// CHECK-LABEL: func.func @in_loop
// CHECK: scf.for
// CHECK: memref.alloc() {memplan.lifetime = #memplan.lifetime<5, 7>}
func.func private @decl(memref<4xf32>)
func.func @in_loop(%f: f32) {
  %c0 = arith.constant 0 : index                                   // 0
  %c1 = arith.constant 1 : index                                   // 1
  %c4 = arith.constant 4 : index                                   // 2
  %x = arith.constant 1.0 : f32                                    // 3
  scf.for %i = %c0 to %c4 step %c1 {                               // 4
    %t = memref.alloc() : memref<4xf32>                            // 5   [5, 7)
    linalg.fill ins(%f : f32) outs(%t : memref<4xf32>)             // 6
  }                                                                // 7
  return                                                           // 8
}
