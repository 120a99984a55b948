// Multi-level recomputation, checked by execution: a 12-layer chain
// (h_i = h_{i-1} * 0.5 + 1, the loss sums h_12, the gradients
// g_i = g_{i+1} * h_{i-1}) runs unplanned and under --memplan-pipeline with a
// budget of 1280 bytes (keep-all: 3072 B of arena) with the `budget`, `chain`
// and `optimal` policies. `chain` keeps states recomputed by one region for
// the next ones (regions read earlier regions' results); the outputs must be
// identical and the arena within the budget (the verifier inside the
// pipeline checks it).
//
// RUN: memplan-opt %bufferize %s | memplan-opt --memplan-lower-to-llvm \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v base@ > %t.ref
// RUN: memplan-opt --memplan-pipeline="budget=1280 report=%t.budget.json" %s \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v base@ > %t.budget
// RUN: diff %t.ref %t.budget
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.budget.json
// RUN: memplan-opt --memplan-pipeline="budget=1280 policy=chain" %s \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v base@ > %t.chain
// RUN: diff %t.ref %t.chain
// RUN: memplan-opt --memplan-insert-remat="budget=1280 policy=chain" %s | FileCheck %s --check-prefix=CHAIN
// RUN: FileCheck %s --check-prefix=OUT --input-file=%t.ref
//
// The chain plan stores a state inside one region and reads it in the next.
// CHAIN: %[[R:.*]]:2 = memplan.recompute({{.*}}%arg0)
// CHAIN: memplan.recompute({{.*}}%[[R]]#0)
// REPORT: "arena_bytes": {{(1280|1[01][0-9][0-9]|[0-9][0-9][0-9])}},
// REPORT: "name": "chain"
// The loss (64 values converging to 2) and the first gradients.
// OUT: [127.984]
// OUT-NEXT: [0,  17.7739,  34.0073,

func.func private @printMemrefF32(memref<*xf32>)

