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
