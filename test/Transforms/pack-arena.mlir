// RUN: memplan-opt %s -split-input-file --memplan-pack-arena --memplan-verify-plan | FileCheck %s
// RUN: memplan-opt %s -split-input-file --memplan-pack-arena="algorithm=greedy-size" --memplan-verify-plan | FileCheck %s
// RUN: memplan-opt %s -split-input-file --memplan-pack-arena="algorithm=greedy-time" --memplan-verify-plan | FileCheck %s
// RUN: memplan-opt %s -split-input-file --memplan-pack-arena="algorithm=exact" --memplan-verify-plan | FileCheck %s
// RUN: memplan-opt %s -split-input-file --memplan-pack-arena="alignment=16" --memplan-verify-plan | FileCheck %s --check-prefix=ALIGN16

// Allocations become views; their deallocs disappear; two buffers whose
// lifetimes do not overlap share bytes.
// CHECK-LABEL: func.func @reuse
// CHECK: %[[ARENA:.*]] = memplan.arena alignment(64) : memref<64xi8>
// CHECK: memplan.view %[[ARENA]][<offset = 0, size = 64, alignment = 64>] : memref<64xi8> to memref<16xf32>
// CHECK: memplan.view %[[ARENA]][<offset = 0, size = 64, alignment = 64>] : memref<64xi8> to memref<8xf32>
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
// ALIGN16-LABEL: func.func @reuse
// ALIGN16: memplan.arena alignment(16) : memref<64xi8>
// ALIGN16: memplan.view %{{.*}}[<offset = 0, size = 64, alignment = 16>]
// ALIGN16: memplan.view %{{.*}}[<offset = 0, size = 32, alignment = 16>]
// ALIGN16-LABEL: func.func @own_alignment
// ALIGN16: memplan.arena alignment(256) : memref<272xi8>
func.func @reuse(%f: f32, %out: memref<8xf32>) {
  %a = memref.alloc() : memref<16xf32>                             // 0   a: [0, 2)
  linalg.fill ins(%f : f32) outs(%a : memref<16xf32>)              // 1
  memref.dealloc %a : memref<16xf32>                               // 2   not a use
  %b = memref.alloc() : memref<8xf32>                              // 3   b: [3, 5)
  linalg.copy ins(%b : memref<8xf32>) outs(%out : memref<8xf32>)   // 4
  memref.dealloc %b : memref<8xf32>                                // 5
  return                                                           // 6
}

// -----

// Overlapping buffers get disjoint bytes; the arena is the lower bound.
// CHECK-LABEL: func.func @overlap
// CHECK: memplan.arena alignment(64) : memref<192xi8>
// CHECK-DAG: memplan.view %{{.*}}[<offset = {{0|64|128}}, size = 64, alignment = 64>]
// CHECK-NOT: memref.alloc()
func.func @overlap(%f: f32) {
  %a = memref.alloc() : memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  %c = memref.alloc() : memref<16xf32>
  linalg.add ins(%a, %b : memref<16xf32>, memref<16xf32>) outs(%c : memref<16xf32>)
  return
}

// -----

// Escaping allocations stay: returned, or passed to a call that may keep
// them (an alias escapes its root too).
func.func private @keep(memref<4x4xf32>)
// CHECK-LABEL: func.func @escapes
// CHECK: memplan.arena alignment(64) : memref<64xi8>
// CHECK: %[[R:.*]] = memref.alloc() : memref<16xf32>
// CHECK: %[[C:.*]] = memref.alloc() : memref<16xf32>
// CHECK: memref.expand_shape %[[C]]
// CHECK: memplan.view
// CHECK: memref.dealloc %[[C]]
// CHECK: return %[[R]]
func.func @escapes(%f: f32) -> memref<16xf32> {
  %r = memref.alloc() : memref<16xf32>
  linalg.fill ins(%f : f32) outs(%r : memref<16xf32>)
  %c = memref.alloc() : memref<16xf32>
  %e = memref.expand_shape %c [[0, 1]] output_shape [4, 4] : memref<16xf32> into memref<4x4xf32>
  func.call @keep(%e) : (memref<4x4xf32>) -> ()
  %t = memref.alloc() : memref<16xf32>
  linalg.fill ins(%f : f32) outs(%t : memref<16xf32>)
  memref.dealloc %c : memref<16xf32>
  memref.dealloc %t : memref<16xf32>
  return %r : memref<16xf32>
}

// -----

// An allocation inside a loop body is planned per iteration; a buffer read
// in the loop lives until the loop ends, so the two never share bytes.
// CHECK-LABEL: func.func @in_loop
// CHECK: memplan.arena alignment(64) : memref<128xi8>
// CHECK: %[[A:.*]] = memplan.view %{{.*}}[<offset = [[OA:[0-9]+]], size = 64, alignment = 64>]
// CHECK: scf.for
// CHECK: memplan.view %{{.*}}[<offset = [[OT:[0-9]+]], size = 64, alignment = 64>]
// CHECK-NOT: memref.alloc
func.func @in_loop(%f: f32) {
  %a = memref.alloc() : memref<16xf32>
  linalg.fill ins(%f : f32) outs(%a : memref<16xf32>)
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %t = memref.alloc() : memref<16xf32>
    linalg.copy ins(%a : memref<16xf32>) outs(%t : memref<16xf32>)
    memref.dealloc %t : memref<16xf32>
  }
  return
}

// -----

// Views of a buffer keep it alive: %a's subview is read after %b is created,
// so %a and %b overlap and get different bytes.
// CHECK-LABEL: func.func @aliasing_views
// CHECK: memplan.arena alignment(64) : memref<128xi8>
// CHECK: memref.subview
func.func @aliasing_views(%f: f32, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<16xf32>
  %s = memref.subview %a[4] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: 4>>
  %b = memref.alloc() : memref<16xf32>
  linalg.fill ins(%f : f32) outs(%b : memref<16xf32>)
  linalg.copy ins(%s : memref<4xf32, strided<[1], offset: 4>>) outs(%out : memref<4xf32>)
  return
}

// -----

// An allocation's own larger alignment wins for it; sizes round up to the
// alignment; the arena takes the largest.
// CHECK-LABEL: func.func @own_alignment
// CHECK: memplan.arena alignment(256) : memref<320xi8>
// CHECK: memplan.view %{{.*}}[<offset = 0, size = 256, alignment = 256>] : memref<320xi8> to memref<3xf32>
// CHECK: memplan.view %{{.*}}[<offset = 256, size = 64, alignment = 64>] : memref<320xi8> to memref<3xf32>
func.func @own_alignment(%f: f32) {
  %a = memref.alloc() {alignment = 256 : i64} : memref<3xf32>
  %b = memref.alloc() : memref<3xf32>
  linalg.add ins(%a, %a : memref<3xf32>, memref<3xf32>) outs(%b : memref<3xf32>)
  return
}

// -----

// Nothing to plan: no arena.
// CHECK-LABEL: func.func @nothing
// CHECK-NOT: memplan.arena
func.func @nothing(%a: memref<4xf32>) -> memref<4xf32> {
  return %a : memref<4xf32>
}
