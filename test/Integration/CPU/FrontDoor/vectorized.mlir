// A vectorized elementwise step as upstream vectorization leaves it:
// vector.transfer_read/write on tensors with a ub.poison padding, math on
// vectors (erf included). The pipeline plans the tensors' buffers and lowers
// vector, ub and math (libm for erf) for the CPU; before it did, the pipeline
// exited 0 leaving vector.* and ub.poison behind. Planned and unplanned
// programs print the same bits.
//
// RUN: memplan-opt --memplan-prepare %s | mlir-opt %bufferize \
// RUN:   | memplan-opt --memplan-lower-to-llvm \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.unplanned
// RUN: memplan-opt --memplan-pipeline="report=%t.json" %s \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.planned
// RUN: diff %t.unplanned %t.planned
// RUN: FileCheck %s --input-file=%t.planned
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json

// erf(x) * x: never negative.
// CHECK: {{^\[}}0.842701, 0.414021,
// REPORT: "name": "step"

func.func private @printMemrefF32(memref<*xf32>)

func.func @step(%a: tensor<16xf32>) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %pad = ub.poison : f32
  %v = vector.transfer_read %a[%c0], %pad : tensor<16xf32>, vector<16xf32>
  %w = math.erf %v : vector<16xf32>
  %e = tensor.empty() : tensor<16xf32>
  %t = vector.transfer_write %w, %e[%c0] : vector<16xf32>, tensor<16xf32>
  %x = vector.transfer_read %t[%c0], %pad : tensor<16xf32>, vector<16xf32>
  %y = arith.mulf %x, %v : vector<16xf32>
  %e2 = tensor.empty() : tensor<16xf32>
  %r = vector.transfer_write %y, %e2[%c0] : vector<16xf32>, tensor<16xf32>
  return %r : tensor<16xf32>
}

func.func @main() {
  %a0 = tensor.empty() : tensor<16xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      outs(%a0 : tensor<16xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %v = func.call @pseudo(%i, %i) : (index, index) -> f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  %r = func.call @step(%a) : (tensor<16xf32>) -> tensor<16xf32>
  %m = bufferization.to_buffer %r : tensor<16xf32> to memref<16xf32>
  %u = memref.cast %m : memref<16xf32> to memref<*xf32>
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
