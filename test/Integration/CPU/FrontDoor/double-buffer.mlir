// A loop-carried buffer at memref level: each iteration allocates a new
// buffer and reads the previous iteration's one (reversed) while writing it,
// so one slot would overwrite what it reads. memplan-double-buffer gives it
// two alternating slots; the whole function is planned (strict: no
// fallback), and planned and unplanned programs print the same bits. Without
// the two slots the analysis would reject the loop-carried allocation.
//
// RUN: memplan-opt --memplan-prepare %s | mlir-opt %bufferize \
// RUN:   | memplan-opt --memplan-lower-to-llvm \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.unplanned
// RUN: memplan-opt --memplan-pipeline="report=%t.json strict=true" %s \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.planned
// RUN: diff %t.unplanned %t.planned
// RUN: FileCheck %s --input-file=%t.planned
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json
// RUN: not memplan-opt --memplan-annotate-lifetimes=strict=true %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=SINGLE

// CHECK: {{^\[}}{{-?[0-9]}}
// The initial buffer, the two slots and the scratch buffer: 4 x 64 bytes.
// REPORT: "arena_bytes": 256,
// REPORT: "name": "smooth",
// SINGLE: error: buffer allocated inside a loop is carried across iterations

#id = affine_map<(i) -> (i)>
#rev = affine_map<(i) -> (15 - i)>

func.func private @printMemrefF32(memref<*xf32>)

func.func @smooth(%x: memref<16xf32>, %n: index, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = memref.alloc() : memref<16xf32>
  linalg.copy ins(%x : memref<16xf32>) outs(%init : memref<16xf32>)
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%cur = %init) -> memref<16xf32> {
    %new = memref.alloc() : memref<16xf32>
    // new[j] = 0.5 * cur[j] + cur[15 - j]
    linalg.generic {indexing_maps = [#id, #rev, #id], iterator_types = ["parallel"]}
        ins(%cur, %cur : memref<16xf32>, memref<16xf32>) outs(%new : memref<16xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %h = arith.constant 0.5 : f32
      %m = arith.mulf %a, %h : f32
      %s = arith.addf %m, %b : f32
      linalg.yield %s : f32
    }
    %tmp = memref.alloc() : memref<16xf32>
    linalg.mul ins(%new, %x : memref<16xf32>, memref<16xf32>) outs(%tmp : memref<16xf32>)
    linalg.add ins(%new, %tmp : memref<16xf32>, memref<16xf32>) outs(%new : memref<16xf32>)
    scf.yield %new : memref<16xf32>
  }
  linalg.copy ins(%r : memref<16xf32>) outs(%out : memref<16xf32>)
  return
}

func.func @main() {
  %c5 = arith.constant 5 : index
  %x0 = tensor.empty() : tensor<16xf32>
  %x = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]}
      outs(%x0 : tensor<16xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %v = func.call @pseudo(%i, %i) : (index, index) -> f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  %xm = bufferization.to_buffer %x : tensor<16xf32> to memref<16xf32>
  %o = memref.alloc() : memref<16xf32>
  func.call @smooth(%xm, %c5, %o) : (memref<16xf32>, index, memref<16xf32>) -> ()
  %u = memref.cast %o : memref<16xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
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
