// Functions with dynamic shapes (docs/Packing.md, "Symbolic sizes"): every
// buffer's size is an expression over the function's symbols, the plan is
// decided at compile time, and the offsets and the arena's size are computed
// at the entry from the arguments' sizes.
//
// RUN: memplan-opt %s --memplan-pack-arena="report=%t.json eval=B=8;B=1000" --memplan-verify-plan="remarks=true" 2> %t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json
// RUN: FileCheck %s --check-prefix=REMARK --input-file=%t.remarks
// RUN: memplan-opt %s --memplan-pack-arena="symbolic-algorithm=partitions" | FileCheck %s --check-prefix=PARTS
// RUN: memplan-opt %s --memplan-pack-arena="html=%t.html eval=B=8;B=1000" -o /dev/null
// RUN: FileCheck %s --check-prefix=HTML --input-file=%t.html
// RUN: memplan-opt %s --memplan-pack-arena="bounded=true bounds=B=100" --memplan-verify-plan | FileCheck %s --check-prefix=BOUNDED

// The symbol is computed once, at the entry; the sizes are 64*B and 128*B
// (already multiples of 64), the static buffer 1024 bytes. Two plans are
// built (ordered and partitions) and the smaller arena is chosen at run time.
// CHECK-LABEL: func.func @f(
// CHECK:         %[[B:.*]] = memref.dim %arg0, %{{.*}} : memref<?x16xf32>
// CHECK-NOT:     memref.dim %arg1
// CHECK:         arith.cmpi ule
// CHECK:         %[[SIZE:.*]] = arith.select
// CHECK:         %[[ARENA:.*]] = memplan.arena alignment(64) size(%[[SIZE]]) : memref<?xi8>
// CHECK:         memplan.dynamic_view %[[ARENA]][%{{.*}}] [%{{.*}}] alignment(64) : memref<?xi8> to memref<?x16xf32>
// CHECK:         memplan.dynamic_view %[[ARENA]][%{{.*}}] [] alignment(64) : memref<?xi8> to memref<16x16xf32>
// CHECK:         memplan.dynamic_view %[[ARENA]][%{{.*}}] [%{{.*}}] alignment(64) : memref<?xi8> to memref<?x16xf32>
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.dealloc
// CHECK:         return

// With one plan there is no run-time choice.
// PARTS-LABEL: func.func @f(
// PARTS-NOT:     arith.select
// PARTS:         memplan.arena alignment(64) size(

// Bounded: one static arena for B <= 100 (64*100 + 1024 + 128*100 bytes
// live at once), each dynamic buffer checked, where it is allocated, against
// what it was given.
// BOUNDED-LABEL: func.func @f(
// BOUNDED:         memplan.arena alignment(64) : memref<20224xi8>
// BOUNDED:         cf.assert %{{.*}}, "memplan: a buffer of @f (memref.alloc @ {{.*}}, B * 64 bytes) needs more than the 6400 bytes planned at the bounds B=100"
// BOUNDED-NEXT:    memplan.dynamic_view %{{.*}}[%{{.*}}] [%{{.*}}] alignment(64) : memref<20224xi8> to memref<?x16xf32>
// BOUNDED:         memplan.view %{{.*}}[<offset = {{[0-9]+}}, size = 1024, alignment = 64>]
// BOUNDED:         cf.assert %{{.*}}, "memplan: a buffer of @f (memref.alloc @ {{.*}}, B * 128 bytes) needs more than the 12800 bytes planned at the bounds B=100"
// BOUNDED-NEXT:    memplan.dynamic_view

// The picture is drawn at the representative point; the other points are
// listed, and each buffer's hover text has its size expression.
// HTML: sizes known at run time (symbolic plan, auto); drawn at the representative point B = 8
// HTML: at B = 1000: arena 188.50 KiB (193024 B), lower bound 188.50 KiB (193024 B), arena/LB 1.0000
// HTML: "e":"B * 64"

// REPORT:      "arena_bytes": 2560,
// REPORT:      "size_expr": "B * 64",
// REPORT:      "size_expr": "B * 128",
// REPORT:      "symbolic": {
// REPORT-NEXT:   "algorithm": "auto",
// REPORT-NEXT:   "mode": "symbolic",
// REPORT-NEXT:   "points": [
// REPORT:          "arena_bytes": 2560,
// REPORT:          "label": "representative",
// REPORT:          "lower_bound_bytes": 2560,
// REPORT:          "B": 8
// REPORT:          "arena_bytes": 193024,
// REPORT:          "label": "eval",
// REPORT:          "lower_bound_bytes": 193024,
// REPORT:          "B": 1000
// REPORT:        "symbols": [
// REPORT-NEXT:     {
// REPORT-NEXT:       "name": "B",
// REPORT-NEXT:       "source": "dim 0 of argument 0"

// REMARK: remark: memplan-verify-plan: @f: offsets computed at run time, proven for every size without 64-bit overflow (3 pairs of buffers live at once, 2 cases of the run-time choice between plans) and checked by evaluation at 16 sample sizes
// REMARK: remark: memplan-verify-plan: @g: static offsets, checked exactly for every pair of buffers

func.func @f(%x: memref<?x16xf32> {memplan.symbols = ["B", ""]}, %out: memref<?x16xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x16xf32>
  %a = memref.alloc(%n) : memref<?x16xf32>
  %w = memref.alloc() : memref<16x16xf32>
  linalg.copy ins(%x : memref<?x16xf32>) outs(%a : memref<?x16xf32>)
  %m = affine.apply affine_map<()[s0] -> (s0 * 2)>()[%n]
  %b = memref.alloc(%m) : memref<?x16xf32>
  %sub = memref.subview %b[0, 0] [%n, 16] [1, 1] : memref<?x16xf32> to memref<?x16xf32, strided<[16, 1]>>
  linalg.copy ins(%a : memref<?x16xf32>) outs(%sub : memref<?x16xf32, strided<[16, 1]>>)
  linalg.copy ins(%w : memref<16x16xf32>) outs(%w : memref<16x16xf32>)
  linalg.copy ins(%sub : memref<?x16xf32, strided<[16, 1]>>) outs(%out : memref<?x16xf32>)
  memref.dealloc %a : memref<?x16xf32>
  memref.dealloc %b : memref<?x16xf32>
  memref.dealloc %w : memref<16x16xf32>
  return
}

func.func @g(%out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  linalg.copy ins(%a : memref<4xf32>) outs(%out : memref<4xf32>)
  memref.dealloc %a : memref<4xf32>
  return
}
