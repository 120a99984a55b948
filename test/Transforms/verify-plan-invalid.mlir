// RUN: memplan-opt %s -split-input-file -verify-diagnostics --memplan-verify-plan

// Hand-written plans that break a rule; one case per documented rejection.

func.func @clash(%f: f32) {
  %arena = memplan.arena alignment(64) : memref<128xi8>
  // expected-note @+1 {{clashes with this buffer: [0, 64) live on [1, 4)}}
  %a = memplan.view %arena[<offset = 0, size = 64, alignment = 64>] : memref<128xi8> to memref<16xf32>
  // expected-error @+1 {{buffers overlap in time and share bytes: [0, 64) live on [2, 4)}}
  %b = memplan.view %arena[<offset = 0, size = 64, alignment = 64>] : memref<128xi8> to memref<16xf32>
  linalg.add ins(%a, %a : memref<16xf32>, memref<16xf32>) outs(%b : memref<16xf32>)
  return
}

// -----

func.func @partial_overlap(%f: f32) {
  %arena = memplan.arena alignment(16) : memref<128xi8>
  // expected-note @+1 {{clashes with this buffer}}
  %a = memplan.view %arena[<offset = 0, size = 64, alignment = 16>] : memref<128xi8> to memref<16xf32>
  // expected-error @+1 {{buffers overlap in time and share bytes: [48, 112)}}
  %b = memplan.view %arena[<offset = 48, size = 64, alignment = 16>] : memref<128xi8> to memref<16xf32>
  linalg.add ins(%a, %a : memref<16xf32>, memref<16xf32>) outs(%b : memref<16xf32>)
  return
}

// -----

func.func @two_arenas() {
  // expected-note @+1 {{the first one}}
  %a = memplan.arena alignment(64) : memref<64xi8>
  // expected-error @+1 {{second memplan.arena in the same memory space; memplan plans one per function and memory space}}
  %b = memplan.arena alignment(64) : memref<64xi8>
  return
}

// -----

// One arena per memory space is fine; a clash is found within a space.
func.func @clash_in_second_space() {
  %a0 = memplan.arena alignment(16) : memref<64xi8>
  %a1 = memplan.arena alignment(16) : memref<128xi8, 1>
  %x = memplan.view %a0[<offset = 0, size = 64, alignment = 16>] : memref<64xi8> to memref<16xf32>
  // expected-note @+1 {{clashes with this buffer: [0, 64) live on [3, 6)}}
  %p = memplan.view %a1[<offset = 0, size = 64, alignment = 16>] : memref<128xi8, 1> to memref<16xf32, 1>
  // expected-error @+1 {{buffers overlap in time and share bytes: [32, 96)}}
  %q = memplan.view %a1[<offset = 32, size = 64, alignment = 16>] : memref<128xi8, 1> to memref<16xf32, 1>
  memref.copy %p, %q : memref<16xf32, 1> to memref<16xf32, 1>
  memref.copy %q, %x : memref<16xf32, 1> to memref<16xf32>
  return
}

// -----

func.func @foreign_arena(%bytes: memref<64xi8>) {
  %arena = memplan.arena alignment(64) : memref<64xi8>
  // expected-error @+1 {{view does not take one of its function's memplan.arenas}}
  %a = memplan.view %bytes[<offset = 0, size = 64, alignment = 64>] : memref<64xi8> to memref<16xf32>
  return
}

// -----

func.func @returned_view() -> memref<16xf32> {
  %arena = memplan.arena alignment(64) : memref<64xi8>
  // expected-error @+1 {{view escapes its function: a buffer in the arena is returned}}
  %a = memplan.view %arena[<offset = 0, size = 64, alignment = 64>] : memref<64xi8> to memref<16xf32>
  return %a : memref<16xf32>
}

// -----

// A view stored as data into the caller's table: the caller may load it
// after the arena is freed (memplan-pack-arena leaves such a buffer on the
// heap; the verifier checks it independently).
func.func @stored_view(%tab: memref<1xmemref<16xf32>>) {
  %c0 = arith.constant 0 : index
  %arena = memplan.arena alignment(64) : memref<64xi8>
  // expected-note @+1 {{the view}}
  %a = memplan.view %arena[<offset = 0, size = 64, alignment = 64>] : memref<64xi8> to memref<16xf32>
  // expected-error @+1 {{view escapes its function: a buffer in the arena is stored into memory}}
  memref.store %a, %tab[%c0] : memref<1xmemref<16xf32>>
  return
}

// -----

func.func @over_budget(%f: f32) attributes {memplan.budget = 64 : i64} {
  // expected-error @+1 {{arena of 128 bytes exceeds the budget of 64 bytes}}
  %arena = memplan.arena alignment(64) : memref<128xi8>
  %a = memplan.view %arena[<offset = 0, size = 64, alignment = 64>] : memref<128xi8> to memref<16xf32>
  linalg.fill ins(%f : f32) outs(%a : memref<16xf32>)
  return
}
