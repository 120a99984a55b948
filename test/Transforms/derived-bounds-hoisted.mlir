// A slice made in the entry block but read only in a loop that runs when
// it fits (what upstream LICM makes of a slice inside the loop) implies
// nothing: M > 8 is a valid size (test/Transforms/derived-bounds-tensor.mlir
// has the slice that does).
// RUN: not memplan-opt %s --memplan-bufferize-modules --memplan-pack-arena="bounded=true" -o /dev/null 2>&1 | FileCheck %s
// CHECK: needs a bound for every symbol of @hoisted; missing: M
func.func @hoisted(%x: tensor<?x16xf32> {memplan.symbols = ["M", ""]}, %tab: tensor<8x16xf32>) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %m = tensor.dim %x, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%m) : tensor<?x16xf32>
  %a = linalg.add ins(%x, %x : tensor<?x16xf32>, tensor<?x16xf32>) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %fits = arith.cmpi ule, %m, %c8 : index
  %trips = arith.select %fits, %c1, %c0 : index
  %rows = tensor.extract_slice %tab[0, 0] [%m, 16] [1, 1] : tensor<8x16xf32> to tensor<?x16xf32>
  %r = scf.for %i = %c0 to %trips step %c1 iter_args(%acc = %a) -> tensor<?x16xf32> {
    %s = linalg.add ins(%acc, %rows : tensor<?x16xf32>, tensor<?x16xf32>) outs(%acc : tensor<?x16xf32>) -> tensor<?x16xf32>
    scf.yield %s : tensor<?x16xf32>
  }
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<16xf32>
  %of = linalg.fill ins(%z : f32) outs(%o : tensor<16xf32>) -> tensor<16xf32>
  %red = linalg.reduce ins(%r : tensor<?x16xf32>) outs(%of : tensor<16xf32>) dimensions = [0]
    (%u: f32, %acc2: f32) {
      %sum = arith.addf %u, %acc2 : f32
      linalg.yield %sum : f32
    }
  return %red : tensor<16xf32>
}
