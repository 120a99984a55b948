// RUN: memplan-opt %s --split-input-file --convert-memplan-to-gpu --verify-diagnostics

func.func @stack(%f: f32) {
  // expected-error @+1 {{memref.alloca in a device function: kernels cannot read host stack memory}}
  %s = memref.alloca() : memref<4xf32>
  linalg.fill ins(%f : f32) outs(%s : memref<4xf32>)
  return
}

// -----

memref.global "private" @state : memref<4xf32> = dense<0.0>
func.func @mutable_global(%out: memref<4xf32>) {
  // expected-error @+1 {{memref.get_global of a non-constant global in a device function: its host memory is not visible to kernels}}
  %g = memref.get_global @state : memref<4xf32>
  linalg.copy ins(%g : memref<4xf32>) outs(%out : memref<4xf32>)
  return
}

// -----

func.func @nested_arena(%c: i1) {
  scf.if %c {
    // expected-error @+1 {{memplan.arena must be in the entry block of a function body}}
    %arena = memplan.arena alignment(64) : memref<64xi8>
  }
  return
}

// -----

func.func @arena_in_other_space() {
  // expected-error @+1 {{memplan.arena in memory space 1 in a device function: the device arena is in the default (global) memory space}}
  %a = memplan.arena alignment(64) : memref<64xi8, 1>
  return
}

// -----

func.func @view_in_parallel_loop(%f: f32) {
  %arena = memplan.arena alignment(64) : memref<64xi8>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-note @+1 {{parallel loop}}
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    // expected-error @+1 {{planned buffer inside 'scf.parallel' in a device function: its iterations run at once on the device and would share the buffer's one slot}}
    %v = memplan.view %arena[<offset = 0, size = 64, alignment = 64>] : memref<64xi8> to memref<16xf32>
    memref.store %f, %v[%i] : memref<16xf32>
    scf.reduce
  }
  return
}

// -----

func.func @dynamic_view_in_parallel(%bytes: index, %off: index, %n: index, %f: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %arena = memplan.arena alignment(64) size(%bytes) : memref<?xi8>
  // expected-note @+1 {{parallel loop}}
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    // expected-error @+1 {{planned buffer inside 'scf.parallel' in a device function: its iterations run at once on the device and would share the buffer's one slot}}
    %v = memplan.dynamic_view %arena[%off] [%n] alignment(64) : memref<?xi8> to memref<?xf32>
    linalg.fill ins(%f : f32) outs(%v : memref<?xf32>)
    scf.reduce
  }
  return
}
