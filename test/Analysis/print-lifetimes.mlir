// RUN: memplan-opt %s -split-input-file --test-memplan-print-lifetimes -o /dev/null | FileCheck %s

// Every case writes each op's step and the expected interval of each root
// beside the input, so the CHECK lines can be checked by eye.

// The worked example of design.md (memref level).
// CHECK-LABEL: lifetimes of @design_memref (11 steps)
// CHECK-NEXT:  %arg0 = argument: 32 B [0, 8) argument
// CHECK-NEXT:  = memref.alloc @0: 32 B [0, 6) planned
// CHECK-NEXT:  = memref.alloc @2: 32 B [2, 8) planned
// CHECK-NEXT:  = memref.alloc @6: 32 B [6, 11) returned
// CHECK-NEXT: peak = 64 at step 2
func.func @design_memref(%in: memref<8xf32>, %flag: i1) -> memref<8xf32> {
  %a = memref.alloc() : memref<8xf32>                              // 0   a: [0, 6)
  linalg.copy ins(%in : memref<8xf32>) outs(%a : memref<8xf32>)    // 1
  %b = memref.alloc() : memref<8xf32>                              // 2   b: [2, 8)
  scf.if %flag {                                                   // 3
    linalg.add ins(%a, %a : memref<8xf32>, memref<8xf32>) outs(%b : memref<8xf32>)  // 4 (counts at 5)
  }                                                                // 5   implicit scf.yield
  %r = memref.alloc() : memref<8xf32>                              // 6   returned: [6, 11)
  linalg.add ins(%b, %in : memref<8xf32>, memref<8xf32>) outs(%r : memref<8xf32>)   // 7
  memref.dealloc %a : memref<8xf32>                                // 8   not a use
  memref.dealloc %b : memref<8xf32>                                // 9
  return %r : memref<8xf32>                                        // 10
}

// -----

// The worked example of design.md (tensor level): a destination-style result
// shares its init's buffer, so %e lives until %y's last use.
// CHECK-LABEL: lifetimes of @design_tensor (5 steps)
// CHECK-NEXT:  %arg0 = argument: 16 B [0, 4) argument
// CHECK-NEXT:  = tensor.empty @0: 16 B [0, 4) planned
// CHECK-NEXT:  = tensor.empty @2: 16 B [2, 5) returned
// CHECK-NEXT: peak = 16 at step 0
func.func @design_tensor(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>                              // 0   [0, 4)
  %y = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>           // 1
  %e2 = tensor.empty() : tensor<4xf32>                             // 2   returned
  %z = linalg.add ins(%y, %x : tensor<4xf32>, tensor<4xf32>) outs(%e2 : tensor<4xf32>) -> tensor<4xf32> // 3
  return %z : tensor<4xf32>                                        // 4
}

// -----

// Straight-line code; an unused value lives on [d, d+1).
// CHECK-LABEL: lifetimes of @straight_line (6 steps)
// CHECK-NEXT:  = memref.alloc @0: 64 B [0, 4) planned
// CHECK-NEXT:  = memref.alloc @1: 128 B [1, 2) planned
// CHECK-NEXT:  = memref.alloc @2: 256 B [2, 5) planned
// CHECK-NEXT: peak = 320 at step 2
func.func @straight_line(%f: f32) {
  %a = memref.alloc() : memref<16xf32>                             // 0   [0, 4)
  %unused = memref.alloc() : memref<32xf32>                        // 1   [1, 2)
  %c = memref.alloc() : memref<64xf32>                             // 2   [2, 5)
  linalg.fill ins(%f : f32) outs(%a : memref<16xf32>)              // 3
  linalg.fill ins(%f : f32) outs(%c : memref<64xf32>)              // 4
  return                                                           // 5
}

// -----

