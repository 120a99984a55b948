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

// A nested module left unlowered (the pipeline lowers nested modules for
// target=cpu; this one never went through it): one error at the module,
// naming the first op left, not one per op inside.
module {
  llvm.func @outer_lowered() {
    llvm.return
  }
  // (The target named before this part is the RUN line's.)
  // expected-error @+1 {{: 'tensor.empty' is left in it (the pipeline lowers nested modules for target=cpu, except vector.mask; run it on the nested module alone: --pass-pipeline='builtin.module(builtin.module(memplan-pipeline))')}}
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
