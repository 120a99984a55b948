// A blocked matmul as data-tiling front ends emit it: both operands packed
// into 4x4 tiles (linalg.pack), a matmul on the tiles (linalg.mmt4d), the
// result unpacked (linalg.unpack). One-shot-bufferize does not bufferize
// pack/unpack; the pipeline lowers them first (memplan-lower-pack-unpack)
// and plans the tiles' buffers. Planned and unplanned programs print the same
// bits.
//
// RUN: memplan-opt --memplan-prepare %s | mlir-opt %bufferize \
// RUN:   | memplan-opt --memplan-lower-to-llvm \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.unplanned
// RUN: memplan-opt --memplan-pipeline="report=%t.json" %s \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.planned
// RUN: diff %t.unplanned %t.planned
// RUN: FileCheck %s --input-file=%t.planned
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json

// CHECK-COUNT-8: {{^ ?\[}}
// Packed operands and the unpack's temporary share @blocked's arena.
// REPORT: "name": "blocked"
// REPORT-NOT: "unplanned"

func.func private @printMemrefF32(memref<*xf32>)

func.func @blocked(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %ea = tensor.empty() : tensor<2x2x4x4xf32>
  %pa = linalg.pack %a inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %ea : tensor<8x8xf32> -> tensor<2x2x4x4xf32>
  %eb = tensor.empty() : tensor<2x2x4x4xf32>
  %pb = linalg.pack %b outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [4, 4] into %eb : tensor<8x8xf32> -> tensor<2x2x4x4xf32>
  %zero = arith.constant 0.0 : f32
  %ec = tensor.empty() : tensor<2x2x4x4xf32>
  %zc = linalg.fill ins(%zero : f32) outs(%ec : tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %pc = linalg.mmt4d ins(%pa, %pb : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) outs(%zc : tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  %c = linalg.unpack %pc inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %e : tensor<2x2x4x4xf32> -> tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}

func.func @main() {
  %a0 = tensor.empty() : tensor<8x8xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%a0 : tensor<8x8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = func.call @pseudo(%i, %j) : (index, index) -> f32
    linalg.yield %v : f32
  } -> tensor<8x8xf32>
  %b0 = tensor.empty() : tensor<8x8xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%b0 : tensor<8x8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = func.call @pseudo(%j, %i) : (index, index) -> f32
    linalg.yield %v : f32
  } -> tensor<8x8xf32>
  %c = func.call @blocked(%a, %b) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = bufferization.to_buffer %c : tensor<8x8xf32> to memref<8x8xf32>
  %u = memref.cast %m : memref<8x8xf32> to memref<*xf32>
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