// A value read inside a loop lives until the loop's last nested step; one
// defined in the body lives within the body.
// CHECK-LABEL: lifetimes of @scf_for (10 steps)
// CHECK-NEXT:  = memref.alloc @0: 16 B [0, 8) planned
// CHECK-NEXT:  = memref.alloc @5: 16 B [5, 7) planned
// CHECK-NEXT:  = memref.alloc @8: 16 B [8, 9) planned
// CHECK-NEXT: peak = 32 at step 5
func.func @scf_for(%f: f32) {
  %a = memref.alloc() : memref<4xf32>                              // 0   [0, 8): used in the loop
  %c0 = arith.constant 0 : index                                   // 1
  %c1 = arith.constant 1 : index                                   // 2
  %c4 = arith.constant 4 : index                                   // 3
  scf.for %i = %c0 to %c4 step %c1 {                               // 4   nested steps 5..7
    %t = memref.alloc() : memref<4xf32>                            // 5   [5, 7)
    linalg.copy ins(%a : memref<4xf32>) outs(%t : memref<4xf32>)   // 6   %a counts at 7
  }                                                                // 7   implicit scf.yield
  %d = memref.alloc() : memref<4xf32>                              // 8   [8, 9)
  return                                                           // 9
}

// -----

// Nested loops: a use in the inner loop of a value defined outside both
// counts at the outer loop's last step; a value defined in the outer body and
// used in the inner loop counts at the inner loop's last step.
// CHECK-LABEL: lifetimes of @nested_for (13 steps)
// CHECK-NEXT:  = memref.alloc @0: 16 B [0, 11) planned
// CHECK-NEXT:  = memref.alloc @5: 16 B [5, 10) planned
// CHECK-NEXT: peak = 32 at step 5
func.func @nested_for() {
  %a = memref.alloc() : memref<4xf32>                              // 0   [0, 11)
  %c0 = arith.constant 0 : index                                   // 1
  %c1 = arith.constant 1 : index                                   // 2
  %c4 = arith.constant 4 : index                                   // 3
  scf.for %i = %c0 to %c4 step %c1 {                               // 4   nested 5..10
    %b = memref.alloc() : memref<4xf32>                            // 5   [5, 10)
    scf.for %j = %c0 to %c4 step %c1 {                             // 6   nested 7..9
      linalg.copy ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) // 7   %a at 10, %b at 9
      memref.dealloc %b : memref<4xf32>                            // 8   not a use
    }                                                              // 9
  }                                                                // 10
  %c = arith.constant 2 : index                                    // 11
  return                                                           // 12
}

// -----

// scf.if with values used in either branch, and tensors yielded by both
// branches: both roots may be the result, so both live from the first of
// them until the result's last use.
// CHECK-LABEL: lifetimes of @scf_if_yield (11 steps)
// CHECK-NEXT:  %arg1 = argument: 16 B [0, 2) argument
// CHECK-NEXT:  = tensor.empty @0: 16 B [0, 8) planned
// CHECK-NEXT:  = tensor.empty @3: 16 B [3, 10) planned
// CHECK-NEXT:  = tensor.empty @6: 16 B [3, 10) planned
// CHECK-NEXT:  = tensor.empty @8: 64 B [8, 9) planned
// CHECK-NEXT: peak = 96 at step 8
func.func @scf_if_yield(%flag: i1, %x: tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>                              // 0   [0, 8): %y is read in the then branch
  %y = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>  // 1   %x: [0, 2)
  %r = scf.if %flag -> tensor<4xf32> {                             // 2   nested steps 3..7
    %t = tensor.empty() : tensor<4xf32>                            // 3   [3, 10): may be %r
    %u = linalg.add ins(%y, %y : tensor<4xf32>, tensor<4xf32>) outs(%t : tensor<4xf32>) -> tensor<4xf32> // 4   %y counts at 7
    scf.yield %u : tensor<4xf32>                                   // 5
  } else {
    %s = tensor.empty() : tensor<4xf32>                            // 6   [3, 10): may be %r
    scf.yield %s : tensor<4xf32>                                   // 7
  }
  %z = tensor.empty() : tensor<16xf32>                             // 8   [8, 9): unused
  %w = linalg.exp ins(%r : tensor<4xf32>) outs(%r : tensor<4xf32>) -> tensor<4xf32>  // 9   last use of %r
  return                                                           // 10
}

