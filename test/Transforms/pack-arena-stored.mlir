// RUN: memplan-opt %s --memplan-pack-arena="explain=%t.txt" --memplan-verify-plan | FileCheck %s
// RUN: FileCheck %s --check-prefix=EXPLAIN --input-file=%t.txt

// A buffer stored into memory as data (a table of buffers) escapes: a load,
// here or in the caller, may read it after the function returns and its
// arena is freed. It stays a memref.alloc, with the reason in the report;
// the function's other buffers are planned. (It used to be placed in the
// arena: the caller's table then held a dangling view; found by review.)

// CHECK-LABEL: func.func @stored
// CHECK: memplan.arena alignment(64) : memref<64xi8>
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: memref.store %[[A]]
// EXPLAIN: @stored: arena 64 B for 1 buffers
// EXPLAIN: left on the heap: memref.alloc @ {{.*}}pack-arena-stored.mlir:{{[0-9]+}}:8: stored into memory by 'memref.store', where a later load may read it
func.func @stored(%tab: memref<1xmemref<4xf32>>, %x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %t = memref.alloc() : memref<4xf32>
  memref.copy %x, %t : memref<4xf32> to memref<4xf32>
  %a = memref.alloc() : memref<4xf32>
  memref.copy %t, %a : memref<4xf32> to memref<4xf32>
  memref.store %a, %tab[%c0] : memref<1xmemref<4xf32>>
  return
}
