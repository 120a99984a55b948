// RUN: memplan-opt %s -split-input-file -allow-unregistered-dialect -verify-diagnostics --memplan-verify-lowered
// RUN: memplan-opt %s -split-input-file -allow-unregistered-dialect -verify-diagnostics --memplan-verify-lowered=target=nvvm

// Only the target's dialects may remain after lowering; each leftover op
// name is reported once, at its first occurrence. Unregistered ops (no
// dialect) are reported too (they crashed this check, found by fuzz_ir).

llvm.func @leftovers(%p: !llvm.ptr) {
  // expected-error @+1 {{'ub.poison' is left after lowering for target=}}
  %0 = ub.poison : f32
  %1 = ub.poison : f32
  // expected-error @+1 {{'test.use' is left after lowering for target=}}
  "test.use"(%0) : (f32) -> ()
  llvm.return
}

// -----

// Fully lowered: nothing to report.
llvm.func @lowered(%a: f32) -> f32 {
  %0 = llvm.fadd %a, %a : f32
  llvm.return %0 : f32
}
