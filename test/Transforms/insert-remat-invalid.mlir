// RUN: memplan-opt %s -split-input-file -verify-diagnostics --memplan-insert-remat="policy=budget"
// RUN: not memplan-opt %s --memplan-insert-remat="policy=magic" 2>&1 | FileCheck %s --check-prefix=POLICY
// RUN: not memplan-opt %s --split-input-file --memplan-insert-remat="budget=8" 2>&1 | FileCheck %s --check-prefix=INFEASIBLE
// POLICY: Cannot find option named 'magic'
// INFEASIBLE: error: the budget of 8 bytes is infeasible for @small: the smallest budget policy 'budget' reaches is 32 bytes

// expected-error @+1 {{policy 'budget' needs a budget}}
module {
  func.func @small(%x: tensor<8xf32>) -> tensor<f32> {
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
    return %loss : tensor<f32>
  }
}
