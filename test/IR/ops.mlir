// RUN: memplan-opt -allow-unregistered-dialect %s | memplan-opt -allow-unregistered-dialect | FileCheck %s
// RUN: memplan-opt -allow-unregistered-dialect %s --mlir-print-op-generic | memplan-opt -allow-unregistered-dialect | FileCheck %s
// RUN: memplan-opt -allow-unregistered-dialect %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @arena_and_views
// CHECK: %[[A:.*]] = memplan.arena alignment(64) : memref<256xi8>
// CHECK: memplan.view %[[A]][<offset = 0, size = 64, alignment = 64>] : memref<256xi8> to memref<4x4xf32>
// CHECK: memplan.view %[[A]][<offset = 64, size = 192, alignment = 64>] : memref<256xi8> to memref<3x5xf64>
// GENERIC: "memplan.arena"() <{alignment = 64 : i64}> : () -> memref<256xi8>
// GENERIC: "memplan.view"(%{{.*}}) <{placement = #memplan.placement<offset = 0, size = 64, alignment = 64>}>
func.func @arena_and_views() {
  %arena = memplan.arena alignment(64) : memref<256xi8>
  %a = memplan.view %arena[<offset = 0, size = 64, alignment = 64>] : memref<256xi8> to memref<4x4xf32>
  %b = memplan.view %arena[<offset = 64, size = 192, alignment = 64>] : memref<256xi8> to memref<3x5xf64>
  return
}

// CHECK-LABEL: func.func @dynamic_arena_and_views
// CHECK: %[[A:.*]] = memplan.arena alignment(64) size(%{{.*}}) : memref<?xi8>
// CHECK: memplan.dynamic_view %[[A]][%{{.*}}] [%{{.*}}] alignment(64) : memref<?xi8> to memref<?x4xf32>
// CHECK: memplan.dynamic_view %[[A]][%{{.*}}] [] alignment(64) : memref<?xi8> to memref<2x4xf32>
// GENERIC: "memplan.arena"(%{{.*}}) <{alignment = 64 : i64}> : (index) -> memref<?xi8>
// GENERIC: "memplan.dynamic_view"(%{{.*}}, %{{.*}}, %{{.*}}) <{alignment = 64 : i64}> : (memref<?xi8>, index, index) -> memref<?x4xf32>
func.func @dynamic_arena_and_views(%n: index, %bytes: index, %offset: index) {
  %arena = memplan.arena alignment(64) size(%bytes) : memref<?xi8>
  %a = memplan.dynamic_view %arena[%offset][%n] alignment(64) : memref<?xi8> to memref<?x4xf32>
  %b = memplan.dynamic_view %arena[%offset][] alignment(64) : memref<?xi8> to memref<2x4xf32>
  return
}

// CHECK-LABEL: func.func @lifetime_annotations
// CHECK-SAME: memplan.lifetime = #memplan.lifetime<0, 3>
// CHECK: memref.alloc() {memplan.lifetime = #memplan.lifetime<1, 2>}
// CHECK: test.op_multi_result_hint
// GENERIC: memplan.lifetime = [#memplan.lifetime<2, 3>, unit]
func.func @lifetime_annotations(%arg0: memref<4xf32> {memplan.lifetime = #memplan.lifetime<0, 3>}) {
  %0 = memref.alloc() {memplan.lifetime = #memplan.lifetime<1, 2>} : memref<4xf32>
  %1:2 = "test.op_multi_result_hint"() {memplan.lifetime = [#memplan.lifetime<2, 3>, unit]} : () -> (memref<4xf32>, i32)
  return
}

// CHECK-LABEL: func.func @checkpoint_and_recompute
// CHECK: %[[K:.*]] = memplan.checkpoint %{{.*}} : tensor<4xf32>
// CHECK: memplan.recompute(%[[K]], %{{.*}}) : (tensor<4xf32>, f32) -> tensor<4xf32> {
// CHECK: ^bb0(%[[X:.*]]: tensor<4xf32>, %{{.*}}: f32):
// CHECK: memplan.yield %{{.*}} : tensor<4xf32>
// GENERIC: "memplan.checkpoint"
// GENERIC: "memplan.recompute"
// GENERIC: "memplan.yield"
func.func @checkpoint_and_recompute(%x: tensor<4xf32>, %s: f32) -> tensor<4xf32> {
  %k = memplan.checkpoint %x : tensor<4xf32>
  %r = memplan.recompute(%k, %s) : (tensor<4xf32>, f32) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: f32):
    %e = tensor.empty() : tensor<4xf32>
    %f = linalg.fill ins(%b : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %y = linalg.add ins(%a, %f : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    memplan.yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// CHECK-LABEL: func.func @recompute_nothing_in
// CHECK: memplan.recompute() : () -> tensor<2xi8>
func.func @recompute_nothing_in() -> tensor<2xi8> {
  %r = memplan.recompute() : () -> tensor<2xi8> {
    %e = tensor.empty() : tensor<2xi8>
    memplan.yield %e : tensor<2xi8>
  }
  return %r : tensor<2xi8>
}

// The typed discardable attributes round-trip; costs print exactly.
// CHECK-LABEL: func.func @remat_decisions
// CHECK-SAME: memplan.budget = 4096 : i64
// CHECK-SAME: memplan.remat = #memplan.remat<budget = 4096, recompute_cost = 0.25, baseline_cost = 1.0e+01, decisions = [#memplan.remat_decision<recompute, "linalg.exp at \22a.mlir\22:3:5", bytes = 64, cost = 0.25>, #memplan.remat_decision<keep, "x", bytes = 0, cost = 0.0>]>
// GENERIC: memplan.remat = #memplan.remat<budget = 4096
func.func @remat_decisions() attributes {memplan.budget = 4096 : i64, memplan.remat = #memplan.remat<budget = 4096, recompute_cost = 0.25, baseline_cost = 10.0, decisions = [#memplan.remat_decision<recompute, "linalg.exp at \"a.mlir\":3:5", bytes = 64, cost = 0.25>, #memplan.remat_decision<keep, "x", bytes = 0, cost = 0.0>]>} {
  return
}

// CHECK-LABEL: func.func @remat_no_decisions
// CHECK-SAME: memplan.remat = #memplan.remat<budget = 0, recompute_cost = 0.0, baseline_cost = 0.1, decisions = []>
// CHECK-LABEL: func.func @remat_exact
// CHECK-SAME: #memplan.remat<budget = 1, recompute_cost = 1234567.0, baseline_cost = 1.0000000000000002e+300, decisions = []>
func.func @remat_no_decisions() attributes {memplan.remat = #memplan.remat<budget = 0, recompute_cost = 0.0, baseline_cost = 0.1, decisions = []>} {
  return
}

func.func @remat_exact() attributes {memplan.remat = #memplan.remat<budget = 1, recompute_cost = 1234567.0, baseline_cost = 1.0000000000000002e300, decisions = []>} {
  return
}
