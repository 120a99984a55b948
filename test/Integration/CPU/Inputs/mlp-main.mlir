// A driver for examples/mlp_train_step.mlir: deterministic inputs, one
// training step, every output printed.
func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %x0 = tensor.empty() : tensor<4x8xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%x0 : tensor<4x8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = func.call @pseudo(%i, %j, %i) : (index, index, index) -> f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %y0 = tensor.empty() : tensor<4x4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%y0 : tensor<4x4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c5 = arith.constant 5 : index
    %v = func.call @pseudo(%j, %i, %c5) : (index, index, index) -> f32
    linalg.yield %v : f32
  } -> tensor<4x4xf32>
  %w10 = tensor.empty() : tensor<8x16xf32>
  %w1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%w10 : tensor<8x16xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c1 = arith.constant 1 : index
    %v = func.call @pseudo(%i, %j, %c1) : (index, index, index) -> f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  %b10 = tensor.empty() : tensor<16xf32>
  %b1 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      outs(%b10 : tensor<16xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %c2 = arith.constant 2 : index
    %v = func.call @pseudo(%i, %c2, %c2) : (index, index, index) -> f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  %w20 = tensor.empty() : tensor<16x4xf32>
  %w2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%w20 : tensor<16x4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c3 = arith.constant 3 : index
    %v = func.call @pseudo(%i, %j, %c3) : (index, index, index) -> f32
    linalg.yield %v : f32
  } -> tensor<16x4xf32>

  %loss, %nw1, %nb1, %nw2 = func.call @train_step(%x, %y, %w1, %b1, %w2)
      : (tensor<4x8xf32>, tensor<4x4xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16x4xf32>)
      -> (tensor<f32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16x4xf32>)

  %m0 = bufferization.to_buffer %loss : tensor<f32> to memref<f32>
  %u0 = memref.cast %m0 : memref<f32> to memref<*xf32>
  func.call @printMemrefF32(%u0) : (memref<*xf32>) -> ()
  %m1 = bufferization.to_buffer %nw1 : tensor<8x16xf32> to memref<8x16xf32>
  %u1 = memref.cast %m1 : memref<8x16xf32> to memref<*xf32>
  func.call @printMemrefF32(%u1) : (memref<*xf32>) -> ()
  %m2 = bufferization.to_buffer %nb1 : tensor<16xf32> to memref<16xf32>
  %u2 = memref.cast %m2 : memref<16xf32> to memref<*xf32>
  func.call @printMemrefF32(%u2) : (memref<*xf32>) -> ()
  %m3 = bufferization.to_buffer %nw2 : tensor<16x4xf32> to memref<16x4xf32>
  %u3 = memref.cast %m3 : memref<16x4xf32> to memref<*xf32>
  func.call @printMemrefF32(%u3) : (memref<*xf32>) -> ()
  return
}

// A deterministic value in [-0.5, 0.5): ((7a + 13b + 29c) mod 17) / 17 - 0.5.
func.func @pseudo(%a: index, %b: index, %c: index) -> f32 {
  %c7 = arith.constant 7 : index
  %c13 = arith.constant 13 : index
  %c29 = arith.constant 29 : index
  %c17 = arith.constant 17 : index
  %t0 = arith.muli %a, %c7 : index
  %t1 = arith.muli %b, %c13 : index
  %t2 = arith.muli %c, %c29 : index
  %s0 = arith.addi %t0, %t1 : index
  %s1 = arith.addi %s0, %t2 : index
  %r = arith.remui %s1, %c17 : index
  %ri = arith.index_cast %r : index to i32
  %rf = arith.sitofp %ri : i32 to f32
  %d = arith.constant 17.0 : f32
  %q = arith.divf %rf, %d : f32
  %h = arith.constant 0.5 : f32
  %v = arith.subf %q, %h : f32
  return %v : f32
}
