// A buffer whose size is no function of the arguments' sizes (here read
// from memory) cannot be placed before the function runs: it stays a
// memref.alloc, with the reason in the report and the explanation, and the
// function's other buffers are planned (one of dynamic size, one static).
//
// RUN: memplan-opt %s --memplan-pack-arena="report=%t.json explain=%t.txt" --memplan-verify-plan | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json
// RUN: FileCheck %s --check-prefix=EXPLAIN --input-file=%t.txt

// CHECK-LABEL: func.func @loaded(
// CHECK:         memplan.arena alignment(64) size(
// CHECK:         memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:         memplan.dynamic_view
// CHECK:         memplan.dynamic_view

// REPORT:      "heap_buffers": [
// REPORT-NEXT:   {
// REPORT-NEXT:     "name": "memref.alloc @ {{.*}}pack-arena-dynamic-heap.mlir:{{[0-9]+}}:8",
// REPORT-NEXT:     "reason": "dimension 0 of 'memref<?xf32>' is not a function of the sizes of @loaded's arguments that memplan can state (sums and products of them), so its buffer cannot be placed before the function runs"

// EXPLAIN: left on the heap: memref.alloc @ {{.*}}: dimension 0 of 'memref<?xf32>' is not a function of the sizes

func.func @loaded(%x: memref<?xf32>, %size: memref<index>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.load %size[] : memref<index>
  %a = memref.alloc(%n) : memref<?xf32>
  %d = memref.dim %x, %c0 : memref<?xf32>
  %b = memref.alloc(%d) : memref<?xf32>
  %s = memref.alloc() : memref<16xf32>
  linalg.copy ins(%x : memref<?xf32>) outs(%b : memref<?xf32>)
  linalg.copy ins(%s : memref<16xf32>) outs(%s : memref<16xf32>)
  linalg.copy ins(%b : memref<?xf32>) outs(%a : memref<?xf32>)
  linalg.copy ins(%a : memref<?xf32>) outs(%out : memref<?xf32>)
  memref.dealloc %a : memref<?xf32>
  memref.dealloc %b : memref<?xf32>
  memref.dealloc %s : memref<16xf32>
  return
}
