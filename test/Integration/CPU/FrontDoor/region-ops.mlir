// Buffers created inside region ops that are not region branches: a scratch
// buffer in an affine.parallel body (one slot serves every iteration: on the
// CPU they run in order), a vector.mask around a transfer_write into a new
// tensor, and scf.forall on tensors with a temporary per iteration. All
// functions are planned; planned and unplanned programs print the same bits.
//
// RUN: memplan-opt --memplan-prepare %s | mlir-opt %bufferize \
// RUN:   | memplan-opt --memplan-lower-to-llvm \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.unplanned
// RUN: memplan-opt --memplan-pipeline="report=%t.json strict=true" %s \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.planned
// RUN: diff %t.unplanned %t.planned
// RUN: FileCheck %s --input-file=%t.planned
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json
// RUN: not grep unplanned %t.json

// CHECK-COUNT-3: {{^\[}}{{-?[0-9]}}
// REPORT: "arena_bytes": 64,
// REPORT: "name": "scratch_in_parallel",
// REPORT: "arena_bytes": 64,
// REPORT: "name": "masked_write",
// REPORT: "arena_bytes": 128,
// REPORT: "name": "forall_tiles",

#id = affine_map<(i) -> (i)>

func.func private @printMemrefF32(memref<*xf32>)

func.func @scratch_in_parallel(%x: memref<16xf32>, %out: memref<16xf32>) {
  affine.parallel (%i) = (0) to (4) {
    %t = memref.alloc() : memref<4xf32>
    affine.for %j = 0 to 4 {
      %v = affine.load %x[%i * 4 + %j] : memref<16xf32>
      %d = arith.addf %v, %v : f32
      affine.store %d, %t[%j] : memref<4xf32>
    }
    affine.for %j = 0 to 4 {
      %a = affine.load %t[%j] : memref<4xf32>
      %b = affine.load %t[3 - %j] : memref<4xf32>
      %m = arith.mulf %a, %b : f32
      affine.store %m, %out[%i * 4 + %j] : memref<16xf32>
    }
    memref.dealloc %t : memref<4xf32>
  }
  return
}

func.func @masked_write(%t: tensor<16xf32>, %n: index) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %m = vector.create_mask %n : vector<16xi1>
  %v = vector.transfer_read %t[%c0], %pad : tensor<16xf32>, vector<16xf32>
  %z = arith.constant dense<0.5> : vector<16xf32>
  %w = arith.addf %v, %z : vector<16xf32>
  %e = tensor.empty() : tensor<16xf32>
  %f = linalg.fill ins(%pad : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %r = vector.mask %m { vector.transfer_write %w, %f[%c0] : vector<16xf32>, tensor<16xf32> } : vector<16xi1> -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<16xf32>
  %s = linalg.add ins(%r, %t : tensor<16xf32>, tensor<16xf32>) outs(%e2 : tensor<16xf32>) -> tensor<16xf32>
  return %s : tensor<16xf32>
}

func.func @forall_tiles(%t: tensor<16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %r = scf.forall (%i) in (4) shared_outs(%o = %e) -> tensor<16xf32> {
    %c4 = arith.constant 4 : index
    %off = arith.muli %i, %c4 : index
    %s = tensor.extract_slice %t[%off] [4] [1] : tensor<16xf32> to tensor<4xf32>
    %w = tensor.empty() : tensor<4xf32>
    %x = linalg.negf ins(%s : tensor<4xf32>) outs(%w : tensor<4xf32>) -> tensor<4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %x into %o[%off] [4] [1] : tensor<4xf32> into tensor<16xf32>
    }
  }
  %e2 = tensor.empty() : tensor<16xf32>
  %s = linalg.mul ins(%r, %t : tensor<16xf32>, tensor<16xf32>) outs(%e2 : tensor<16xf32>) -> tensor<16xf32>
  return %s : tensor<16xf32>
}

func.func @main() {
  %c11 = arith.constant 11 : index
  %x0 = tensor.empty() : tensor<16xf32>
  %x = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]}
      outs(%x0 : tensor<16xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %v = func.call @pseudo(%i, %i) : (index, index) -> f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  %xm = bufferization.to_buffer %x : tensor<16xf32> to memref<16xf32>
  %p = memref.alloc() : memref<16xf32>
  func.call @scratch_in_parallel(%xm, %p) : (memref<16xf32>, memref<16xf32>) -> ()
  %pu = memref.cast %p : memref<16xf32> to memref<*xf32>
  func.call @printMemrefF32(%pu) : (memref<*xf32>) -> ()
  %mw = func.call @masked_write(%x, %c11) : (tensor<16xf32>, index) -> tensor<16xf32>
  %mm = bufferization.to_buffer %mw : tensor<16xf32> to memref<16xf32>
  %mu = memref.cast %mm : memref<16xf32> to memref<*xf32>
  func.call @printMemrefF32(%mu) : (memref<*xf32>) -> ()
  %ft = func.call @forall_tiles(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %fm = bufferization.to_buffer %ft : tensor<16xf32> to memref<16xf32>
  %fu = memref.cast %fm : memref<16xf32> to memref<*xf32>
  func.call @printMemrefF32(%fu) : (memref<*xf32>) -> ()
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
