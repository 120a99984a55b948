// RUN: memplan-opt %s -split-input-file --test-memplan-print-lifetimes=cross-check=true -o /dev/null | FileCheck %s

// Lifetimes over functions of several blocks (docs/Lifetimes.md, "Control
// flow graphs"). Steps run through the blocks in their order; every case is
// also cross-checked against upstream mlir::Liveness.

// A loop of blocks whose header comes before its body. %w is last used in the
// header (step 7) but is live around the loop, so it lives to the body's
// branch back (step 14). %t lives inside one iteration only.
// CHECK-LABEL: lifetimes of @loop (18 steps)
// CHECK-NEXT:  %arg0 = argument: 64 B [0, 15) argument
// CHECK-NEXT:  %alloc = memref.alloc @2: 64 B [2, 15) planned
// CHECK-NEXT:  %alloc_0 = memref.alloc @4: 64 B [4, 17) planned
// CHECK-NEXT:  %alloc_1 = memref.alloc @10: 64 B [10, 13) planned
// CHECK-NEXT:  %alloc_2 = memref.alloc @15: 64 B [15, 18) returned
// CHECK-NEXT: peak = 192 at step 10
// CHECK-NEXT: liveness cross-check: {{[1-9][0-9]*}} live (op, value) pairs covered
func.func @loop(%x: memref<16xf32>, %n: index) -> memref<16xf32> {
  %c0 = arith.constant 0 : index                                  // 0
  %c1 = arith.constant 1 : index                                  // 1
  %w = memref.alloc() : memref<16xf32>                            // 2
  linalg.copy ins(%x : memref<16xf32>) outs(%w : memref<16xf32>)  // 3
  %acc = memref.alloc() : memref<16xf32>                          // 4
  linalg.copy ins(%x : memref<16xf32>) outs(%acc : memref<16xf32>) // 5
  cf.br ^header(%c0 : index)                                      // 6
^header(%i: index):
  linalg.add ins(%acc, %w : memref<16xf32>, memref<16xf32>) outs(%acc : memref<16xf32>) // 7
  %cond = arith.cmpi slt, %i, %n : index                          // 8
  cf.cond_br %cond, ^body, ^exit                                  // 9
^body:
  %t = memref.alloc() : memref<16xf32>                            // 10
  linalg.add ins(%acc, %acc : memref<16xf32>, memref<16xf32>) outs(%t : memref<16xf32>) // 11
  linalg.add ins(%t, %x : memref<16xf32>, memref<16xf32>) outs(%acc : memref<16xf32>)   // 12
  %i1 = arith.addi %i, %c1 : index                                // 13
  cf.br ^header(%i1 : index)                                      // 14
^exit:
  %r = memref.alloc() : memref<16xf32>                            // 15
  linalg.copy ins(%acc : memref<16xf32>) outs(%r : memref<16xf32>) // 16
  return %r : memref<16xf32>                                      // 17
}

// -----

// A diamond: the join's argument may be either branch's buffer, so both live
// from the first of them to the join's last use.
// CHECK-LABEL: lifetimes of @diamond (12 steps)
// CHECK-NEXT:  %arg0 = argument: 64 B [0, 9) argument
// CHECK-NEXT:  %alloc = memref.alloc @1: 64 B [1, 9) planned
// CHECK-NEXT:  %alloc_0 = memref.alloc @4: 64 B [1, 9) planned
// CHECK-NEXT:  %alloc_1 = memref.alloc @7: 64 B [7, 11) planned
// CHECK-NEXT:  %alloc_2 = memref.alloc @9: 64 B [9, 12) returned
// CHECK-NEXT: peak = 192 at step 7
// CHECK-NEXT: liveness cross-check
func.func @diamond(%x: memref<16xf32>, %c: i1) -> memref<16xf32> {
  cf.cond_br %c, ^a, ^b                                           // 0
^a:
  %p = memref.alloc() : memref<16xf32>                            // 1
  linalg.copy ins(%x : memref<16xf32>) outs(%p : memref<16xf32>)  // 2
  cf.br ^join(%p : memref<16xf32>)                                // 3
^b:
  %q = memref.alloc() : memref<16xf32>                            // 4
  linalg.add ins(%x, %x : memref<16xf32>, memref<16xf32>) outs(%q : memref<16xf32>) // 5
  cf.br ^join(%q : memref<16xf32>)                                // 6
^join(%m: memref<16xf32>):
  %r = memref.alloc() : memref<16xf32>                            // 7
  linalg.add ins(%m, %x : memref<16xf32>, memref<16xf32>) outs(%r : memref<16xf32>) // 8
  %s = memref.alloc() : memref<16xf32>                            // 9
  linalg.copy ins(%r : memref<16xf32>) outs(%s : memref<16xf32>)  // 10
  return %s : memref<16xf32>                                      // 11
}

