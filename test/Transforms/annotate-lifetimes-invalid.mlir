// RUN: memplan-opt %s -split-input-file -verify-diagnostics --memplan-annotate-lifetimes=strict=true
// RUN: not memplan-opt %s -split-input-file --memplan-annotate-lifetimes=strict=true 2>&1 | FileCheck %s --check-prefix=EXIT
// Without strict, the same functions are left unplanned with warnings:
// annotate-lifetimes-fallback.mlir.
// EXIT: error:

// One case per rejection documented in Passes.td.

// Dynamic shapes are analysed (their sizes are symbolic): see
// print-lifetimes-dynamic.mlir.

// expected-error @+1 {{unranked type 'memref<*xf32>' is not supported: memplan plans ranked shapes}}
func.func @unranked(%x: memref<*xf32>) {
  return
}

// -----

func.func @scalable_elements() {
  // expected-error @+1 {{element type 'vector<[4]xf32>' of 'memref<4xvector<[4]xf32>>' has no storage size in the data layout}}
  %a = memref.alloc() : memref<4xvector<[4]xf32>>
  return
}

// -----

func.func @overflow() {
  // expected-error @+1 {{the size of 'tensor<4611686018427387904x8xf32>' overflows 64 bits}}
  %e = tensor.empty() : tensor<4611686018427387904x8xf32>
  return
}

// -----

func.func @carried_in_cfg(%x: memref<16xf32>, %c: i1) {
  cf.br ^header(%x : memref<16xf32>)
// expected-note @+1 {{an earlier instance is still live here}}
^header(%cur: memref<16xf32>):
  cf.cond_br %c, ^body, ^exit
^body:
  // expected-error @+1 {{buffer allocated inside a loop of blocks is carried across iterations; memplan cannot plan loop-carried allocations}}
  %new = memref.alloc() : memref<16xf32>
  linalg.add ins(%cur, %cur : memref<16xf32>, memref<16xf32>) outs(%new : memref<16xf32>)
  cf.br ^header(%new : memref<16xf32>)
^exit:
  return
}

// -----

// The same when the allocation is nested in a region op of the loop's body
// and the older instance is read after it inside that op (found by review:
// the check once looked only at the body's top-level ops).
func.func @carried_in_cfg_nested(%x: memref<16xf32>, %c: i1) {
  cf.br ^header(%x : memref<16xf32>)
// expected-note @+1 {{an earlier instance is still live here}}
^header(%cur: memref<16xf32>):
  cf.cond_br %c, ^body, ^exit
^body:
  %r = scf.if %c -> memref<16xf32> {
    // expected-error @+1 {{buffer allocated inside a loop of blocks is carried across iterations; memplan cannot plan loop-carried allocations}}
    %new = memref.alloc() : memref<16xf32>
    linalg.add ins(%cur, %cur : memref<16xf32>, memref<16xf32>) outs(%new : memref<16xf32>)
    scf.yield %new : memref<16xf32>
  } else {
    scf.yield %cur : memref<16xf32>
  }
  cf.br ^header(%r : memref<16xf32>)
^exit:
  return
}

// -----

// An alias of the older instance made inside the region op before the
// allocation and read after it.
func.func @carried_in_cfg_alias(%x: memref<16xf32>, %c: i1) {
  cf.br ^header(%x : memref<16xf32>)
// expected-note @+1 {{an earlier instance is still live here}}
^header(%cur: memref<16xf32>):
  cf.cond_br %c, ^body, ^exit
^body:
  %r = scf.execute_region -> memref<16xf32> {
    %v = memref.cast %cur : memref<16xf32> to memref<?xf32>
    // expected-error @+1 {{buffer allocated inside a loop of blocks is carried across iterations}}
    %new = memref.alloc() : memref<16xf32>
    %vs = memref.cast %v : memref<?xf32> to memref<16xf32>
    linalg.add ins(%vs, %vs : memref<16xf32>, memref<16xf32>) outs(%new : memref<16xf32>)
    scf.yield %new : memref<16xf32>
  }
  cf.br ^header(%r : memref<16xf32>)
^exit:
  return
}

// -----

// An unreachable block: nothing forwards to its argument.
func.func @unforwarded_block_argument(%x: memref<16xf32>) {
  return
// expected-error @+1 {{memplan cannot tell where the buffer of this block argument comes from: no predecessor forwards it}}
^dead(%m: memref<16xf32>):
  return
}

// -----

func.func @multi_block_region() {
  // expected-error @+1 {{region #0 of 'scf.execute_region' has 2 blocks; memplan supports single-block regions only}}
  scf.execute_region {
    cf.br ^bb1
  ^bb1:
    scf.yield
  }
  return
}

// -----

func.func @unknown_op(%src: tensor<4x4xf32>, %idx: tensor<2x1xi32>) {
  // expected-error @+1 {{memplan cannot analyse 'tensor.gather': it produces a tensor or memref and memplan does not know whether it allocates a new buffer or aliases an operand}}
  %0 = tensor.gather %src[%idx] gather_dims([0]) : (tensor<4x4xf32>, tensor<2x1xi32>) -> tensor<2x1x4xf32>
  return
}

// -----

func.func @buffer_in_payload(%x: tensor<4xf32>) {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%x : tensor<4xf32>) {
  ^bb0(%out: f32):
    // expected-error @+1 {{tensor or memref produced inside the payload region of 'linalg.generic' is not supported}}
    %t = tensor.empty() : tensor<2xf32>
    linalg.yield %out : f32
  } -> tensor<4xf32>
  return
}

// -----

// The result is copied out: a returned buffer would be the caller's (never
// planned), and could be carried (annotate-lifetimes.mlir).
func.func @loop_carried_alloc(%f: f32, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %init = memref.alloc() : memref<4xf32>
  // expected-note @+1 {{carried by this loop}}
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> memref<4xf32> {
    // expected-error @+1 {{buffer allocated inside a loop is carried across iterations; memplan cannot plan loop-carried allocations}}
    %n = memref.alloc() : memref<4xf32>
    linalg.add ins(%acc, %acc : memref<4xf32>, memref<4xf32>) outs(%n : memref<4xf32>)
    scf.yield %n : memref<4xf32>
  }
  memref.copy %r, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

func.func @loop_carried_tensor(%f: f32, %x: tensor<4xf32>, %out: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-note @+1 {{carried by this loop}}
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> tensor<4xf32> {
    // expected-error @+1 {{buffer allocated inside a loop is carried across iterations; memplan cannot plan loop-carried allocations}}
    %e = tensor.empty() : tensor<4xf32>
    %n = linalg.add ins(%acc, %acc : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %n : tensor<4xf32>
  }
  %c = linalg.copy ins(%r : tensor<4xf32>) outs(%out : tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @unforwarded_result(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{memplan cannot tell where the buffer of a tensor or memref of 'scf.parallel' comes from}}
  %r = scf.parallel (%i) = (%c0) to (%c4) step (%c1) init (%x) -> tensor<4xf32> {
    scf.reduce(%x : tensor<4xf32>) {
    ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
      scf.reduce.return %a : tensor<4xf32>
    }
  }
  return %r : tensor<4xf32>
}
