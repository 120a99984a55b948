// The JSON v1 report: every field of design.md, sizes rounded up to the
// alignment, the lower bound computed from those sizes.
// RUN: memplan-opt %s --memplan-pack-arena="report=%t.json html=%t.html" -o /dev/null
// RUN: FileCheck %s --input-file=%t.json
// RUN: FileCheck %s --input-file=%t.html --check-prefix=HTML

// CHECK: "functions": [
// CHECK:     "algorithm": "best",
// CHECK:     "alignment": 64,
// CHECK:     "arena_bytes": 192,
// CHECK:     "buffers": [
// CHECK:         "end": 4,
// CHECK:         "id": 0,
// CHECK:         "name": "memref.alloc @ {{.*}}pack-arena-report.mlir:{{[0-9]+}}:8",
// CHECK:         "offset": {{[0-9]+}},
// CHECK:         "size": 64,
// CHECK:         "start": 0
// CHECK:     "lower_bound_bytes": 192,
// CHECK:     "name": "three",
// CHECK:     "optimal": true
// CHECK: "version": 1
func.func @three(%f: f32) {
  %a = memref.alloc() : memref<10xf32>
  %b = memref.alloc() : memref<3xf32>
  %c = memref.alloc() : memref<16xf32>
  linalg.fill ins(%f : f32) outs(%a : memref<10xf32>)
  linalg.fill ins(%f : f32) outs(%b : memref<3xf32>)
  linalg.fill ins(%f : f32) outs(%c : memref<16xf32>)
  return
}

// HTML: <!DOCTYPE html>
// HTML: <h2>@three</h2>
// HTML: arena 192 B, lower bound 192 B, arena/LB 1.0000; 3 buffers
// HTML: <canvas class="plot" data-fn="0"
// The data the page draws: each buffer with its producer and the steps
// that use it (test/Tools/html-report.test renders it in Chromium).
// HTML: <script type="application/json" id="memplan-data">[{"arena":192,"buffers":[
// HTML-SAME: {"a":0,"b":4,"i":0,"n":"memref.alloc @ {{[^"]*}}pack-arena-report.mlir:23:8","o":0,"p":"linalg.fill @ {{[^"]*}}pack-arena-report.mlir:26:3","ps":3,"s":64,"u":[3]},
// HTML-SAME: "lb":192,
// HTML-NOT: http
