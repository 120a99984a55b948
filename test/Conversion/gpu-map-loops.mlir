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

// -----

// A run-time size (dynamic shapes): the trip count of the dynamic dimension,
// the product (threads needed) and the blocks of 256 that cover it, at least
// one (CUDA refuses an empty grid), are computed at run time; every thread
// checks the bound. No scf.if around the launch (it would cost a stream and
// a host synchronization after gpu-async-region).
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[A:[^:]*]]: memref<?x100xf32>
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[D:.*]] = memref.dim %[[A]], %[[C0]]
// CHECK: %[[SPAN:.*]] = arith.subi %[[D]], %{{.*}}
// CHECK: %[[TRIP:.*]] = arith.maxsi %[[SPAN]], %{{.*}}
// CHECK: %[[TOTAL:.*]] = arith.muli %{{.*}}, %[[TRIP]]
// CHECK: %[[CEIL:.*]] = arith.ceildivui %[[TOTAL]], %c256
// CHECK: %[[BLOCKS:.*]] = arith.maxui %[[CEIL]], %c1
// CHECK-NOT: scf.if
// CHECK: scf.parallel (%[[B:.*]]) = (%{{.*}}) to (%[[BLOCKS]])
// CHECK: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%c256{{.*}})
// CHECK: %[[L:.*]] = arith.addi
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[L]], %[[TOTAL]]
// CHECK: scf.if %[[IN]]
// CHECK: arith.remui %[[L]], %c100
// CHECK: arith.divui %[[L]], %c100
// CHECK: mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK: mapping = [#gpu.loop_dim_map<processor = block_x
func.func @dynamic(%a: memref<?x100xf32>, %b: memref<?x100xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<?x100xf32>) outs(%b : memref<?x100xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// A dynamic inner dimension with a lower bound and a step: its trip count
// ceil(max(0, %n - 1) / 2) divides the thread's index into digits, and the
// digit is scaled back (* 2 + 1); the static outer dimension (4 points from
// 3 to 7) too.
// CHECK-LABEL: func.func @dynamic_inner
// CHECK-SAME: (%[[M:[^:]*]]: memref<8x?xf32>, %[[N:[^:]*]]: index
// CHECK: %[[SPAN:.*]] = arith.subi %[[N]], %c1
// CHECK: %[[POS:.*]] = arith.maxsi %[[SPAN]], %c0
// CHECK: %[[TRIP:.*]] = arith.ceildivui %[[POS]], %c2
// CHECK: %[[TOTAL:.*]] = arith.muli %c4{{.*}}, %[[TRIP]]
// CHECK: %[[L:.*]] = arith.addi
// CHECK: arith.cmpi ult, %[[L]], %[[TOTAL]]
// CHECK: %[[J:.*]] = arith.remui %[[L]], %[[TRIP]]
// CHECK: %[[I:.*]] = arith.divui %[[L]], %[[TRIP]]
// CHECK: %[[J2:.*]] = arith.muli %[[J]], %c2
// CHECK: %[[J3:.*]] = arith.addi %[[J2]], %c1
// CHECK: %[[I2:.*]] = arith.addi %[[I]], %c3
// CHECK: memref.store %{{.*}}, %[[M]][%[[I2]], %[[J3]]]
func.func @dynamic_inner(%m: memref<8x?xf32>, %n: index, %f: f32) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  scf.parallel (%i, %j) = (%c3, %c1) to (%c7, %n) step (%c1, %c2) {
    memref.store %f, %m[%i, %j] : memref<8x?xf32>
    scf.reduce
  }
  return
}
