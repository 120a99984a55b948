// RUN: memplan-opt %s --memplan-pack-arena=alignment=1 --memplan-verify-plan | FileCheck %s

// With alignment=1 each buffer still starts on a boundary of its element's
// storage size (a vector<4xf32> element takes 16 bytes): the views verify.
// (Before, the 3-byte buffer pushed the vector buffer to offset 3 and the
// memplan.view verifier rejected the plan; found by review.)
// CHECK-LABEL: func.func @f
// CHECK: memplan.arena alignment(16) : memref<35xi8>
// CHECK-DAG: memplan.view %{{.*}}[<offset = 32, size = 3, alignment = 1>] : memref<35xi8> to memref<3xi8>
// CHECK-DAG: memplan.view %{{.*}}[<offset = 0, size = 32, alignment = 16>] : memref<35xi8> to memref<2xvector<4xf32>>
func.func @f(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<3xi8>
  %i = arith.constant 7 : i8
  memref.store %i, %a[%c0] : memref<3xi8>
  %v = memref.alloc() : memref<2xvector<4xf32>>
  %cst = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : vector<4xf32>
  memref.store %cst, %v[%c0] : memref<2xvector<4xf32>>
  %l = memref.load %v[%c0] : memref<2xvector<4xf32>>
  %l0 = memref.load %a[%c0] : memref<3xi8>
  %f = arith.uitofp %l0 : i8 to f32
  %b = vector.broadcast %f : f32 to vector<4xf32>
  %s = arith.addf %l, %b : vector<4xf32>
  vector.transfer_write %s, %out[%c0] : vector<4xf32>, memref<4xf32>
  return
}
