// RUN: memplan-opt %s --test-memplan-print-remat -o /dev/null | FileCheck %s

// `memplan.cost` overrides the estimated cost of an op (docs/CostModel.md):
// the node's cost is the sum over its chain, here 0 (tensor.empty) + 1000
// (the override) instead of 4 (4 iterations x 1 payload op).
// CHECK-LABEL: remat graph of @override (1 nodes)
// CHECK-NEXT: node 0: tensor.empty [external] 0 B cost 1000 reads []
func.func @override(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.exp {memplan.cost = 1000 : i64} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// A float override counts the same way.
// CHECK-LABEL: remat graph of @float_override (1 nodes)
// CHECK-NEXT: node 0: tensor.empty [external] 0 B cost 2.5 reads []
func.func @float_override(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.exp {memplan.cost = 2.5 : f64} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
