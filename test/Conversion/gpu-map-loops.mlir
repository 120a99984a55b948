// RUN: memplan-opt %s --split-input-file --memplan-gpu-map-loops | FileCheck %s
// RUN: memplan-opt %s --split-input-file --memplan-gpu-map-loops=block-size=64 | FileCheck %s --check-prefix=B64

// An elementwise op on 3x100 elements: one 1-D grid of 2 blocks of 256
// threads, a bound check for the tail, row-major digits (the last dimension
// varies fastest across threads).
// CHECK-LABEL: func.func @elementwise
// CHECK: scf.parallel (%[[B:.*]]) = (%{{.*}}) to (%c2{{.*}})
// CHECK: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%c256{{.*}})
// CHECK: %[[M:.*]] = arith.muli %[[B]], %c256
// CHECK: %[[L:.*]] = arith.addi %[[M]], %[[T]]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[L]], %c300
// CHECK: scf.if %[[IN]]
// CHECK: %[[J:.*]] = arith.remui %[[L]], %c100
// CHECK: %[[I:.*]] = arith.divui %[[L]], %c100
// CHECK: %[[I2:.*]] = affine.apply #{{.*}}(%[[I]])
// CHECK: %[[J2:.*]] = affine.apply #{{.*}}(%[[J]])
// CHECK: memref.load %arg0[%[[I2]], %[[J2]]]
// CHECK: memref.store
// CHECK: mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]
// CHECK: mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]
// B64-LABEL: func.func @elementwise
// B64-DAG: arith.constant 5 : index
// B64-DAG: arith.constant 64 : index
func.func @elementwise(%a: memref<3x100xf32>, %b: memref<3x100xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<3x100xf32>) outs(%b : memref<3x100xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// 4 x 8 = 32 points, a multiple of the block: no bound check.
// CHECK-LABEL: func.func @matmul
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK-NOT: scf.if
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %c16
// CHECK: %[[K2:.*]] = affine.apply #{{.*}}(%[[K]])
// CHECK: memref.load %arg0[%{{.*}}, %[[K2]]]
func.func @matmul(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %c: memref<4x8xf32>) {
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// A reduction over the rows ([N, D] -> [D]) has its reduction loop first: the
// loops are interchanged so each thread owns one output column and sums its
// rows in the original order.
// CHECK-LABEL: func.func @sum_rows
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// CHECK: scf.parallel
// CHECK: scf.for %[[N:.*]] = %{{.*}} to %c64
// CHECK: %[[N2:.*]] = affine.apply #{{.*}}(%[[N]])
// CHECK: memref.load %arg0[%[[N2]], %{{.*}}] : memref<64x5xf32>
// CHECK-NOT: linalg.
func.func @sum_rows(%x: memref<64x5xf32>, %out: memref<5xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, d) -> (n, d)>, affine_map<(n, d) -> (d)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<64x5xf32>) outs(%out : memref<5xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Rank 0 and full reductions run on one thread.
// CHECK-LABEL: func.func @one_thread
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c1{{.*}})
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c1{{.*}})
// CHECK: memref.store %{{.*}}, %arg1[] : memref<f32>
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c1{{.*}})
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c1{{.*}})
// CHECK: scf.for
// CHECK: memref.load %arg0
func.func @one_thread(%x: memref<7xf32>, %s: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<f32>)
  linalg.generic {indexing_maps = [affine_map<(n) -> (n)>, affine_map<(n) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%x : memref<7xf32>) outs(%s : memref<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %acc, %v : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// memref.copy in a device function becomes a kernel.
// CHECK-LABEL: func.func @copy
// CHECK-NOT: memref.copy
// CHECK: loop_dim_map<processor = thread_x
func.func @copy(%a: memref<4x4xf32>, %b: memref<4x4xf32, strided<[8, 1]>>) {
  memref.copy %a, %b : memref<4x4xf32> to memref<4x4xf32, strided<[8, 1]>>
  return
}

// -----

// Host functions run their linalg ops as sequential loops: nothing mapped.
// CHECK-LABEL: func.func @host
// CHECK: scf.for
// CHECK-NOT: scf.parallel
// CHECK-NOT: loop_dim_map
func.func @host(%a: memref<4xf32>, %f: f32) attributes {memplan.host} {
  linalg.fill ins(%f : f32) outs(%a : memref<4xf32>)
  return
}
