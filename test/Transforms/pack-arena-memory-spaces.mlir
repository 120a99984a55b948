// RUN: memplan-opt %s --memplan-pack-arena="report=%t.json" --memplan-verify-plan | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json

// Buffers in two memory spaces: one arena each, in the space of its buffers,
// packed and reported on its own; no view crosses spaces.
// CHECK-LABEL: func.func @two_spaces
// CHECK-DAG: %[[A0:.*]] = memplan.arena alignment(64) : memref<128xi8>
// CHECK-DAG: %[[A1:.*]] = memplan.arena alignment(64) : memref<64xi8, 1>
// CHECK-DAG: memplan.view %[[A0]][<offset = {{0|64}}, size = 64, alignment = 64>] : memref<128xi8> to memref<16xf32>
// CHECK-DAG: memplan.view %[[A0]][<offset = {{0|64}}, size = 64, alignment = 64>] : memref<128xi8> to memref<16xf32>
// CHECK-DAG: memplan.view %[[A1]][<offset = 0, size = 64, alignment = 64>] : memref<64xi8, 1> to memref<16xf32, 1>
// CHECK-NOT: memref.alloc
// REPORT: "arena_bytes": 128,
// REPORT: "name": "two_spaces",
// REPORT: "arena_bytes": 64,
// REPORT: "memory_space": "1",
// REPORT: "name": "two_spaces",
func.func @two_spaces(%x: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  %s = memref.alloc() : memref<16xf32, 1>
  linalg.copy ins(%x : memref<16xf32>) outs(%a : memref<16xf32>)
  linalg.copy ins(%a : memref<16xf32>) outs(%s : memref<16xf32, 1>)
  linalg.copy ins(%s : memref<16xf32, 1>) outs(%b : memref<16xf32>)
  linalg.copy ins(%b : memref<16xf32>) outs(%x : memref<16xf32>)
  memref.dealloc %a : memref<16xf32>
  memref.dealloc %b : memref<16xf32>
  memref.dealloc %s : memref<16xf32, 1>
  return
}
