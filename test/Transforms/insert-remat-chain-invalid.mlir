// RUN: memplan-opt %s -verify-diagnostics --memplan-insert-remat="budget=100000 policy=chain"
// The `chain` policy plans chains only: here the first layer's output is
// read by the third layer too (a skip connection); a gradient reads both.

func.func @skip(%x: tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>) {
  %e0 = tensor.empty() : tensor<8xf32>
  %h0 = linalg.exp ins(%x : tensor<8xf32>) outs(%e0 : tensor<8xf32>) -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %h1 = linalg.exp ins(%h0 : tensor<8xf32>) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  // expected-error @+1 {{memplan-insert-remat cannot plan @skip: policy 'chain' needs the forward nodes to form a chain: node 2 reads node 0, not the forward node before it (node 1)}}
  %h2 = linalg.add ins(%h1, %h0 : tensor<8xf32>, tensor<8xf32>) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
  %z = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%z : f32) outs(%e3 : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce ins(%h2 : tensor<8xf32>) outs(%z0 : tensor<f32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  %e4 = tensor.empty() : tensor<8xf32>
  %g = linalg.mul ins(%h1, %h0 : tensor<8xf32>, tensor<8xf32>) outs(%e4 : tensor<8xf32>) -> tensor<8xf32>
  return %loss, %g : tensor<f32>, tensor<8xf32>
}
