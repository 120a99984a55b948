// RUN: memplan-opt %s --split-input-file --convert-memplan-to-gpu | FileCheck %s

// The arena becomes the runtime's cached device allocation (one per
// function, made on the first call), views index it at their offsets.
// CHECK-DAG: llvm.mlir.global internal @__memplan_arena.step() {{.*}} : !llvm.ptr
// CHECK-DAG: func.func private @memplan_arena_acquire(!llvm.ptr, i64) -> memref<?xi8> attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @step
// CHECK: %[[SLOT:.*]] = llvm.mlir.addressof @__memplan_arena.step : !llvm.ptr
// CHECK: %[[BYTES:.*]] = arith.constant 128 : i64
// CHECK: %[[DEV:.*]] = call @memplan_arena_acquire(%[[SLOT]], %[[BYTES]]) : (!llvm.ptr, i64) -> memref<?xi8>
// CHECK: %[[ARENA:.*]] = memref.cast %[[DEV]] : memref<?xi8> to memref<128xi8>
// CHECK: %[[OFF:.*]] = arith.constant 64 : index
// CHECK: memref.view %[[ARENA]][%[[OFF]]][] : memref<128xi8> to memref<4x4xf32>
// Returned buffers are device allocations of their own.
// CHECK: %[[R:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: return %[[R]]
// CHECK-NOT: memplan.arena
// CHECK-NOT: memref.alloc
func.func @step(%f: f32) -> memref<4xf32> {
  %arena = memplan.arena alignment(64) : memref<128xi8>
  %v = memplan.view %arena[<offset = 64, size = 64, alignment = 64>] : memref<128xi8> to memref<4x4xf32>
  linalg.fill ins(%f : f32) outs(%v : memref<4x4xf32>)
  %r = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  linalg.fill ins(%f : f32) outs(%r : memref<4xf32>)
  return %r : memref<4xf32>
}

// -----

// Two functions, two slots; a dealloc of a device buffer becomes gpu.dealloc.
// CHECK-DAG: llvm.mlir.global internal @__memplan_arena.a()
// CHECK-DAG: llvm.mlir.global internal @__memplan_arena.b()
// CHECK-LABEL: func.func @a
// CHECK: llvm.mlir.addressof @__memplan_arena.a
// CHECK: %[[T:.*]] = gpu.alloc () : memref<8xf32>
// CHECK: gpu.dealloc %[[T]] : memref<8xf32>
// CHECK-LABEL: func.func @b
// CHECK: llvm.mlir.addressof @__memplan_arena.b
func.func @a(%f: f32) {
  %arena = memplan.arena alignment(64) : memref<64xi8>
  %v = memplan.view %arena[<offset = 0, size = 64, alignment = 64>] : memref<64xi8> to memref<16xf32>
  linalg.fill ins(%f : f32) outs(%v : memref<16xf32>)
  %t = memref.alloc() : memref<8xf32>
  linalg.fill ins(%f : f32) outs(%t : memref<8xf32>)
  memref.dealloc %t : memref<8xf32>
  return
}
func.func @b(%f: f32) {
  %arena = memplan.arena alignment(64) : memref<64xi8>
  %v = memplan.view %arena[<offset = 0, size = 64, alignment = 64>] : memref<64xi8> to memref<16xf32>
  linalg.fill ins(%f : f32) outs(%v : memref<16xf32>)
  return
}

// -----

// A constant global is copied to the device once (one slot per global, shared
// by its uses); kernels read the copy.
// CHECK-DAG: llvm.mlir.global internal @__memplan_constant.__constant_2xf32()
// CHECK-DAG: func.func private @memplan_constant_acquire(!llvm.ptr, i64, i64) -> memref<?xi8>
// CHECK-LABEL: func.func @uses_constant
// CHECK: %[[G:.*]] = memref.get_global @__constant_2xf32 : memref<2xf32>
// CHECK: %[[SLOT:.*]] = llvm.mlir.addressof @__memplan_constant.__constant_2xf32
// CHECK: %[[HOST:.*]] = memref.extract_aligned_pointer_as_index %[[G]]
// CHECK: %[[H64:.*]] = arith.index_cast %[[HOST]] : index to i64
// CHECK: %[[N:.*]] = arith.constant 8 : i64
// CHECK: %[[DEV:.*]] = call @memplan_constant_acquire(%[[SLOT]], %[[H64]], %[[N]])
// CHECK: %[[C:.*]] = memref.view %[[DEV]][%{{.*}}][] : memref<?xi8> to memref<2xf32>
// CHECK: linalg.copy ins(%[[C]] : memref<2xf32>) outs(%arg0 : memref<2xf32>)
// CHECK: llvm.mlir.addressof @__memplan_constant.__constant_2xf32
// CHECK-NOT: @__memplan_constant.__constant_2xf32_0
memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[1.0, 2.0]>
func.func @uses_constant(%out: memref<2xf32>) {
  %g = memref.get_global @__constant_2xf32 : memref<2xf32>
  linalg.copy ins(%g : memref<2xf32>) outs(%out : memref<2xf32>)
  %g2 = memref.get_global @__constant_2xf32 : memref<2xf32>
  linalg.copy ins(%g2 : memref<2xf32>) outs(%out : memref<2xf32>)
  return
}

// -----

// Host functions (memplan.host) are the driver: left as they are.
// CHECK-LABEL: func.func @driver
// CHECK: memref.alloc() : memref<4xf32>
// CHECK-NOT: memplan_arena_acquire
// CHECK: return
func.func @driver(%f: f32) attributes {memplan.host} {
  %h = memref.alloc() : memref<4xf32>
  linalg.fill ins(%f : f32) outs(%h : memref<4xf32>)
  memref.dealloc %h : memref<4xf32>
  return
}

// -----

// Dynamic shapes: an arena sized at run time passes its size to the runtime
// (which grows the function's arena when a call needs more); a dynamic view
// indexes it at its run-time offset; a buffer of run-time size left on the
// heap is a gpu.alloc of that size.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[N:.*]]: index, %[[BYTES:.*]]: index, %[[OFF:.*]]: index
// CHECK: %[[SLOT:.*]] = llvm.mlir.addressof @__memplan_arena.dynamic : !llvm.ptr
// CHECK: %[[B64:.*]] = arith.index_cast %[[BYTES]] : index to i64
// CHECK: %[[DEV:.*]] = call @memplan_arena_acquire(%[[SLOT]], %[[B64]]) : (!llvm.ptr, i64) -> memref<?xi8>
// CHECK: memref.view %{{.*}}[%[[OFF]]][%[[N]]] : memref<?xi8> to memref<?x4xf32>
// CHECK: %[[R:.*]] = gpu.alloc (%[[N]]) : memref<?xf32>
// CHECK: return %[[R]]
func.func @dynamic(%n: index, %bytes: index, %offset: index, %f: f32) -> memref<?xf32> {
  %arena = memplan.arena alignment(64) size(%bytes) : memref<?xi8>
  %v = memplan.dynamic_view %arena[%offset] [%n] alignment(64) : memref<?xi8> to memref<?x4xf32>
  linalg.fill ins(%f : f32) outs(%v : memref<?x4xf32>)
  %r = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%f : f32) outs(%r : memref<?xf32>)
  return %r : memref<?xf32>
}
