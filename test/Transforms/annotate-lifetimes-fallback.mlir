// RUN: memplan-opt %s -verify-diagnostics --memplan-annotate-lifetimes | FileCheck %s
// RUN: not memplan-opt %s --memplan-annotate-lifetimes=strict=true 2>&1 | FileCheck %s --check-prefix=STRICT

// Per-function fallback: a function the analysis rejects is left as it was
// (only marked memplan.unplanned, with the reason) and the others, at every
// module nesting level, are annotated. With strict, the first reason is an
// error and the pass fails.

// STRICT: error: unranked type 'tensor<*xf32>' is not supported: memplan plans ranked shapes

// CHECK-LABEL: func.func @unranked_helper
// CHECK-SAME: memplan.unplanned = "unranked type 'tensor<*xf32>' is not supported: memplan plans ranked shapes"
// CHECK-NOT: memplan.lifetime
// CHECK: return
// expected-warning @+1 {{memplan leaves @unranked_helper unplanned: unranked type 'tensor<*xf32>' is not supported: memplan plans ranked shapes}}
func.func @unranked_helper(%x: tensor<*xf32>) -> tensor<*xf32> {
  return %x : tensor<*xf32>
}

// CHECK-LABEL: func.func @planned
// CHECK-NOT: memplan.unplanned
// CHECK: tensor.empty() {memplan.lifetime = #memplan.lifetime<0, 4>}
func.func @planned(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %z = linalg.add ins(%y, %x : tensor<4xf32>, tensor<4xf32>) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}

// CHECK-LABEL: module @inner
module @inner {
  // CHECK-LABEL: func.func @nested_unknown_op
  // CHECK-SAME: memplan.unplanned = "memplan cannot analyse 'tensor.gather'
  func.func @nested_unknown_op(%src: tensor<4x4xf32>, %idx: tensor<2x1xi32>) -> tensor<2x4xf32> {
    // expected-warning @+1 {{memplan leaves @nested_unknown_op unplanned: memplan cannot analyse 'tensor.gather'}}
    %g = tensor.gather %src[%idx] gather_dims([0]) : (tensor<4x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
    return %g : tensor<2x4xf32>
  }
  // CHECK-LABEL: func.func @nested_planned
  // CHECK: tensor.empty() {memplan.lifetime = #memplan.lifetime<0, 4>}
  func.func @nested_planned(%x: tensor<4xf32>) -> tensor<4xf32> {
    %e = tensor.empty() : tensor<4xf32>
    %y = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %e2 = tensor.empty() : tensor<4xf32>
    %z = linalg.add ins(%y, %x : tensor<4xf32>, tensor<4xf32>) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
    return %z : tensor<4xf32>
  }
}
