// The pass exports its remat graph for memplan-remat (networkx node-link
// JSON); memplan-remat reads it back and plans it.
// RUN: memplan-opt %s --memplan-insert-remat="export-graph=%t.json" -o /dev/null
// RUN: FileCheck %s --input-file=%t.json
// RUN: memplan-remat --input %t.json | FileCheck %s --check-prefix=TOOL
// RUN: not memplan-opt %s --memplan-insert-remat="export-graph=%t.missing/g.json" 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: "graph": {
// CHECK-NEXT: "function": "step"
// CHECK: "links": [
// CHECK-NEXT: {
// CHECK-NEXT: "source": 0,
// CHECK-NEXT: "target": 1
// CHECK: "nodes": [
// CHECK-NEXT: {
// CHECK-NEXT: "backward": false,
// CHECK-NEXT: "cost_cpu": 8,
// CHECK-NEXT: "cost_ram": 32,
// CHECK-NEXT: "id": 0,
// CHECK-NEXT: "name": "tensor.empty @ {{.*}}insert-remat-export.mlir:{{[0-9]+}}:9"
// CHECK: "backward": true,
// CHECK-NEXT: "cost_cpu": 8,
// CHECK-NEXT: "cost_ram": 0,
// CHECK-NEXT: "id": 2,
// TOOL: cost=25 baseline_cost=25 overhead=0.0000 peak=
// BAD: error: cannot write the remat graph to '{{.*}}missing/g.json'
func.func @step(%x: tensor<8xf32>, %dy: tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>) {
  %e0 = tensor.empty() : tensor<8xf32>
  %h = linalg.exp ins(%x : tensor<8xf32>) outs(%e0 : tensor<8xf32>) -> tensor<8xf32>
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%z : f32) outs(%e1 : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce ins(%h : tensor<8xf32>) outs(%z0 : tensor<f32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  %e2 = tensor.empty() : tensor<8xf32>
  %g = linalg.mul ins(%dy, %h : tensor<8xf32>, tensor<8xf32>) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
  return %loss, %g : tensor<f32>, tensor<8xf32>
}
