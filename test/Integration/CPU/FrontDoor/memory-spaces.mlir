// Buffers in memory space 1 (as affine and bufferization tests write them)
// and in the default space: one arena per space. The space-1 arena is not
// freed (upstream's CPU lowering of a dealloc there fails: the program's
// own space-1 buffers are never freed either), so the planned program lowers
// to LLVM IR and prints the unplanned program's bits. (It failed with
// "'llvm.call' op operand type mismatch" when the arena was freed: found on
// upstream's affine loop-fusion tests.)
//
// RUN: memplan-opt --memplan-prepare %s | mlir-opt %bufferize \
// RUN:   | memplan-opt --memplan-lower-to-llvm \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.unplanned
// RUN: memplan-opt --memplan-pipeline="report=%t.json" %s -o %t.llvm.mlir
// RUN: mlir-translate --mlir-to-llvmir %t.llvm.mlir -o /dev/null
// RUN: mlir-runner %t.llvm.mlir -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.planned
// RUN: diff %t.unplanned %t.planned
// RUN: FileCheck %s --input-file=%t.planned
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json

// 2 x[15 - i] + x[i], x[i] = i.
// CHECK: [30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15]
// REPORT: "arena_bytes": 128,
// REPORT: "memory_space": "1",
// REPORT-NEXT: "name": "f",
// REPORT: "arena_bytes": 64,
// REPORT-NOT: "memory_space"
// REPORT: "name": "f",

func.func private @printMemrefF32(memref<*xf32>)

// Two temporaries in memory space 1, one in the default space: one arena
// per space.
func.func @f(%x: memref<16xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32, 1>
  %b = memref.alloc() : memref<16xf32, 1>
  %t = memref.alloc() : memref<16xf32>
  %c2 = arith.constant 2.0 : f32
  affine.for %i = 0 to 16 {
    %v = affine.load %x[%i] : memref<16xf32>
    %w = arith.mulf %v, %c2 : f32
    affine.store %w, %a[%i] : memref<16xf32, 1>
  }
  affine.for %i = 0 to 16 {
    %v = affine.load %a[15 - %i] : memref<16xf32, 1>
    affine.store %v, %b[%i] : memref<16xf32, 1>
  }
  affine.for %i = 0 to 16 {
    %v = affine.load %b[%i] : memref<16xf32, 1>
    %u = affine.load %x[%i] : memref<16xf32>
    %s = arith.addf %v, %u : f32
    affine.store %s, %t[%i] : memref<16xf32>
  }
  memref.copy %t, %out : memref<16xf32> to memref<16xf32>
  return
}

func.func @main() {
  %x = memref.alloc() : memref<16xf32>
  %out = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %ii = arith.index_cast %i : index to i32
    %v = arith.sitofp %ii : i32 to f32
    affine.store %v, %x[%i] : memref<16xf32>
  }
  func.call @f(%x, %out) : (memref<16xf32>, memref<16xf32>) -> ()
  %u = memref.cast %out : memref<16xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %x : memref<16xf32>
  memref.dealloc %out : memref<16xf32>
  return
}
