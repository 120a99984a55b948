// RUN: memplan-opt %s -split-input-file -verify-diagnostics --convert-memplan-to-memref

func.func @nested_arena(%c: i1) {
  scf.if %c {
    // expected-error @+1 {{memplan.arena must be in the entry block of a function body}}
    %arena = memplan.arena alignment(64) : memref<64xi8>
  }
  return
}

// -----

func.func @arena_in_second_block() {
  cf.br ^next
^next:
  // expected-error @+1 {{memplan.arena must be in the entry block of a function body}}
  %arena = memplan.arena alignment(64) : memref<64xi8>
  return
}
