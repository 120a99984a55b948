// An allocation that runs only for some sizes: under `scf.if n > 20` a buffer
// of n - 20 elements. Its size expression is negative when the branch does
// not run, yet the plan is computed at the entry for every buffer: the size
// counts as 0 there (and in the bounded mode's check, which sits at the
// allocation). Planned with each algorithm and in bounded mode, run at n = 3
// and n = 30: identical to the unplanned program. (Found by review: before,
// the negative size made the arena too small and the run corrupted the
// heap.)
//
// RUN: memplan-opt %s --memplan-lower-to-llvm \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v base@ > %t.unplanned
// RUN: memplan-opt %s --memplan-pack-arena --memplan-verify-plan --convert-memplan-to-memref --memplan-lower-to-llvm \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v base@ > %t.auto
// RUN: diff %t.unplanned %t.auto
// RUN: memplan-opt %s --memplan-pack-arena="symbolic-algorithm=partitions" --memplan-verify-plan --convert-memplan-to-memref --memplan-lower-to-llvm \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v base@ > %t.partitions
// RUN: diff %t.unplanned %t.partitions
// RUN: memplan-opt %s --memplan-pack-arena="symbolic-algorithm=ordered" --memplan-verify-plan --convert-memplan-to-memref --memplan-lower-to-llvm \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v base@ > %t.ordered
// RUN: diff %t.unplanned %t.ordered
// RUN: memplan-opt %s --memplan-pack-arena="bounded=true bounds=n=30" --memplan-verify-plan --convert-memplan-to-memref --memplan-lower-to-llvm \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v base@ > %t.bounded
// RUN: diff %t.unplanned %t.bounded
// RUN: memplan-opt %s --memplan-pack-arena | FileCheck %s

// The size is clamped at 0 before it enters the plan.
// CHECK-LABEL: func.func @f(
// CHECK:         %[[S:.*]] = arith.muli
// CHECK:         arith.maxsi %{{.*}}, %{{.*}} : index
// CHECK:         memplan.arena alignment(64) size(

func.func @f(%n: index {memplan.symbols = "n"}, %out: memref<16xf32>) {
  %c20 = arith.constant 20 : index
  %f1 = arith.constant 1.0 : f32
  %f2 = arith.constant 2.0 : f32
  %m = arith.subi %n, %c20 : index
  %cond = arith.cmpi sgt, %n, %c20 : index
  scf.if %cond {
    %j = memref.alloc(%m) : memref<?xf32>
    linalg.fill ins(%f2 : f32) outs(%j : memref<?xf32>)
    %s = memref.subview %out[0] [1] [1] : memref<16xf32> to memref<1xf32, strided<[1]>>
    %js = memref.subview %j[0] [1] [1] : memref<?xf32> to memref<1xf32, strided<[1]>>
    linalg.copy ins(%js : memref<1xf32, strided<[1]>>) outs(%s : memref<1xf32, strided<[1]>>)
    memref.dealloc %j : memref<?xf32>
  }
  %z = memref.alloc() : memref<16xf32>
  linalg.fill ins(%f1 : f32) outs(%z : memref<16xf32>)
  %x = memref.alloc() : memref<16xf32>
  linalg.fill ins(%f2 : f32) outs(%x : memref<16xf32>)
  linalg.add ins(%z, %x : memref<16xf32>, memref<16xf32>) outs(%x : memref<16xf32>)
  %s1 = memref.subview %out[1] [15] [1] : memref<16xf32> to memref<15xf32, strided<[1], offset: 1>>
  %x1 = memref.subview %x[1] [15] [1] : memref<16xf32> to memref<15xf32, strided<[1], offset: 1>>
  linalg.copy ins(%x1 : memref<15xf32, strided<[1], offset: 1>>) outs(%s1 : memref<15xf32, strided<[1], offset: 1>>)
  memref.dealloc %z : memref<16xf32>
  memref.dealloc %x : memref<16xf32>
  return
}

func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %out = memref.alloc() : memref<16xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<16xf32>)
  %u = memref.cast %out : memref<16xf32> to memref<*xf32>
  %c3 = arith.constant 3 : index
  call @f(%c3, %out) : (index, memref<16xf32>) -> ()
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  %c30 = arith.constant 30 : index
  call @f(%c30, %out) : (index, memref<16xf32>) -> ()
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %out : memref<16xf32>
  return
}