// -----

// Views and reshapes alias one root: the root lives until the last use of any
// of them. Views are never roots.
// CHECK-LABEL: lifetimes of @memref_aliases (9 steps)
// CHECK-NEXT:  = memref.alloc @0: 256 B [0, 8) planned
// CHECK-NEXT:  = memref.alloc @6: 16 B [6, 7) planned
// CHECK-NEXT: peak = 272 at step 6
func.func @memref_aliases(%f: f32) {
  %a = memref.alloc() : memref<8x8xf32>                            // 0   [0, 8): %v2 is used at 7
  %v0 = memref.subview %a[0, 0] [4, 8] [1, 1] : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1]>>  // 1
  %v1 = memref.collapse_shape %a [[0, 1]] : memref<8x8xf32> into memref<64xf32>                       // 2
  %v2 = memref.expand_shape %v1 [[0, 1]] output_shape [2, 32] : memref<64xf32> into memref<2x32xf32>  // 3
  %v3 = memref.cast %v0 : memref<4x8xf32, strided<[8, 1]>> to memref<4x8xf32, strided<[?, ?], offset: ?>> // 4
  linalg.fill ins(%f : f32) outs(%v3 : memref<4x8xf32, strided<[?, ?], offset: ?>>)  // 5
  %b = memref.alloc() : memref<4xf32>                              // 6   [6, 7): unused
  linalg.fill ins(%f : f32) outs(%v2 : memref<2x32xf32>)           // 7
  return                                                           // 8
}

// -----

