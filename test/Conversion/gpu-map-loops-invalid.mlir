// RUN: memplan-opt %s --split-input-file --memplan-gpu-map-loops --verify-diagnostics
// RUN: %expect_exit 1 memplan-opt %s --memplan-gpu-map-loops=block-size=0 -o /dev/null 2>&1 | FileCheck %s --check-prefix=SIZE
// SIZE: block-size must be between 1 and 1024, got 0

func.func @on_tensors(%t: tensor<4xf32>, %f: f32) -> tensor<4xf32> {
  // expected-error @+1 {{linalg op on tensors: bufferize before memplan-gpu-map-loops}}
  %r = linalg.fill ins(%f : f32) outs(%t : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @host_read(%m: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'memref.load' reads or writes memory on the host in a device function: kernels own the device memory; move this into a linalg op or a host function}}
  %v = memref.load %m[%c0] : memref<4xf32>
  return %v : f32
}

// -----

func.func @parallel_reduce(%m: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{scf.parallel with reductions in a device function is not supported}}
  %r = scf.parallel (%i) = (%c0) to (%c4) step (%c1) init (%zero) -> f32 {
    %v = memref.load %m[%i] : memref<4xf32>
    scf.reduce(%v : f32) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  return %r : f32
}

// -----

func.func @dynamic_lower_bound(%m: memref<?xf32>, %n: index, %f: f32) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{scf.parallel with a non-constant lower bound or step in a device function: memplan's device lowering needs them constant (a positive step)}}
  scf.parallel (%i) = (%n) to (%c8) step (%c1) {
    memref.store %f, %m[%i] : memref<?xf32>
    scf.reduce
  }
  return
}
