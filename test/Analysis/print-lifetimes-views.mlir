// RUN: memplan-opt %s -split-input-file --test-memplan-print-lifetimes=cross-check=true -o /dev/null | FileCheck %s

// The lifetime analysis against upstream, on memrefs that flow through views,
// casts, reshapes, region results and block arguments: every value
// BufferViewFlowAnalysis says a buffer may flow into shares the buffer's
// storage in the analysis, and mlir::Liveness finds no use outside its
// lifetime. Each check below fails if the analysis drops an alias
// (the cross-check emits an error and the pass fails).

// CHECK-LABEL: lifetimes of @views
// CHECK: %alloc = memref.alloc @0: 256 B [0, 9) planned
// CHECK: liveness cross-check: {{[1-9][0-9]*}} live (op, value) pairs covered
// CHECK-NEXT: view-flow cross-check: 5 (root, alias) pairs covered; through calls: 0 cleared by the callee, 0 escaping
func.func @views(%x: memref<8x8xf32>, %y: memref<16xf32>) {
  %a = memref.alloc() : memref<64xf32>                                       // 0
  %e = memref.expand_shape %a [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32> // 1
  linalg.copy ins(%x : memref<8x8xf32>) outs(%e : memref<8x8xf32>)          // 2
  %s = memref.subview %e[2, 0] [2, 8] [1, 1] : memref<8x8xf32> to memref<2x8xf32, strided<[8, 1], offset: 16>> // 3
  %c = memref.collapse_shape %s [[0, 1]] : memref<2x8xf32, strided<[8, 1], offset: 16>> into memref<16xf32, strided<[1], offset: 16>> // 4
  %k = memref.cast %c : memref<16xf32, strided<[1], offset: 16>> to memref<16xf32, strided<[1], offset: ?>> // 5
  %r = memref.reinterpret_cast %a to offset: [0], sizes: [16], strides: [1] : memref<64xf32> to memref<16xf32> // 6
  linalg.copy ins(%k : memref<16xf32, strided<[1], offset: ?>>) outs(%y : memref<16xf32>) // 7
  linalg.copy ins(%r : memref<16xf32>) outs(%y : memref<16xf32>)           // 8
  return                                                                     // 9
}

// -----

// A buffer chosen by scf.if and carried through a loop of blocks: the
// region result and the block argument alias both allocations.
// CHECK-LABEL: lifetimes of @merge
// CHECK: liveness cross-check: {{[1-9][0-9]*}} live (op, value) pairs covered
// CHECK-NEXT: view-flow cross-check: {{[1-9][0-9]*}} (root, alias) pairs covered; through calls: 0 cleared by the callee, 0 escaping
func.func @merge(%p: i1, %x: memref<16xf32>, %n: index) {
  %a = memref.alloc() : memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  linalg.copy ins(%x : memref<16xf32>) outs(%a : memref<16xf32>)
  linalg.copy ins(%x : memref<16xf32>) outs(%b : memref<16xf32>)
  %m = scf.if %p -> memref<16xf32> {
    scf.yield %a : memref<16xf32>
  } else {
    scf.yield %b : memref<16xf32>
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^loop(%c0, %m : index, memref<16xf32>)
^loop(%i: index, %v: memref<16xf32>):
  linalg.copy ins(%v : memref<16xf32>) outs(%x : memref<16xf32>)
  %next = arith.addi %i, %c1 : index
  %more = arith.cmpi slt, %next, %n : index
  cf.cond_br %more, ^loop(%next, %v : index, memref<16xf32>), ^done
^done:
  return
}

// -----

// A call's result may alias its operand for upstream; the analysis follows
// the callee, which reads its argument and returns a new buffer.
// CHECK-LABEL: lifetimes of @reads
// CHECK-LABEL: lifetimes of @caller
// CHECK: %alloc = memref.alloc @0: 64 B [0, 2) planned
// CHECK: view-flow cross-check: 0 (root, alias) pairs covered; through calls: 1 cleared by the callee, 0 escaping
func.func @reads(%x: memref<16xf32>) -> memref<16xf32> {
  %r = memref.alloc() : memref<16xf32>
  linalg.copy ins(%x : memref<16xf32>) outs(%r : memref<16xf32>)
  return %r : memref<16xf32>
}
func.func @caller(%x: memref<16xf32>, %y: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  %r = func.call @reads(%a) : (memref<16xf32>) -> memref<16xf32>
  linalg.copy ins(%r : memref<16xf32>) outs(%y : memref<16xf32>)
  return
}

// -----

// A callee that returns its argument: the buffer escapes (pack-arena leaves
// it on the heap, test/Transforms has the placement), so the alias is
// counted as escaping.
// CHECK-LABEL: lifetimes of @caller_of_id
// CHECK: view-flow cross-check: 0 (root, alias) pairs covered; through calls: 0 cleared by the callee, 1 escaping
func.func @id(%x: memref<16xf32>) -> memref<16xf32> {
  return %x : memref<16xf32>
}
func.func @caller_of_id(%x: memref<16xf32>, %y: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  linalg.copy ins(%x : memref<16xf32>) outs(%a : memref<16xf32>)
  %r = func.call @id(%a) : (memref<16xf32>) -> memref<16xf32>
  linalg.copy ins(%r : memref<16xf32>) outs(%y : memref<16xf32>)
  return
}