// Tensor-level aliases: slices, reshapes, casts and checkpoints of one root.
// CHECK-LABEL: lifetimes of @tensor_aliases (8 steps)
// CHECK-NEXT:  = tensor.empty @0: 256 B [0, 7) planned
// CHECK-NEXT: peak = 256 at step 0
func.func @tensor_aliases(%f: f32) -> f32 {
  %e = tensor.empty() : tensor<8x8xf32>                            // 0   [0, 7): %k is read at 6
  %a = linalg.fill ins(%f : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>       // 1
  %s = tensor.extract_slice %a[0, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>  // 2
  %c = tensor.collapse_shape %s [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>       // 3
  %k = memplan.checkpoint %c : tensor<32xf32>                      // 4
  %i = arith.constant 3 : index                                    // 5
  %x = tensor.extract %k[%i] : tensor<32xf32>                      // 6
  return %x : f32                                                  // 7
}

// -----

// Loop-carried tensors updated in place: the init's root lives across the
// loop and until the result's last use. The loop-invariant %w counts at the
// loop's last step.
// CHECK-LABEL: lifetimes of @for_iter_args (11 steps)
// CHECK-NEXT:  %arg0 = argument: 16 B [0, 10) argument
// CHECK-NEXT:  = tensor.empty @0: 16 B [0, 11) returned
// CHECK-NEXT:  = tensor.empty @1: 16 B [1, 10) planned
// CHECK-NEXT: peak = 16 at step 1
func.func @for_iter_args(%w: tensor<4xf32>, %f: f32) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>                              // 0   returned through the loop
  %e2 = tensor.empty() : tensor<4xf32>                             // 1   [1, 10): read in the loop
  %t = linalg.fill ins(%f : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>  // 2
  %init = linalg.fill ins(%f : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>  // 3
  %c0 = arith.constant 0 : index                                   // 4
  %c1 = arith.constant 1 : index                                   // 5
  %c4 = arith.constant 4 : index                                   // 6
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> tensor<4xf32> {  // 7   nested 8..9
    %n = linalg.add ins(%acc, %w : tensor<4xf32>, tensor<4xf32>) outs(%t : tensor<4xf32>) -> tensor<4xf32>  // 8   %w, %t count at 9
    scf.yield %acc : tensor<4xf32>                                 // 9
  }
  return %r : tensor<4xf32>                                        // 10
}

// -----

// scf.while: the buffer forwarded through scf.condition and scf.yield is one
// root; a value read in the before region counts at the loop's last step.
// CHECK-LABEL: lifetimes of @scf_while (11 steps)
// CHECK-NEXT:  = tensor.empty @0: 8 B [0, 10) planned
// CHECK-NEXT:  = tensor.empty @1: 8 B [1, 9) planned
// CHECK-NEXT: peak = 16 at step 1
func.func @scf_while(%f: f32, %b: i1) {
  %e = tensor.empty() : tensor<2xf32>                              // 0   [0, 10): %r used at 9
  %g = tensor.empty() : tensor<2xf32>                              // 1   [1, 9): read in the loop
  %init = linalg.fill ins(%f : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>  // 2
  %c0 = arith.constant 0 : index                                   // 3
  %r = scf.while (%x = %init) : (tensor<2xf32>) -> tensor<2xf32> { // 4   nested 5..8
    %v = tensor.extract %g[%c0] : tensor<2xf32>                    // 5   %g counts at 8
    scf.condition(%b) %x : tensor<2xf32>                           // 6
  } do {
  ^bb0(%y: tensor<2xf32>):
    %z = linalg.fill ins(%f : f32) outs(%y : tensor<2xf32>) -> tensor<2xf32>  // 7
    scf.yield %z : tensor<2xf32>                                   // 8
  }
  %s = tensor.extract %r[%c0] : tensor<2xf32>                      // 9
  return                                                           // 10
}

// -----

// memplan.recompute gets steps; its body reads only its inputs (so %a lives
// until the body's last read of %in), and the roots it creates become the
// recomputed values.
// CHECK-LABEL: lifetimes of @recompute (9 steps)
// CHECK-NEXT:  %arg0 = argument: 16 B [0, 2) argument
// CHECK-NEXT:  = tensor.empty @0: 16 B [0, 6) planned
// CHECK-NEXT:  = tensor.empty @4: 16 B [4, 8) planned
// CHECK-NEXT: peak = 32 at step 4
func.func @recompute(%x: tensor<4xf32>) -> f32 {
  %e = tensor.empty() : tensor<4xf32>                              // 0   [0, 6): %in is read at 5
  %a = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>  // 1
  %c0 = arith.constant 0 : index                                   // 2
  %r = memplan.recompute(%a) : (tensor<4xf32>) -> tensor<4xf32> {  // 3   nested 4..6; %r exists at 6
  ^bb0(%in: tensor<4xf32>):
    %t = tensor.empty() : tensor<4xf32>                            // 4   [4, 8): yielded as %r
    %y = linalg.exp ins(%in : tensor<4xf32>) outs(%t : tensor<4xf32>) -> tensor<4xf32>  // 5
    memplan.yield %y : tensor<4xf32>                               // 6
  }
  %v = tensor.extract %r[%c0] : tensor<4xf32>                      // 7
  return %v : f32                                                  // 8
}

// -----

// Sizes: element count x storage bytes of one element, as the LLVM lowering
// allocates it: sub-byte types take a whole byte, odd widths round up to a
// power of two, complex takes two elements.
// CHECK-LABEL: lifetimes of @sizes (9 steps)
// CHECK-NEXT:  = memref.alloc @0: 10 B [0, 1) planned
// CHECK-NEXT:  = memref.alloc @1: 10 B [1, 2) planned
// CHECK-NEXT:  = memref.alloc @2: 20 B [2, 3) planned
// CHECK-NEXT:  = memref.alloc @3: 20 B [3, 4) planned
// CHECK-NEXT:  = memref.alloc @4: 40 B [4, 5) planned
// CHECK-NEXT:  = memref.alloc @5: 80 B [5, 6) planned
// CHECK-NEXT:  = memref.alloc @6: 160 B [6, 7) planned
// CHECK-NEXT:  = tensor.empty @7: 0 B [7, 8) planned
// CHECK-NEXT: peak = 160 at step 6
func.func @sizes() {
  %0 = memref.alloc() : memref<10xi1>                              // 0   10 x 1
  %1 = memref.alloc() : memref<10xi4>                              // 1   10 x 1
  %2 = memref.alloc() : memref<10xf16>                             // 2   10 x 2
  %3 = memref.alloc() : memref<2x5xbf16>                           // 3   10 x 2
  %4 = memref.alloc() : memref<10xi24>                             // 4   10 x 4
  %5 = memref.alloc() : memref<10xcomplex<f32>>                    // 5   10 x 8
  %6 = memref.alloc() : memref<10xi128>                            // 6   10 x 16
  %7 = tensor.empty() : tensor<0x4xf32>                            // 7   0 elements
  return                                                           // 8
}

// -----

// A use inside a payload region (a linalg body) counts at the step of the op
// that holds the payload.
// CHECK-LABEL: lifetimes of @payload_use (6 steps)
// CHECK-NEXT:  = tensor.empty @0: 16 B [0, 4) planned
// CHECK-NEXT:  = tensor.empty @2: 16 B [2, 4) planned
// CHECK-NEXT: peak = 32 at step 2
func.func @payload_use(%f: f32) {
  %e = tensor.empty() : tensor<4xf32>                              // 0   [0, 4): read in the body at 3
  %t = linalg.fill ins(%f : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>  // 1
  %o = tensor.empty() : tensor<4xf32>                              // 2   [2, 4)
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%o : tensor<4xf32>) {                                   // 3
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %v = tensor.extract %t[%i] : tensor<4xf32>
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %c = arith.constant 0 : index                                    // 4
  return                                                           // 5
}

// -----

// Constants, globals, stack allocations and call results are not the arena's;
// a call's several results are one root each.
memref.global "private" constant @g : memref<4xf32> = dense<1.0>
func.func private @two(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<8xf32>)
// CHECK-LABEL: lifetimes of @externals (7 steps)
// CHECK-NEXT:  = arith.constant @0: 16 B [0, 4) external
// CHECK-NEXT:  = memref.get_global @1: 16 B [1, 2) external
// CHECK-NEXT:  = memref.alloca @2: 16 B [2, 3) external
// CHECK-NEXT:  = func.call @3: 16 B [3, 6) external
// CHECK-NEXT:  = func.call @3: 32 B [3, 4) external
// CHECK-NEXT:  = tensor.empty @4: 16 B [4, 7) returned
// CHECK-NEXT: peak = 0 at step 0
func.func @externals() -> tensor<4xf32> {
  %c = arith.constant dense<2.0> : tensor<4xf32>                   // 0   [0, 4)
  %g = memref.get_global @g : memref<4xf32>                        // 1
  %s = memref.alloca() : memref<4xf32>                             // 2
  %a, %b = func.call @two(%c) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<8xf32>)  // 3
  %e = tensor.empty() : tensor<4xf32>                              // 4   returned: [4, 7)
  %r = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>  // 5
  return %r : tensor<4xf32>                                        // 6
}

// -----

// Nothing planned: the peak is 0 at step 0. Declarations are skipped.
// CHECK-LABEL: lifetimes of @nothing (1 steps)
// CHECK-NEXT: peak = 0 at step 0
// CHECK-NOT: lifetimes of @declared
func.func @nothing() {
  return
}
func.func private @declared(%a: memref<4xf32>)

// -----

// Dynamic and unranked views of a static root are aliases like any other.
// CHECK-LABEL: lifetimes of @dynamic_views (5 steps)
// CHECK-NEXT:  = memref.alloc @0: 64 B [0, 4) planned
// CHECK-NEXT: peak = 64 at step 0
func.func private @print(memref<*xf32>)
func.func @dynamic_views(%n: index) {
  %a = memref.alloc() : memref<16xf32>                             // 0   [0, 4): %u is used at 3
  %d = memref.cast %a : memref<16xf32> to memref<?xf32>            // 1
  %u = memref.cast %d : memref<?xf32> to memref<*xf32>             // 2
  func.call @print(%u) : (memref<*xf32>) -> ()                     // 3
  return                                                           // 4
}
