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

// -----

// A nested module the pipeline did not lower: one error at the module, with
// the way to run the pipeline on it, not one per op inside.
module {
  llvm.func @outer_lowered() {
    llvm.return
  }
  // expected-error @+1 {{nested module @inner is not lowered: memplan's pipeline plans and lowers the top-level module's functions; run it on the nested module (--pass-pipeline='builtin.module(builtin.module(memplan-pipeline))')}}
  module @inner {
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %e = tensor.empty() : tensor<4xf32>
      return %e : tensor<4xf32>
    }
  }
}

// -----

// A nested module that was lowered is fine.
module {
  module @lowered_inner {
    llvm.func @g(%a: f32) -> f32 {
      llvm.return %a : f32
    }
  }
}
