// A slice under an scf.if is not in the entry block: it implies no bound
// (test/Transforms/pack-arena-derived-bounds.mlir), and bounded mode needs
// one.
// RUN: not memplan-opt %s --memplan-pack-arena="bounded=true" -o /dev/null 2>&1 | FileCheck %s

// CHECK: needs a bound for every symbol of @guarded; missing: T
func.func @guarded(%table: memref<12x16xf32>, %ids: memref<?xi32> {memplan.symbols = ["T"]}, %p: i1) {
  %c0 = arith.constant 0 : index
  %t = memref.dim %ids, %c0 : memref<?xi32>
  %a = memref.alloc(%t) : memref<?x16xf32>
  scf.if %p {
    %rows = memref.subview %table[0, 0] [%t, 16] [1, 1] : memref<12x16xf32> to memref<?x16xf32, strided<[16, 1]>>
    linalg.copy ins(%rows : memref<?x16xf32, strided<[16, 1]>>) outs(%a : memref<?x16xf32>)
  }
  return
}
