// RUN: memplan-opt %s -split-input-file --memplan-lower-tosa-leftovers | FileCheck %s

// What tosa-to-linalg leaves in a quantized program: tosa.apply_scale in a
// linalg.generic body, and a tosa.const. Both become arith.
// CHECK-LABEL: func.func @rescale
// CHECK-NOT: tosa.
// CHECK: arith.constant dense<7> : tensor<4xi32>
// CHECK: linalg.generic
// CHECK: arith.muli
// CHECK: arith.shrsi
// CHECK-NOT: tosa.
func.func @rescale(%x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %k = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %e = tensor.empty() : tensor<4xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xi32>) outs(%e : tensor<4xi32>) {
  ^bb0(%in: i32, %out: i32):
    %m = arith.constant 1073741824 : i32
    %s = arith.constant 31 : i8
    %v = tosa.apply_scale %in, %m, %s {rounding_mode = #tosa.rounding_mode<SINGLE_ROUND>} : (i32, i32, i8) -> i32
    linalg.yield %v : i32
  } -> tensor<4xi32>
  return %r, %k : tensor<4xi32>, tensor<4xi32>
}

// -----

// No TOSA op: nothing changes (upstream's conversion would have folded the
// insert into the constant).
// CHECK-LABEL: func.func @no_tosa
// CHECK: %[[C:.*]] = arith.constant dense<4.000000e+00> : tensor<4xf32>
// CHECK: %[[V:.*]] = arith.constant 4.000000e+00 : f32
// CHECK: %[[I:.*]] = tensor.insert %[[V]] into %[[C]][%{{.*}}] : tensor<4xf32>
// CHECK: return %[[I]]
func.func @no_tosa(%i : index) -> tensor<4xf32> {
  %0 = arith.constant dense<4.0> : tensor<4xf32>
  %1 = arith.constant 4.0 : f32
  %2 = tensor.insert %1 into %0[%i] : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// TOSA and other ops in one module: only the TOSA op changes.
// CHECK-LABEL: func.func @mixed
// CHECK: %[[C:.*]] = arith.constant dense<4.000000e+00> : tensor<4xf32>
// CHECK: %[[V:.*]] = arith.constant 4.000000e+00 : f32
// CHECK: %[[I:.*]] = tensor.insert %[[V]] into %[[C]][%{{.*}}] : tensor<4xf32>
// CHECK: %[[K:.*]] = arith.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NOT: tosa.
// CHECK: return %[[I]], %[[K]]
func.func @mixed(%i : index) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = arith.constant dense<4.0> : tensor<4xf32>
  %1 = arith.constant 4.0 : f32
  %2 = tensor.insert %1 into %0[%i] : tensor<4xf32>
  %k = "tosa.const"() <{values = dense<1.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  return %2, %k : tensor<4xf32>, tensor<4xf32>
}
