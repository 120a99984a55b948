// A small MLP training step in linalg-on-tensors, written by hand:
//   forward   h = x W1 + b1,  a = relu(h),  o = a W2
//   loss      L = sum((o - y)^2) / N                    (N = 4 x 4 outputs)
//   backward  dO = 2 (o - y) / N
//             dW2 = a^T dO,  dA = dO W2^T,  dH = dA * [h > 0]
//             dW1 = x^T dH,  db1 = sum over the batch of dH
//   update    W <- W - lr dW (SGD, lr = 0.1)
// Shapes: batch 4, inputs 8, hidden 16, outputs 4.
//
// Try: build/bin/memplan-opt --test-memplan-print-lifetimes examples/mlp_train_step.mlir -o /dev/null

#id2 = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
#scalar = affine_map<(i, j) -> ()>

func.func @train_step(%x: tensor<4x8xf32>, %y: tensor<4x4xf32>,
                      %w1: tensor<8x16xf32>, %b1: tensor<16xf32>,
                      %w2: tensor<16x4xf32>)
    -> (tensor<f32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %lr = arith.constant 0.1 : f32
  %two_over_n = arith.constant 0.125 : f32   // 2 / 16
  %inv_n = arith.constant 0.0625 : f32       // 1 / 16

  // ---- forward ----
  %h0 = tensor.empty() : tensor<4x16xf32>
  %h0z = linalg.fill ins(%zero : f32) outs(%h0 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %xw = linalg.matmul ins(%x, %w1 : tensor<4x8xf32>, tensor<8x16xf32>)
                      outs(%h0z : tensor<4x16xf32>) -> tensor<4x16xf32>
  %hb = tensor.empty() : tensor<4x16xf32>
  %h = linalg.generic {indexing_maps = [#id2, #row, #id2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%xw, %b1 : tensor<4x16xf32>, tensor<16xf32>) outs(%hb : tensor<4x16xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  %ab = tensor.empty() : tensor<4x16xf32>
  %a = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<4x16xf32>) outs(%ab : tensor<4x16xf32>) {
  ^bb0(%v: f32, %out: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %o0 = tensor.empty() : tensor<4x4xf32>
  %o0z = linalg.fill ins(%zero : f32) outs(%o0 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %o = linalg.matmul ins(%a, %w2 : tensor<4x16xf32>, tensor<16x4xf32>)
                     outs(%o0z : tensor<4x4xf32>) -> tensor<4x4xf32>

  // ---- loss ----
  %db = tensor.empty() : tensor<4x4xf32>
  %diff = linalg.sub ins(%o, %y : tensor<4x4xf32>, tensor<4x4xf32>)
                     outs(%db : tensor<4x4xf32>) -> tensor<4x4xf32>
  %l0 = tensor.empty() : tensor<f32>
  %l0z = linalg.fill ins(%zero : f32) outs(%l0 : tensor<f32>) -> tensor<f32>
  %sq = linalg.generic {indexing_maps = [#id2, #scalar], iterator_types = ["reduction", "reduction"]}
      ins(%diff : tensor<4x4xf32>) outs(%l0z : tensor<f32>) {
  ^bb0(%d: f32, %acc: f32):
    %p = arith.mulf %d, %d : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>],
                          iterator_types = []}
      ins(%sq : tensor<f32>) outs(%l0z : tensor<f32>) {
  ^bb0(%s: f32, %out: f32):
    %m = arith.mulf %s, %inv_n : f32
    linalg.yield %m : f32
  } -> tensor<f32>

  // ---- backward ----
  %gob = tensor.empty() : tensor<4x4xf32>
  %dO = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%diff : tensor<4x4xf32>) outs(%gob : tensor<4x4xf32>) {
  ^bb0(%d: f32, %out: f32):
    %g = arith.mulf %d, %two_over_n : f32
    linalg.yield %g : f32
  } -> tensor<4x4xf32>
  // dW2 = a^T dO
  %atb = tensor.empty() : tensor<16x4xf32>
  %aT = linalg.transpose ins(%a : tensor<4x16xf32>) outs(%atb : tensor<16x4xf32>) permutation = [1, 0]
  %dw2b = tensor.empty() : tensor<16x4xf32>
  %dw2z = linalg.fill ins(%zero : f32) outs(%dw2b : tensor<16x4xf32>) -> tensor<16x4xf32>
  %dW2 = linalg.matmul ins(%aT, %dO : tensor<16x4xf32>, tensor<4x4xf32>)
                       outs(%dw2z : tensor<16x4xf32>) -> tensor<16x4xf32>
  // dA = dO W2^T
  %w2tb = tensor.empty() : tensor<4x16xf32>
  %w2T = linalg.transpose ins(%w2 : tensor<16x4xf32>) outs(%w2tb : tensor<4x16xf32>) permutation = [1, 0]
  %dab = tensor.empty() : tensor<4x16xf32>
  %daz = linalg.fill ins(%zero : f32) outs(%dab : tensor<4x16xf32>) -> tensor<4x16xf32>
  %dA = linalg.matmul ins(%dO, %w2T : tensor<4x4xf32>, tensor<4x16xf32>)
                      outs(%daz : tensor<4x16xf32>) -> tensor<4x16xf32>
  // dH = dA * [h > 0]
  %dhb = tensor.empty() : tensor<4x16xf32>
  %dH = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%dA, %h : tensor<4x16xf32>, tensor<4x16xf32>) outs(%dhb : tensor<4x16xf32>) {
  ^bb0(%g: f32, %v: f32, %out: f32):
    %pos = arith.cmpf ogt, %v, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  // dW1 = x^T dH
  %xtb = tensor.empty() : tensor<8x4xf32>
  %xT = linalg.transpose ins(%x : tensor<4x8xf32>) outs(%xtb : tensor<8x4xf32>) permutation = [1, 0]
  %dw1b = tensor.empty() : tensor<8x16xf32>
  %dw1z = linalg.fill ins(%zero : f32) outs(%dw1b : tensor<8x16xf32>) -> tensor<8x16xf32>
  %dW1 = linalg.matmul ins(%xT, %dH : tensor<8x4xf32>, tensor<4x16xf32>)
                       outs(%dw1z : tensor<8x16xf32>) -> tensor<8x16xf32>
  // db1 = sum over the batch of dH
  %db1b = tensor.empty() : tensor<16xf32>
  %db1z = linalg.fill ins(%zero : f32) outs(%db1b : tensor<16xf32>) -> tensor<16xf32>
  %db1 = linalg.reduce ins(%dH : tensor<4x16xf32>) outs(%db1z : tensor<16xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }

  // ---- SGD update ----
  %nw1b = tensor.empty() : tensor<8x16xf32>
  %nw1 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w1, %dW1 : tensor<8x16xf32>, tensor<8x16xf32>) outs(%nw1b : tensor<8x16xf32>) {
  ^bb0(%w: f32, %g: f32, %out: f32):
    %s = arith.mulf %g, %lr : f32
    %n = arith.subf %w, %s : f32
    linalg.yield %n : f32
  } -> tensor<8x16xf32>
  %nb1b = tensor.empty() : tensor<16xf32>
  %nb1 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                         iterator_types = ["parallel"]}
      ins(%b1, %db1 : tensor<16xf32>, tensor<16xf32>) outs(%nb1b : tensor<16xf32>) {
  ^bb0(%w: f32, %g: f32, %out: f32):
    %s = arith.mulf %g, %lr : f32
    %n = arith.subf %w, %s : f32
    linalg.yield %n : f32
  } -> tensor<16xf32>
  %nw2b = tensor.empty() : tensor<16x4xf32>
  %nw2 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w2, %dW2 : tensor<16x4xf32>, tensor<16x4xf32>) outs(%nw2b : tensor<16x4xf32>) {
  ^bb0(%w: f32, %g: f32, %out: f32):
    %s = arith.mulf %g, %lr : f32
    %n = arith.subf %w, %s : f32
    linalg.yield %n : f32
  } -> tensor<16x4xf32>

  return %loss, %nw1, %nb1, %nw2 : tensor<f32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16x4xf32>
}
