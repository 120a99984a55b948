// RUN: memplan-opt %s -verify-diagnostics --memplan-insert-remat="policy=recompute-all"

func.func @looping(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{memplan-insert-remat supports straight-line functions only, found 'scf.for'}}
  %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%a = %x) -> tensor<4xf32> {
    scf.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
