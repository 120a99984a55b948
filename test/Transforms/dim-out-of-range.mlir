// A dimension index out of range (found by fuzz_ir, which mutated a test
// input): sizing the buffer through upstream's value bounds crashed. memplan
// refuses the index where it is, with exit 1; memplan-pack-arena alone
// leaves the buffer on the heap.
//
// RUN: not memplan-opt %s --memplan-pipeline=budget=1000 -o /dev/null 2>&1 | FileCheck %s
// RUN: memplan-opt %s --memplan-pack-arena | FileCheck %s --check-prefix=HEAP

// CHECK: dim-out-of-range.mlir:[[@LINE+6]]:8: error: dimension index 9223372036854775807 is out of range for a value of rank 1: memplan cannot size the buffers of @dimOutOfRange
// HEAP: memref.alloc
// HEAP-NOT: memplan.arena
func.func @dimOutOfRange(%x: memref<?xf32> {memplan.symbols = ["B"]}) {
  %big = arith.constant 9223372036854775807 : index
  %c = arith.constant 0.0 : f32
  %b = memref.dim %x, %big : memref<?xf32>
  %a = memref.alloc(%b) : memref<?xf32>
  linalg.fill ins(%c : f32) outs(%a : memref<?xf32>)
  return
}
