// RUN: memplan-opt %s -verify-diagnostics --memplan-drop-transform-scripts | FileCheck %s

// A transform script beside the payload is dropped with a located warning;
// the payload is unchanged.
// CHECK-LABEL: module
// CHECK-NOT: transform.
// CHECK: func.func @payload
// CHECK-NEXT: linalg.add
// CHECK-NOT: transform.
module attributes {transform.with_named_sequence} {
  func.func @payload(%a: tensor<4xf32>) -> tensor<4xf32> {
    %r = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%a : tensor<4xf32>) -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
  // expected-warning @+1 {{memplan drops the transform script 'transform.named_sequence @__transform_main': apply it first with --transform-interpreter if the program needs it}}
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.yield
  }
}
