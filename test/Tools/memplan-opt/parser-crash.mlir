// libMLIR 22's parser reports an out-of-range linalg.reduce dimension with
// its location and then crashes (a null attribute). memplan-opt ends a crash
// while parsing in exit 1 after the stack dump and a line naming it: `not`
// fails on a signal, so this fails where the crash kills memplan-opt. Only
// the located error is checked (a libMLIR that no longer crashes passes
// too). Found by bench/fuzz/fuzz_ir.py --seed 20261127 (case 101).
// RUN: rm -f %t.out
// RUN: not memplan-opt %s -o %t.out 2>&1 | FileCheck %s
// RUN: not test -e %t.out
// CHECK: parser-crash.mlir:[[@LINE+6]]:{{[0-9]+}}: error: custom op 'linalg.reduce' integer value too large

func.func @reduce(%x: tensor<8xf32>) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%x : tensor<8xf32>) outs(%z0 : tensor<f32>) dimensions = [99999999999999999999]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}