func.func @chain(%x: tensor<64xf32>, %dy: tensor<64xf32>) -> (tensor<f32>, tensor<64xf32>) {
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %e1 = tensor.empty() : tensor<64xf32>
  %h1 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e1 : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %half : f32
    %s = arith.addf %m, %one : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %h2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%h1 : tensor<64xf32>) outs(%e2 : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %half : f32
    %s = arith.addf %m, %one : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e3 = tensor.empty() : tensor<64xf32>
  %h3 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%h2 : tensor<64xf32>) outs(%e3 : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %half : f32
    %s = arith.addf %m, %one : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e4 = tensor.empty() : tensor<64xf32>
  %h4 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%h3 : tensor<64xf32>) outs(%e4 : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %half : f32
    %s = arith.addf %m, %one : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e5 = tensor.empty() : tensor<64xf32>
  %h5 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%h4 : tensor<64xf32>) outs(%e5 : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %half : f32
    %s = arith.addf %m, %one : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e6 = tensor.empty() : tensor<64xf32>
  %h6 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%h5 : tensor<64xf32>) outs(%e6 : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %half : f32
    %s = arith.addf %m, %one : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e7 = tensor.empty() : tensor<64xf32>
  %h7 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%h6 : tensor<64xf32>) outs(%e7 : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %half : f32
    %s = arith.addf %m, %one : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e8 = tensor.empty() : tensor<64xf32>
  %h8 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%h7 : tensor<64xf32>) outs(%e8 : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %half : f32
    %s = arith.addf %m, %one : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e9 = tensor.empty() : tensor<64xf32>
  %h9 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%h8 : tensor<64xf32>) outs(%e9 : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %half : f32
    %s = arith.addf %m, %one : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e10 = tensor.empty() : tensor<64xf32>
  %h10 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%h9 : tensor<64xf32>) outs(%e10 : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %half : f32
    %s = arith.addf %m, %one : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e11 = tensor.empty() : tensor<64xf32>
  %h11 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%h10 : tensor<64xf32>) outs(%e11 : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %half : f32
    %s = arith.addf %m, %one : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e12 = tensor.empty() : tensor<64xf32>
  %h12 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%h11 : tensor<64xf32>) outs(%e12 : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %half : f32
    %s = arith.addf %m, %one : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %z = arith.constant 0.0 : f32
  %el = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%z : f32) outs(%el : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce ins(%h12 : tensor<64xf32>) outs(%z0 : tensor<f32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  %ge12 = tensor.empty() : tensor<64xf32>
  %g12 = linalg.mul ins(%dy, %h11 : tensor<64xf32>, tensor<64xf32>) outs(%ge12 : tensor<64xf32>) -> tensor<64xf32>
  %ge11 = tensor.empty() : tensor<64xf32>
  %g11 = linalg.mul ins(%g12, %h10 : tensor<64xf32>, tensor<64xf32>) outs(%ge11 : tensor<64xf32>) -> tensor<64xf32>
  %ge10 = tensor.empty() : tensor<64xf32>
  %g10 = linalg.mul ins(%g11, %h9 : tensor<64xf32>, tensor<64xf32>) outs(%ge10 : tensor<64xf32>) -> tensor<64xf32>
  %ge9 = tensor.empty() : tensor<64xf32>
  %g9 = linalg.mul ins(%g10, %h8 : tensor<64xf32>, tensor<64xf32>) outs(%ge9 : tensor<64xf32>) -> tensor<64xf32>
  %ge8 = tensor.empty() : tensor<64xf32>
  %g8 = linalg.mul ins(%g9, %h7 : tensor<64xf32>, tensor<64xf32>) outs(%ge8 : tensor<64xf32>) -> tensor<64xf32>
  %ge7 = tensor.empty() : tensor<64xf32>
  %g7 = linalg.mul ins(%g8, %h6 : tensor<64xf32>, tensor<64xf32>) outs(%ge7 : tensor<64xf32>) -> tensor<64xf32>
  %ge6 = tensor.empty() : tensor<64xf32>
  %g6 = linalg.mul ins(%g7, %h5 : tensor<64xf32>, tensor<64xf32>) outs(%ge6 : tensor<64xf32>) -> tensor<64xf32>
  %ge5 = tensor.empty() : tensor<64xf32>
  %g5 = linalg.mul ins(%g6, %h4 : tensor<64xf32>, tensor<64xf32>) outs(%ge5 : tensor<64xf32>) -> tensor<64xf32>
  %ge4 = tensor.empty() : tensor<64xf32>
  %g4 = linalg.mul ins(%g5, %h3 : tensor<64xf32>, tensor<64xf32>) outs(%ge4 : tensor<64xf32>) -> tensor<64xf32>
  %ge3 = tensor.empty() : tensor<64xf32>
  %g3 = linalg.mul ins(%g4, %h2 : tensor<64xf32>, tensor<64xf32>) outs(%ge3 : tensor<64xf32>) -> tensor<64xf32>
  %ge2 = tensor.empty() : tensor<64xf32>
  %g2 = linalg.mul ins(%g3, %h1 : tensor<64xf32>, tensor<64xf32>) outs(%ge2 : tensor<64xf32>) -> tensor<64xf32>
  %ge1 = tensor.empty() : tensor<64xf32>
  %g1 = linalg.mul ins(%g2, %x : tensor<64xf32>, tensor<64xf32>) outs(%ge1 : tensor<64xf32>) -> tensor<64xf32>
  return %loss, %g1 : tensor<f32>, tensor<64xf32>
}

func.func @main() {
  %e0 = tensor.empty() : tensor<64xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      outs(%e0 : tensor<64xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %c = arith.constant 0.03125 : f32
    %v = arith.mulf %f, %c : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  %e1 = tensor.empty() : tensor<64xf32>
  %dy = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      outs(%e1 : tensor<64xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %c = arith.constant -0.0625 : f32
    %k = arith.constant 1.0 : f32
    %m = arith.mulf %f, %c : f32
    %v = arith.addf %m, %k : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  %loss, %grad = func.call @chain(%x, %dy) : (tensor<64xf32>, tensor<64xf32>) -> (tensor<f32>, tensor<64xf32>)
  %lm = bufferization.to_buffer %loss : tensor<f32> to memref<f32>
  %lu = memref.cast %lm : memref<f32> to memref<*xf32>
  func.call @printMemrefF32(%lu) : (memref<*xf32>) -> ()
  %gm = bufferization.to_buffer %grad : tensor<64xf32> to memref<64xf32>
  %gu = memref.cast %gm : memref<64xf32> to memref<*xf32>
  func.call @printMemrefF32(%gu) : (memref<*xf32>) -> ()
  return
}
