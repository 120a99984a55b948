// RUN: rm -rf %t && mkdir -p %t
// RUN: memplan-opt %s --memplan-pack-arena="export-csv=%t/trace.csv report=%t/r.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=F --input-file=%t/trace.f.csv
// RUN: FileCheck %s --check-prefix=G --input-file=%t/trace.g.csv
// RUN: not ls %t/trace.csv %t/trace.empty.csv
// The exported instance packs again to the arena the pass chose.
// RUN: memplan-pack --input %t/trace.f.csv --validate | FileCheck %s --check-prefix=PACK
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t/r.json

// Each arena's buffers as MiniMalloc CSV plus alignment (sizes as packed:
// rounded up to the 64-byte alignment), one file per function here.
// F: id,lower,upper,size,alignment
// F-NEXT: 0,0,5,64,64
// F-NEXT: 1,1,6,128,64
// F-NEXT: 2,2,7,64,64
// F-NOT: {{.}}
// G: id,lower,upper,size,alignment
// G-NEXT: 0,0,2,256,64
// G-NOT: {{.}}
// PACK: arena=256 lower_bound=256
// REPORT: "arena_bytes": 256,
// REPORT: "name": "f",
func.func @f(%x: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  %b = memref.alloc() : memref<32xf32>
  %c = memref.alloc() : memref<16xf32>
  linalg.copy ins(%x : memref<16xf32>) outs(%a : memref<16xf32>)
  linalg.copy ins(%a : memref<16xf32>) outs(%c : memref<16xf32>)
  memref.copy %b, %b : memref<32xf32> to memref<32xf32>
  linalg.copy ins(%c : memref<16xf32>) outs(%x : memref<16xf32>)
  return
}

func.func @g(%x: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  return
}

// No buffers: no file.
func.func @empty() {
  return
}
