// RUN: memplan-opt %s -allow-unregistered-dialect -split-input-file -verify-diagnostics --memplan-pack-arena
// RUN: not memplan-opt %s -allow-unregistered-dialect -split-input-file --memplan-pack-arena 2>/dev/null | FileCheck %s --check-prefix=FITS
// RUN: not memplan-opt %s -allow-unregistered-dialect -split-input-file --memplan-pack-arena="time-limit=1e10" 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: not memplan-opt %s -allow-unregistered-dialect -split-input-file --memplan-pipeline="time-limit=inf" 2>&1 | FileCheck %s --check-prefix=LIMIT-INF

// Sizes past 2^63-1 bytes used to wrap: the arena became
// memref<-9223372036854775744xi8> (invalid IR) or memref<?xi8>
// (an external fuzzing report at dd6fdc6). Now the buffer that does not fit
// is named.

// A time limit the deadline arithmetic cannot hold is refused.
// LIMIT: error: time-limit 1e+10 is not a number of seconds in (0, 1e6]
// LIMIT-INF: error: {{(milp-)?}}time-limit inf is not a number of seconds in (0, 1e6]

func.func @i64max() {
  // expected-error @+1 {{memplan-pack-arena: this buffer of 9223372036854775807 bytes, aligned to 64, needs more than 2^63-1 bytes: the arena's size would not fit an index}}
  %a = memref.alloc() : memref<9223372036854775807xi8>
  %b = memref.alloc() : memref<16xf32>
  "test.use"(%a, %b) : (memref<9223372036854775807xi8>, memref<16xf32>) -> ()
  memref.dealloc %a : memref<9223372036854775807xi8>
  memref.dealloc %b : memref<16xf32>
  return
}

// -----

func.func @sum() {
  %a = memref.alloc() : memref<4611686018427387872xi16>
  // expected-error @+1 {{memplan-pack-arena: the planned buffers of @sum up to this one total more than 2^63-1 bytes: the arena's size would not fit an index}}
  %b = memref.alloc() : memref<16xf32>
  "test.use"(%a, %b) : (memref<4611686018427387872xi16>, memref<16xf32>) -> ()
  memref.dealloc %a : memref<4611686018427387872xi16>
  memref.dealloc %b : memref<16xf32>
  return
}

// -----

// At the limit: 2^63 - 128 bytes, padded, still fit; the arena is valid.
// FITS-LABEL: func.func @fits
// FITS: memplan.arena {{.*}} : memref<9223372036854775680xi8>
func.func @fits() {
  %a = memref.alloc() : memref<9223372036854775680xi8>
  "test.use"(%a) : (memref<9223372036854775680xi8>) -> ()
  memref.dealloc %a : memref<9223372036854775680xi8>
  return
}
