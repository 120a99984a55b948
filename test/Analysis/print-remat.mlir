// RUN: memplan-opt %s --test-memplan-print-remat -o /dev/null | FileCheck %s --check-prefix=KEEP
// RUN: memplan-opt %s --test-memplan-print-remat="policy=recompute-all" -o /dev/null | FileCheck %s --check-prefix=ALL
// RUN: memplan-opt %s --test-memplan-print-remat="policy=budget budget=96" -o /dev/null | FileCheck %s --check-prefix=BUDGET
// RUN: memplan-opt %s --test-memplan-print-remat="policy=budget budget=64" -o /dev/null | FileCheck %s --check-prefix=TIGHT

// A three-layer chain: h1 = exp(x), h2 = exp(h1), loss = sum(h2); the
// backward pass reads h1 and h2 (g2 = dy * h2, g1 = g2 * h1). One node per
// buffer: the chain tensor.empty -> linalg op; bytes 32 each (8 x f32);
// costs are iterations x payload ops (docs/CostModel.md).
// KEEP-LABEL: remat graph of @chain (5 nodes)
// KEEP-NEXT: node 0: tensor.empty [forward] 32 B cost 8 reads []
// KEEP-NEXT: node 1: tensor.empty [forward] 32 B cost 8 reads [0]
// KEEP-NEXT: node 2: tensor.empty [external] 0 B cost 9 reads [1]
// KEEP-NEXT: node 3: tensor.empty [backward] 32 B cost 8 reads [1]
// KEEP-NEXT: node 4: tensor.empty [external] 0 B cost 8 reads [0, 3]
// KEEP-NEXT: decisions (keep-all): keep 0 keep 1
// While g2 runs: h1, h2 and g2 are resident.
// KEEP-NEXT: peak = 96 cost = 41 baseline = 41
// ALL: decisions (recompute-all): recompute 0 recompute 1
// h2 is rebuilt for g2 with h1 as a temporary (+16: h1, h2 resident, then g2
// runs with h2: 64 B); h1 comes back for g1 (+8).
// ALL-NEXT: peak = 64 cost = 65 baseline = 41
// BUDGET: decisions (budget): keep 0 keep 1
// BUDGET-NEXT: peak = 96
// TIGHT: decisions (budget): {{.*}}recompute
// TIGHT-NEXT: peak = 64
func.func @chain(%x: tensor<8xf32>, %dy: tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>) {
  %e0 = tensor.empty() : tensor<8xf32>
  %h1 = linalg.exp ins(%x : tensor<8xf32>) outs(%e0 : tensor<8xf32>) -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %h2 = linalg.exp ins(%h1 : tensor<8xf32>) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %z = arith.constant 0.0 : f32
  %el = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%z : f32) outs(%el : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce ins(%h2 : tensor<8xf32>) outs(%z0 : tensor<f32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  %e2 = tensor.empty() : tensor<8xf32>
  %g2 = linalg.mul ins(%dy, %h2 : tensor<8xf32>, tensor<8xf32>) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
  %e3 = tensor.empty() : tensor<8xf32>
  %g1 = linalg.mul ins(%g2, %h1 : tensor<8xf32>, tensor<8xf32>) outs(%e3 : tensor<8xf32>) -> tensor<8xf32>
  return %loss, %g1 : tensor<f32>, tensor<8xf32>
}
