// Bounds the IR implies, at tensor level (docs/Lifetimes.md, "Symbolic
// sizes"): insert-remat sizes the remat graph at the bounds, so a budget on
// a dynamic function needs them.
// RUN: memplan-opt %s --memplan-pipeline="budget=100000 report=%t.json" -o /dev/null
// RUN: FileCheck %s --input-file=%t.json
// CHECK: "bound": 8,
// CHECK-NEXT: "bound_source": "memref.subview
// CHECK-NEXT: "name": "N",

// N rows written into an 8-row destination: N <= 8, from the
// tensor.insert_slice (the budget is accepted without a bound given).
func.func @inserted(%x: tensor<?x16xf32> {memplan.symbols = ["N", ""]}, %dest: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %e0 = tensor.empty(%n) : tensor<?x16xf32>
  %a = linalg.add ins(%x, %x : tensor<?x16xf32>, tensor<?x16xf32>) outs(%e0 : tensor<?x16xf32>) -> tensor<?x16xf32>
  %e1 = tensor.empty(%n) : tensor<?x16xf32>
  %b = linalg.mul ins(%a, %a : tensor<?x16xf32>, tensor<?x16xf32>) outs(%e1 : tensor<?x16xf32>) -> tensor<?x16xf32>
  %r = tensor.insert_slice %b into %dest[0, 0] [%n, 16] [1, 1] : tensor<?x16xf32> into tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
