// RUN: memplan-opt %s --split-input-file --memplan-lower-asserts --verify-diagnostics | FileCheck %s

// A host cf.assert: its message (plus a newline) goes to stderr with write,
// then abort; write and abort are declared as llvm.func. An assert in a
// gpu.module (kernel code) keeps upstream's lowering.
// CHECK-DAG: llvm.func @write(i32, !llvm.ptr, i64) -> i64
// CHECK-DAG: llvm.func @abort()
// CHECK-DAG: llvm.mlir.global private constant @__memplan_assert_message("too big\0A")
// CHECK-LABEL: func.func @guard
// CHECK-SAME: (%[[OK:.*]]: i1)
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: %[[BAD:.*]] = arith.xori %[[OK]], %[[TRUE]] : i1
// CHECK: scf.if %[[BAD]] {
// CHECK:   %[[MSG:.*]] = llvm.mlir.addressof @__memplan_assert_message : !llvm.ptr
// CHECK:   %[[FD:.*]] = arith.constant 2 : i32
// CHECK:   %[[LEN:.*]] = arith.constant 8 : i64
// CHECK:   llvm.call @write(%[[FD]], %[[MSG]], %[[LEN]]) : (i32, !llvm.ptr, i64) -> i64
// CHECK:   llvm.call @abort() : () -> ()
// CHECK: }
// CHECK-NOT: cf.assert
// CHECK: return
// CHECK: gpu.module @kernels
// CHECK: cf.assert %{{.*}}, "in a kernel"
module attributes {gpu.container_module} {
  func.func @guard(%ok: i1) {
    cf.assert %ok, "too big"
    return
  }
  gpu.module @kernels {
    gpu.func @k(%ok: i1) kernel {
      cf.assert %ok, "in a kernel"
      gpu.return
    }
  }
}

// -----

// The module's own `write` (as memplan-zoo's drivers declare it) is used
// when it has the C signature; two asserts with one message share a global.
// CHECK: llvm.mlir.global private constant @__memplan_assert_message("same\0A")
// CHECK-NOT: llvm.mlir.global
// CHECK-NOT: llvm.func @write
// CHECK-LABEL: func.func private @write(i32, !llvm.ptr, i64) -> i64
// CHECK-LABEL: func.func @two
// CHECK: llvm.mlir.addressof @__memplan_assert_message :
// CHECK: call @write(
// CHECK: llvm.call @abort()
// CHECK: llvm.mlir.addressof @__memplan_assert_message :
// CHECK: call @write(
func.func private @write(i32, !llvm.ptr, i64) -> i64
func.func @two(%a: i1, %b: i1) {
  cf.assert %a, "same"
  cf.assert %b, "same"
  return
}

// -----

// A `write` that is not the C function: the pass fails, located.
func.func private @write(i32) -> i32
func.func @clash(%a: i1) {
  // expected-error @+1 {{cannot lower 'cf.assert': the module's 'write' is not the C function}}
  cf.assert %a, "x"
  return
}

// -----

// A nested module gets its own declarations and message; an assert in a
// gpu.launch body (kernel code before outlining) is left alone.
// CHECK-LABEL: module @outer
// CHECK: llvm.mlir.global private constant @__memplan_assert_message("outer\0A")
// CHECK: module @inner
// CHECK-DAG: llvm.mlir.global private constant @__memplan_assert_message("inner\0A")
// CHECK-DAG: llvm.func @write(i32, !llvm.ptr, i64) -> i64
// CHECK-DAG: llvm.func @abort()
// CHECK: func.func @g
// CHECK: llvm.mlir.addressof @__memplan_assert_message :
// CHECK: func.func @f
// CHECK: gpu.launch
// CHECK: cf.assert %{{.*}}, "in a launch"
// CHECK: llvm.mlir.addressof @__memplan_assert_message :
module @outer {
  module @inner {
    func.func @g(%a: i1) {
      cf.assert %a, "inner"
      return
    }
  }
  func.func @f(%a: i1) {
    %c1 = arith.constant 1 : index
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
               threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
      cf.assert %a, "in a launch"
      gpu.terminator
    }
    cf.assert %a, "outer"
    return
  }
}
