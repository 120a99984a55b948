// RUN: memplan-opt %s -split-input-file -verify-diagnostics --memplan-pack-arena="algorithm=fastest"
// RUN: not memplan-opt %s --memplan-pack-arena="alignment=48" 2>&1 | FileCheck %s --check-prefix=ALIGN
// RUN: not memplan-opt %s --memplan-pack-arena="report=/nonexistent/dir/r.json" 2>&1 | FileCheck %s --check-prefix=REPORT

// ALIGN: error: alignment must be a power of two, got 48
// REPORT: error: cannot write the report '/nonexistent/dir/r.json'

// expected-error @+1 {{unknown packing algorithm 'fastest' (expected greedy-size, greedy-time, best or exact)}}
module {
  func.func @f() {
    %a = memref.alloc() : memref<4xf32>
    return
  }
}
