// RUN: memplan-opt %s --convert-memplan-to-memref | FileCheck %s

// CHECK-LABEL: func.func @lower
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<128xi8>
// CHECK: %[[OFF:.*]] = arith.constant 64 : index
// CHECK: %[[V:.*]] = memref.view %[[ARENA]][%[[OFF]]][] : memref<128xi8> to memref<4x4xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[V]] : memref<4x4xf32>)
// CHECK: memref.dealloc %[[ARENA]] : memref<128xi8>
// CHECK-NEXT: return
// CHECK-NOT: memplan.
func.func @lower(%f: f32) {
  %arena = memplan.arena alignment(64) : memref<128xi8>
  %v = memplan.view %arena[<offset = 64, size = 64, alignment = 64>] : memref<128xi8> to memref<4x4xf32>
  linalg.fill ins(%f : f32) outs(%v : memref<4x4xf32>)
  return
}

// A function of several blocks frees its arena before every return.
// CHECK-LABEL: func.func @two_exits
// CHECK: %[[A:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64xi8>
// CHECK: cf.cond_br
// CHECK: ^bb1:
// CHECK-NEXT: memref.dealloc %[[A]] : memref<64xi8>
// CHECK-NEXT: return
// CHECK: ^bb2:
// CHECK: memref.dealloc %[[A]] : memref<64xi8>
// CHECK-NEXT: return
func.func @two_exits(%c: i1, %f: f32) {
  %arena = memplan.arena alignment(64) : memref<64xi8>
  %v = memplan.view %arena[<offset = 0, size = 64, alignment = 64>] : memref<64xi8> to memref<16xf32>
  cf.cond_br %c, ^a, ^b
^a:
  return
^b:
  linalg.fill ins(%f : f32) outs(%v : memref<16xf32>)
  return
}

// An arena in a non-default memory space is not freed: upstream's lowering
// of a dealloc calls `free` with a default-space pointer and fails there
// ('llvm.call' op operand type mismatch). The default-space arena still is.
// CHECK-LABEL: func.func @two_spaces
// CHECK-DAG: %[[A0:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64xi8>
// CHECK-DAG: %[[A1:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64xi8, 1>
// CHECK-NOT: memref.dealloc %[[A1]]
// CHECK: memref.dealloc %[[A0]] : memref<64xi8>
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @two_spaces(%f: f32) {
  %a0 = memplan.arena alignment(64) : memref<64xi8>
  %a1 = memplan.arena alignment(64) : memref<64xi8, 1>
  %v0 = memplan.view %a0[<offset = 0, size = 64, alignment = 64>] : memref<64xi8> to memref<16xf32>
  %v1 = memplan.view %a1[<offset = 0, size = 64, alignment = 64>] : memref<64xi8, 1> to memref<16xf32, 1>
  linalg.fill ins(%f : f32) outs(%v0 : memref<16xf32>)
  linalg.fill ins(%f : f32) outs(%v1 : memref<16xf32, 1>)
  return
}

// Attributes whose value holds a memplan attribute (the plan report's
// remat decisions, lifetime annotations, an array of them on a multi-result
// op, on arguments) are dropped, so the output parses without the memplan
// dialect; plain-valued ones stay.
// CHECK-LABEL: func.func @annotations
// CHECK-SAME: (%{{.*}}: index {memplan.symbols = "N"}, %{{.*}}: memref<16xf32>, %{{.*}}: memref<16xf32>)
// CHECK-SAME: -> memref<16xf32>
// CHECK-SAME: attributes {memplan.budget = 64 : i64, memplan.unplanned = "why"}
// CHECK-NOT: memplan.
// CHECK: return
func.func @annotations(%n: index {memplan.symbols = "N"}, %x: memref<16xf32>, %y: memref<16xf32> {memplan.lifetime = #memplan.lifetime<0, 2>}) -> memref<16xf32> attributes {memplan.budget = 64 : i64, memplan.unplanned = "why", memplan.remat = #memplan.remat<budget = 64, recompute_cost = 0.0, baseline_cost = 1.0, decisions = []>} {
  %r:2 = scf.execute_region -> (memref<16xf32>, memref<16xf32>) {
    scf.yield %x, %y : memref<16xf32>, memref<16xf32>
  } {memplan.lifetime = [#memplan.lifetime<2, 3>, unit]}
  return %r#0 : memref<16xf32>
}
