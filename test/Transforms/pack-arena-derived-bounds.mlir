// Bounds the IR implies (docs/Lifetimes.md, "Symbolic sizes"): a symbol that
// is the size of a unit-stride slice of a static dimension in the entry
// block is at most what the slice leaves (a valid program slices within its
// source). Here S slices the first S rows of a 12-row table at offset 4, so
// S <= 8; bounded mode then plans at S = 8 without being told, and the
// report says where the bound comes from. A given bound wins over it.
//
// RUN: memplan-opt %s --memplan-pack-arena="bounded=true report=%t.json" --memplan-verify-plan | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json
// RUN: memplan-opt %s --memplan-pack-arena="bounded=true bounds=S=5" | FileCheck %s --check-prefix=GIVEN
// RUN: memplan-opt %s --memplan-pack-arena="report=%t.auto.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.auto.json

// 8 rows of 16 floats at the bound: 512 bytes each, two live at once.
// CHECK-LABEL: func.func @rows(
// CHECK: memplan.arena alignment(64) : memref<1024xi8>
// REPORT: "bound": 8,
// REPORT-NEXT: "bound_source": "memref.subview @ {{.*}}pack-arena-derived-bounds.mlir:25:11",
// REPORT-NEXT: "name": "S",
// GIVEN-LABEL: func.func @rows(
// GIVEN: memplan.arena alignment(64) : memref<640xi8>
func.func @rows(%table: memref<12x16xf32>, %ids: memref<?xi32> {memplan.symbols = ["S"]}, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %s = memref.dim %ids, %c0 : memref<?xi32>
  %rows = memref.subview %table[4, 0] [%s, 16] [1, 1] : memref<12x16xf32> to memref<?x16xf32, strided<[16, 1], offset: 64>>
  %a = memref.alloc(%s) : memref<?x16xf32>
  linalg.copy ins(%rows : memref<?x16xf32, strided<[16, 1], offset: 64>>) outs(%a : memref<?x16xf32>)
  %b = memref.alloc(%s) : memref<?x16xf32>
  linalg.add ins(%a, %a : memref<?x16xf32>, memref<?x16xf32>) outs(%b : memref<?x16xf32>)
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%out : memref<16xf32>)
  linalg.reduce ins(%b : memref<?x16xf32>) outs(%out : memref<16xf32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %sum = arith.addf %x, %acc : f32
      linalg.yield %sum : f32
    }
  return
}
