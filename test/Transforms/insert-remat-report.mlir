// The plan report's remat section (JSON v1's `remat`) and recomputed buffers
// (`"recomputed": true`) after the whole pipeline with a remat policy.
// RUN: memplan-opt %memplan_src_root/test/Analysis/print-remat.mlir --memplan-pipeline="policy=recompute-all report=%t.json html=%t.html" -o /dev/null
// RUN: FileCheck %s --input-file=%t.json
// RUN: FileCheck %s --input-file=%t.html --check-prefix=HTML
// Without locations no decision can be tied to a buffer: none is (matching
// "loc(unknown)" gave every buffer the first decision).
// RUN: memplan-opt %memplan_src_root/test/Analysis/print-remat.mlir --strip-debuginfo --mlir-print-debuginfo \
// RUN:   | memplan-opt --memplan-pipeline="policy=recompute-all html=%t.noloc.html" -o /dev/null
// RUN: FileCheck %s --input-file=%t.noloc.html --check-prefix=NOLOC
// NOLOC: "n":"memref.alloc @ loc(unknown)"
// NOLOC-NOT: "d":

// CHECK: "recomputed": true
// CHECK: "remat": {
// CHECK-NEXT: "baseline_cost": 41,
// CHECK-NEXT: "budget_bytes": 0,
// CHECK-NEXT: "decisions": [
// CHECK: "bytes": 32,
// CHECK-NEXT: "cost": 8,
// CHECK-NEXT: "decision": "recompute",
// CHECK-NEXT: "value": "tensor.empty @ {{.*}}print-remat.mlir:{{[0-9]+}}:9"
// CHECK: "recompute_cost": 24
// HTML: rematerialization: 2 of 2 saved values recomputed (64 B not kept), extra compute 24 = 58.5% of the step's 41
// A recomputed buffer in the page's data (drawn in the recomputed colour),
// tied to its decision by its location:
// HTML: "d":{{[0-9]+}},"i":{{[0-9]+}},"n":"memref.alloc @ {{[^"]*}}","o":{{[0-9]+}},"p":"linalg.exp @ {{[^"]*}}","ps":{{[0-9]+}},"r":true,