// -----

// A buffer allocated in a loop of blocks and carried to the next iteration,
// but dead before the loop allocates it again: one slot is enough, and it
// lives over the whole loop (it merges with the argument at the header).
// CHECK-LABEL: lifetimes of @carried_dead (12 steps)
// CHECK-NEXT:  %arg0 = argument: 64 B [0, 10) argument
// CHECK-NEXT:  %alloc = memref.alloc @4: 64 B [0, 10) planned
// CHECK-NEXT:  %alloc_0 = memref.alloc @5: 64 B [5, 7) planned
// CHECK-NEXT:  %alloc_1 = memref.alloc @8: 64 B [8, 12) returned
// CHECK-NEXT: peak = 128 at step 5
// CHECK-NEXT: liveness cross-check
func.func @carried_dead(%x: memref<16xf32>, %c: i1) -> memref<16xf32> {
  cf.br ^header(%x : memref<16xf32>)                              // 0
^header(%cur: memref<16xf32>):
  %c0 = arith.constant 0 : index                                  // 1
  %v = memref.load %cur[%c0] : memref<16xf32>                     // 2
  cf.cond_br %c, ^body, ^exit                                     // 3
^body:
  %new = memref.alloc() : memref<16xf32>                          // 4
  %tmp = memref.alloc() : memref<16xf32>                          // 5
  linalg.copy ins(%tmp : memref<16xf32>) outs(%new : memref<16xf32>) // 6
  cf.br ^header(%new : memref<16xf32>)                            // 7
^exit:
  %r = memref.alloc() : memref<16xf32>                            // 8
  linalg.copy ins(%cur : memref<16xf32>) outs(%r : memref<16xf32>) // 9
  memref.store %v, %r[%c0] : memref<16xf32>                       // 10
  return %r : memref<16xf32>                                      // 11
}

// -----

// A buffer carried around a loop of blocks and returned: two iterations'
// instances are live at once (the add reads the old one while it writes the
// new one), but the buffer is the caller's: never planned, each instance
// stays on the heap, so the analysis accepts the function and plans the
// loop's temporary (a buffer that is not returned is rejected:
// annotate-lifetimes-invalid.mlir).
// CHECK-LABEL: lifetimes of @carried_returned
// CHECK:  %alloc = memref.alloc @{{[0-9]+}}: 64 B [{{[0-9]+}}, {{[0-9]+}}) planned
// CHECK:  %alloc_0 = memref.alloc @{{[0-9]+}}: 64 B [0, {{[0-9]+}}) returned
func.func @carried_returned(%x: memref<16xf32>, %n: index) -> memref<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^header(%x, %c0 : memref<16xf32>, index)
^header(%acc: memref<16xf32>, %i: index):
  %cond = arith.cmpi slt, %i, %n : index
  cf.cond_br %cond, ^body, ^exit
^body:
  %t = memref.alloc() : memref<16xf32>
  linalg.add ins(%acc, %acc : memref<16xf32>, memref<16xf32>) outs(%t : memref<16xf32>)
  %new = memref.alloc() : memref<16xf32>
  linalg.add ins(%acc, %t : memref<16xf32>, memref<16xf32>) outs(%new : memref<16xf32>)
  %j = arith.addi %i, %c1 : index
  cf.br ^header(%new, %j : memref<16xf32>, index)
^exit:
  return %acc : memref<16xf32>
}
