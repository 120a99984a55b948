// A TOSA program (matmul, broadcast add, clamp as ReLU, mul, reduce_sum,
// tanh) lowered by upstream tosa-to-linalg, then planned: the lowered
// program's linalg.generic, tensor.expand/collapse_shape and fill chains are
// what TOSA front ends feed a compiler. Planned and unplanned programs print
// the same bits.
//
// RUN: mlir-opt %s --pass-pipeline="builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor))" -o %t.linalg.mlir
// RUN: memplan-opt --memplan-prepare %t.linalg.mlir | mlir-opt %bufferize \
// RUN:   | memplan-opt --memplan-lower-to-llvm \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.unplanned
// RUN: memplan-opt --memplan-pipeline="report=%t.json" %t.linalg.mlir \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.planned
// RUN: diff %t.unplanned %t.planned
// RUN: FileCheck %s --input-file=%t.planned
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json

// tanh of a scaled sum of squares: in [0, 1).
// CHECK-COUNT-4: {{\[}}0.{{[0-9]+}}]
// Five buffers of @mlp share one 512-byte arena (peak 512).
// REPORT: "arena_bytes": 512
// REPORT: "lower_bound_bytes": 512
// REPORT: "name": "mlp"

func.func private @printMemrefF32(memref<*xf32>)

func.func @mlp(%x: tensor<1x4x8xf32>, %w: tensor<1x8x16xf32>, %b: tensor<1x1x16xf32>) -> tensor<1x4x1xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %h = tosa.matmul %x, %w, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x16xf32>
  %hb = tosa.add %h, %b : (tensor<1x4x16xf32>, tensor<1x1x16xf32>) -> tensor<1x4x16xf32>
  %r = tosa.clamp %hb {min_val = 0.0 : f32, max_val = 3.4028235e38 : f32} : (tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %sq = tosa.mul %r, %r, %shift : (tensor<1x4x16xf32>, tensor<1x4x16xf32>, tensor<1xi8>) -> tensor<1x4x16xf32>
  %s0 = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<1x4x16xf32>) -> tensor<1x4x1xf32>
  %scale = "tosa.const"() <{values = dense<0.02> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %s = tosa.mul %s0, %scale, %shift : (tensor<1x4x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x1xf32>
  %t = tosa.tanh %s : (tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  return %t : tensor<1x4x1xf32>
}

func.func @main() {
  %x0 = tensor.empty() : tensor<1x4x8xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(n, i, j) -> (n, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%x0 : tensor<1x4x8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %v = func.call @pseudo(%i, %j) : (index, index) -> f32
    linalg.yield %v : f32
  } -> tensor<1x4x8xf32>
  %w0 = tensor.empty() : tensor<1x8x16xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(n, i, j) -> (n, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%w0 : tensor<1x8x16xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %v = func.call @pseudo(%j, %i) : (index, index) -> f32
    linalg.yield %v : f32
  } -> tensor<1x8x16xf32>
  %b = arith.constant dense<0.25> : tensor<1x1x16xf32>
  %r = func.call @mlp(%x, %w, %b) : (tensor<1x4x8xf32>, tensor<1x8x16xf32>, tensor<1x1x16xf32>) -> tensor<1x4x1xf32>
  %m = bufferization.to_buffer %r : tensor<1x4x1xf32> to memref<1x4x1xf32>
  %u = memref.cast %m : memref<1x4x1xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

// A deterministic value in [-1, 1): ((7a + 13b) mod 17) / 8.5 - 1.
func.func @pseudo(%a: index, %b: index) -> f32 {
  %c7 = arith.constant 7 : index
  %c13 = arith.constant 13 : index
  %c17 = arith.constant 17 : index
  %t0 = arith.muli %a, %c7 : index
  %t1 = arith.muli %b, %c13 : index
  %s = arith.addi %t0, %t1 : index
  %r = arith.remui %s, %c17 : index
  %ri = arith.index_cast %r : index to i32
  %rf = arith.sitofp %ri : i32 to f32
  %d = arith.constant 8.5 : f32
  %q = arith.divf %rf, %d : f32
  %one = arith.constant 1.0 : f32
  %v = arith.subf %q, %one : f32
  return %v : f32
}
