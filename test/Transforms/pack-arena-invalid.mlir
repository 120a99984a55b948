// An unknown algorithm is refused by the option parser, with the choices.
// RUN: not memplan-opt %s --memplan-pack-arena="algorithm=fastest" 2>&1 | FileCheck %s --check-prefix=ALGO
// RUN: not memplan-opt %s --memplan-pack-arena="alignment=48" 2>&1 | FileCheck %s --check-prefix=ALIGN
// RUN: not memplan-opt %s --memplan-pack-arena="report=/nonexistent/dir/r.json" 2>&1 | FileCheck %s --check-prefix=REPORT

// ALGO: Cannot find option named 'fastest'
// ALIGN: error: alignment must be a power of two, got 48
// REPORT: error: cannot write the report '/nonexistent/dir/r.json'

module {
  func.func @f() {
    %a = memref.alloc() : memref<4xf32>
    return
  }
}
