// An erf-based GELU after a matmul, written with elementwise arith/math ops on
// tensors as front ends emit it (no linalg for the elementwise part): the
// pipeline converts them to linalg (convert-elementwise-to-linalg), plans the
// step, and lowers math.erf to a libm call. Planned and unplanned programs
// print the same bits.
//
// RUN: memplan-opt --memplan-prepare %s | mlir-opt %bufferize \
// RUN:   | memplan-opt --memplan-lower-to-llvm \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.unplanned
// RUN: memplan-opt --memplan-pipeline="report=%t.json" %s \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.planned
// RUN: diff %t.unplanned %t.planned
// RUN: FileCheck %s --input-file=%t.planned
// The matmul's result, read by the elementwise ops, is planned in @gelu's
// arena (bufferization writes the elementwise chain in place).
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json

// GELU(0.5 * 0.5 * ...) of the first row; erf came from libm.
// CHECK: {{\[\[}}2.76036, {{ *}}-0.165283, {{ *}}-0.163067
// CHECK-COUNT-3: [
// REPORT: "arena_bytes": 128
// REPORT: "name": "gelu"

func.func private @printMemrefF32(memref<*xf32>)

func.func @gelu(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %half = arith.constant dense<0.5> : tensor<4x8xf32>
  %one = arith.constant dense<1.0> : tensor<4x8xf32>
  %rsqrt2 = arith.constant dense<0.707106769> : tensor<4x8xf32>
  %a = arith.mulf %h, %rsqrt2 : tensor<4x8xf32>
  %b = math.erf %a : tensor<4x8xf32>
  %c = arith.addf %b, %one : tensor<4x8xf32>
  %d = arith.mulf %h, %c : tensor<4x8xf32>
  %y = arith.mulf %d, %half : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

func.func @main() {
  %x0 = tensor.empty() : tensor<4x8xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%x0 : tensor<4x8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = func.call @pseudo(%i, %j) : (index, index) -> f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %w0 = tensor.empty() : tensor<8x8xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%w0 : tensor<8x8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = func.call @pseudo(%j, %i) : (index, index) -> f32
    linalg.yield %v : f32
  } -> tensor<8x8xf32>
  %y = func.call @gelu(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %m = bufferization.to_buffer %y : tensor<4x8xf32> to memref<4x8xf32>
  %u = memref.cast %m : memref<4x8xf32> to memref<*xf32>
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
