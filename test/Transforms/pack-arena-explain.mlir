// RUN: memplan-opt %s --memplan-pack-arena="explain=-" -o /dev/null 2>&1 | FileCheck %s
// RUN: memplan-opt %s --memplan-pack-arena="explain=%t.txt" -o /dev/null
// RUN: FileCheck %s --input-file=%t.txt
// RUN: not memplan-opt %s --memplan-pack-arena="explain=%t.missing/x.txt" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR

// Why the arena is as large as it is: the peak step, the largest buffers
// live there with their ops and locations and their share of the peak.
// CHECK: @f: arena 4.00 KiB for 3 buffers; lower bound 4.00 KiB (live bytes at step 3), proven minimal
// CHECK-NEXT: live at step 3: 3 buffers; the largest:
// Each buffer is named by the op that fills it (the first writes of its
// lifetime), not by its memref.alloc.
// CHECK-NEXT: 2.00 KiB   50.0%  [1, 6)  memref.copy @ {{.*}}pack-arena-explain.mlir:24:3
// CHECK-NEXT: 1.00 KiB   25.0%  [0, 5)  linalg.copy @ {{.*}}pack-arena-explain.mlir:21:3
// CHECK-NEXT: 1.00 KiB   25.0%  [3, 7)  linalg.copy @ {{.*}}pack-arena-explain.mlir:23:3
// CHECK-NEXT: @g: no arena
// CHECK-NEXT:   left on the heap: memref.alloc @ {{.*}}pack-arena-explain.mlir:{{[0-9]+}}:8: dimension 0 of 'memref<?xf32>' is not a function of the sizes of @g's arguments that memplan can state (sums and products of them), so its buffer cannot be placed before the function runs
// ERR: error: cannot write the explanation '{{.*}}x.txt'
func.func @f(%x: memref<256xf32>) {
  %a = memref.alloc() : memref<256xf32>
  %b = memref.alloc() : memref<512xf32>
  linalg.copy ins(%x : memref<256xf32>) outs(%a : memref<256xf32>)
  %c = memref.alloc() : memref<256xf32>
  linalg.copy ins(%a : memref<256xf32>) outs(%c : memref<256xf32>)
  memref.copy %b, %b : memref<512xf32> to memref<512xf32>
  linalg.copy ins(%c : memref<256xf32>) outs(%x : memref<256xf32>)
  return
}

func.func @g(%size: memref<index>) {
  %n = memref.load %size[] : memref<index>
  %a = memref.alloc(%n) : memref<?xf32>
  return
}
