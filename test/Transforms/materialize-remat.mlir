// RUN: memplan-opt %s -split-input-file --memplan-materialize-remat | FileCheck %s

// A checkpoint is replaced by its input; a recompute region by a copy of its
// body where it stands, block arguments by the inputs, results by what it
// yields.

// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>, %[[W:.*]]: tensor<8xf32>)
// CHECK-NOT: memplan.
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<8xf32>
// CHECK: %[[H:.*]] = linalg.exp ins(%[[X]] : tensor<8xf32>) outs(%[[E0]]
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<8xf32>
// CHECK: %[[G:.*]] = linalg.mul ins(%[[H]], %[[W]] : tensor<8xf32>, tensor<8xf32>) outs(%[[E1]]
// The recomputation: a fresh copy of the exp, reading the kept input.
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<8xf32>
// CHECK: %[[R:.*]] = linalg.exp ins(%[[X]] : tensor<8xf32>) outs(%[[E2]]
// CHECK: %[[E3:.*]] = tensor.empty() : tensor<8xf32>
// CHECK: %[[D:.*]] = linalg.mul ins(%[[G]], %[[R]] : tensor<8xf32>, tensor<8xf32>) outs(%[[E3]]
// CHECK: return %[[D]]
// CHECK-NOT: memplan.
func.func @step(%x: tensor<8xf32>, %w: tensor<8xf32>) -> tensor<8xf32> {
  %k = memplan.checkpoint %x : tensor<8xf32>
  %e0 = tensor.empty() : tensor<8xf32>
  %h = linalg.exp ins(%k : tensor<8xf32>) outs(%e0 : tensor<8xf32>) -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %g = linalg.mul ins(%h, %w : tensor<8xf32>, tensor<8xf32>) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %r = memplan.recompute(%k) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>):
    %e = tensor.empty() : tensor<8xf32>
    %v = linalg.exp ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    memplan.yield %v : tensor<8xf32>
  }
  %e3 = tensor.empty() : tensor<8xf32>
  %d = linalg.mul ins(%g, %r : tensor<8xf32>, tensor<8xf32>) outs(%e3 : tensor<8xf32>) -> tensor<8xf32>
  return %d : tensor<8xf32>
}

// -----

// A region with two results and two inputs, and a function with nothing to
// materialize (left as it is).

// CHECK-LABEL: func.func @two
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK: %[[S:.*]] = linalg.add ins(%[[A]], %[[B]] : {{.*}}) outs(%[[A]]
// CHECK: %[[P:.*]] = linalg.mul ins(%[[B]], %[[A]] : {{.*}}) outs(%[[B]]
// CHECK: %[[T:.*]] = linalg.add ins(%[[S]], %[[P]] : {{.*}}) outs(%[[S]]
// CHECK: return %[[T]]
func.func @two(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %s, %p = memplan.recompute(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    %0 = linalg.add ins(%x, %y : tensor<4xf32>, tensor<4xf32>) outs(%x : tensor<4xf32>) -> tensor<4xf32>
    %1 = linalg.mul ins(%y, %x : tensor<4xf32>, tensor<4xf32>) outs(%y : tensor<4xf32>) -> tensor<4xf32>
    memplan.yield %0, %1 : tensor<4xf32>, tensor<4xf32>
  }
  %t = linalg.add ins(%s, %p : tensor<4xf32>, tensor<4xf32>) outs(%s : tensor<4xf32>) -> tensor<4xf32>
  return %t : tensor<4xf32>
}

// CHECK-LABEL: func.func @plain
// CHECK-NEXT: linalg.add
// CHECK-NEXT: return
func.func @plain(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%a : tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
