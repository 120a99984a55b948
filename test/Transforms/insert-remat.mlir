// RUN: memplan-opt %s -split-input-file --memplan-insert-remat="policy=recompute-all" | FileCheck %s --check-prefix=ALL
// RUN: memplan-opt %s -split-input-file --memplan-insert-remat="policy=keep-all" | FileCheck %s --check-prefix=KEEP
// RUN: memplan-opt %s -split-input-file --memplan-insert-remat="budget=100000" | FileCheck %s --check-prefix=BUDGET
// Materializing gives back ordinary ops that compute the same values.
// RUN: memplan-opt %s -split-input-file --memplan-insert-remat="policy=recompute-all" --memplan-materialize-remat | FileCheck %s --check-prefix=MAT

// A two-layer step: the loss (first result) depends on %h and %o, so they
// are forward; %g (the gradient) reads %h, so %h is saved for backward.
// ALL-LABEL: func.func @step
// ALL: %[[H:.*]] = linalg.exp
// ALL: %[[R:.*]] = memplan.recompute(%{{.*}}) : (tensor<8xf32>) -> tensor<8xf32> {
// ALL-NEXT: ^bb0(%[[X:.*]]: tensor<8xf32>):
// ALL: linalg.exp ins(%[[X]] : tensor<8xf32>)
// ALL: memplan.yield
// The gradient's buffer (its tensor.empty came before the region) starts
// after the recomputation, as the schedule model counts it.
// ALL-NEXT: }
// ALL-NEXT: %[[E:.*]] = tensor.empty() : tensor<8xf32>
// ALL-NEXT: linalg.mul ins(%{{.*}}, %[[R]] : tensor<8xf32>, tensor<8xf32>) outs(%[[E]] :
// KEEP-LABEL: func.func @step
// KEEP: %[[H:.*]] = linalg.exp
// KEEP-NEXT: %[[K:.*]] = memplan.checkpoint %[[H]] : tensor<8xf32>
// KEEP: linalg.mul ins(%{{.*}}, %[[K]] : tensor<8xf32>, tensor<8xf32>)
// KEEP-NOT: memplan.recompute
// BUDGET-LABEL: func.func @step
// BUDGET-SAME: memplan.budget = 100000 : i64
// MAT-LABEL: func.func @step
// MAT-NOT: memplan.{{(recompute|checkpoint)}}
// MAT-COUNT-2: linalg.exp
func.func @step(%x: tensor<8xf32>, %dy: tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>) {
  %e0 = tensor.empty() : tensor<8xf32>
  %h = linalg.exp ins(%x : tensor<8xf32>) outs(%e0 : tensor<8xf32>) -> tensor<8xf32>
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%z : f32) outs(%e1 : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce ins(%h : tensor<8xf32>) outs(%z0 : tensor<f32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  %e2 = tensor.empty() : tensor<8xf32>
  %g = linalg.mul ins(%dy, %h : tensor<8xf32>, tensor<8xf32>) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
  return %loss, %g : tensor<f32>, tensor<8xf32>
}

// -----

// A chain may start before the backward op it belongs to: the copy into
// %g2's buffer reads %h long before %g2 is complete. The recomputation of %h
// (recompute-all) goes before that first reader, not before %g1.
// ALL-LABEL: func.func @early
// ALL: %[[R:.*]] = memplan.recompute(%{{.*}}) : (tensor<8xf32>) -> tensor<8xf32> {
// ALL: linalg.copy ins(%[[R]] : tensor<8xf32>)
// ALL: linalg.mul ins(%{{.*}}, %[[R]] : tensor<8xf32>, tensor<8xf32>)
func.func @early(%x: tensor<8xf32>, %dy: tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>, tensor<8xf32>) {
  %e0 = tensor.empty() : tensor<8xf32>
  %h = linalg.exp ins(%x : tensor<8xf32>) outs(%e0 : tensor<8xf32>) -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %h2 = linalg.exp ins(%h : tensor<8xf32>) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %z = arith.constant 0.0 : f32
  %el = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%z : f32) outs(%el : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce ins(%h2 : tensor<8xf32>) outs(%z0 : tensor<f32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  %eb = tensor.empty() : tensor<8xf32>
  %c = linalg.copy ins(%h : tensor<8xf32>) outs(%eb : tensor<8xf32>) -> tensor<8xf32>
  %ea = tensor.empty() : tensor<8xf32>
  %g1 = linalg.mul ins(%dy, %h : tensor<8xf32>, tensor<8xf32>) outs(%ea : tensor<8xf32>) -> tensor<8xf32>
  %g2 = linalg.mul ins(%g1, %dy : tensor<8xf32>, tensor<8xf32>) outs(%c : tensor<8xf32>) -> tensor<8xf32>
  return %loss, %g1, %g2 : tensor<f32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// Two backward chains start before the region that recomputes %h: %g1's
// buffer is %sum, computed from %zeros — which is also the start of %g2's
// chain. The chains' leading ops move after the region only where every op
// that reads them still follows: %sum's empty and add move, %zeros (read by
// the add, which moved first) stays before the region.
// ALL-LABEL: func.func @cross_read
// ALL: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<16xf32>)
// ALL: memplan.recompute
// ALL: memplan.yield
// ALL: tensor.empty() : tensor<16xf32>
// ALL-NEXT: linalg.add ins(%[[Z]], %[[Z]] : tensor<16xf32>, tensor<16xf32>)
// ALL-NEXT: linalg.mul
// ALL-NEXT: linalg.mul
func.func @cross_read(%x: tensor<16xf32>, %dy: tensor<16xf32>) -> (tensor<f32>, tensor<16xf32>, tensor<16xf32>) {
  %e0 = tensor.empty() : tensor<16xf32>
  %h = linalg.exp ins(%x : tensor<16xf32>) outs(%e0 : tensor<16xf32>) -> tensor<16xf32>
  %e1 = tensor.empty() : tensor<16xf32>
  %h1 = linalg.exp ins(%h : tensor<16xf32>) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %c0 = arith.constant 0.0 : f32
  %el = tensor.empty() : tensor<f32>
  %l0 = linalg.fill ins(%c0 : f32) outs(%el : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce ins(%h1 : tensor<16xf32>) outs(%l0 : tensor<f32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  %ez = tensor.empty() : tensor<16xf32>
  %zeros = linalg.fill ins(%c0 : f32) outs(%ez : tensor<16xf32>) -> tensor<16xf32>
  %es = tensor.empty() : tensor<16xf32>
  %sum = linalg.add ins(%zeros, %zeros : tensor<16xf32>, tensor<16xf32>) outs(%es : tensor<16xf32>) -> tensor<16xf32>
  %g2 = linalg.mul ins(%dy, %h : tensor<16xf32>, tensor<16xf32>) outs(%zeros : tensor<16xf32>) -> tensor<16xf32>
  %g1 = linalg.mul ins(%dy, %h : tensor<16xf32>, tensor<16xf32>) outs(%sum : tensor<16xf32>) -> tensor<16xf32>
  return %loss, %g2, %g1 : tensor<f32>, tensor<16xf32>, tensor<16xf32>
}
