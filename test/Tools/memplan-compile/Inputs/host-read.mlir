func.func @f(%t: tensor<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %v = tensor.extract %t[%c0] : tensor<4xf32>
  return %v : f32
}
