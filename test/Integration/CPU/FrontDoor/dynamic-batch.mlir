// A function whose batch is dynamic, planned once (offsets computed at run
// time from the batch), run at three batch sizes (1, 5, 37) in one program:
// the output is identical to the unplanned program's at each. Then the same
// with one static plan at the bound B=40 (bounded mode), and with a bound too
// small for the run, whose check stops the program.
//
// RUN: memplan-opt --memplan-prepare %s | mlir-opt %bufferize \
// RUN:   | memplan-opt --memplan-lower-to-llvm \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.unplanned
// RUN: memplan-opt --memplan-pipeline="report=%t.json eval=B=1;B=5;B=37" %s \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.planned
// RUN: diff %t.unplanned %t.planned
// RUN: FileCheck %s --input-file=%t.json
// RUN: memplan-opt --memplan-pipeline="bounded=true bounds=B=40,a0=40" %s \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.bounded
// RUN: diff %t.unplanned %t.bounded
// RUN: memplan-opt --memplan-pipeline="bounded=true bounds=B=5,a0=40" %s -o %t.small.mlir
// RUN: not --crash mlir-runner -e main -entry-point-result=void %runner_libs %t.small.mlir 2> %t.small.err > %t.small.out
// RUN: FileCheck %s --check-prefix=GUARD --input-file=%t.small.err
// The guard's message reaches stderr although stdout is a file (upstream's
// cf.assert lowering printed it with puts, and abort lost it).
// GUARD: memplan: a buffer of @f ({{.*}}) needs more than the {{[0-9]+}} bytes planned at the bounds B=5

// The three buffers of @f (two of B*64 bytes, one of B*16) are planned, and
// the report evaluates the plan at each batch size the program runs.
// CHECK:      "name": "f",
// CHECK:      "symbolic": {
// CHECK:        "mode": "symbolic",
// CHECK:        "points": [
// CHECK:            "label": "representative",
// CHECK:              "B": 1
// CHECK:            "label": "eval",
// CHECK:              "B": 5
// CHECK:            "label": "eval",
// CHECK:              "B": 37
// CHECK:      "name": "run",
// CHECK:      "symbolic": {

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func private @printMemrefF32(memref<*xf32>)

// One training-style step of a two-layer MLP whose batch is dynamic.
func.func @f(%x: tensor<?x8xf32> {memplan.symbols = ["B", ""]},
             %w1: tensor<8x16xf32>, %w2: tensor<16x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %b = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e1 = tensor.empty(%b) : tensor<?x16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?x16xf32>) -> tensor<?x16xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<?x8xf32>, tensor<8x16xf32>) outs(%f1 : tensor<?x16xf32>) -> tensor<?x16xf32>
  %e2 = tensor.empty(%b) : tensor<?x16xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<?x16xf32>) outs(%e2 : tensor<?x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<?x16xf32>
  %e3 = tensor.empty(%b) : tensor<?x4xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<?x4xf32>) -> tensor<?x4xf32>
  %y = linalg.matmul ins(%r, %w2 : tensor<?x16xf32>, tensor<16x4xf32>) outs(%f3 : tensor<?x4xf32>) -> tensor<?x4xf32>
  // y * h[:, :4] + y: keeps h alive to the end, like a backward pass would.
  %hs = tensor.extract_slice %h[0, 0] [%b, 4] [1, 1] : tensor<?x16xf32> to tensor<?x4xf32>
  %e4 = tensor.empty(%b) : tensor<?x4xf32>
  %o = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%y, %hs : tensor<?x4xf32>, tensor<?x4xf32>) outs(%e4 : tensor<?x4xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %p = arith.mulf %a, %c : f32
    %s = arith.addf %p, %a : f32
    linalg.yield %s : f32
  } -> tensor<?x4xf32>
  return %o : tensor<?x4xf32>
}

func.func @run(%n: index) {
  %w1 = tensor.generate {
  ^bb0(%i: index, %j: index):
    %s = arith.addi %i, %j : index
    %t = arith.index_cast %s : index to i32
    %f = arith.sitofp %t : i32 to f32
    %c = arith.constant 0.125 : f32
    %v = arith.mulf %f, %c : f32
    %d = arith.constant 0.5 : f32
    %r = arith.subf %v, %d : f32
    tensor.yield %r : f32
  } : tensor<8x16xf32>
  %w2 = tensor.generate {
  ^bb0(%i: index, %j: index):
    %s = arith.muli %i, %j : index
    %t = arith.index_cast %s : index to i32
    %f = arith.sitofp %t : i32 to f32
    %c = arith.constant 0.03125 : f32
    %v = arith.mulf %f, %c : f32
    tensor.yield %v : f32
  } : tensor<16x4xf32>
  %x = tensor.generate %n {
  ^bb0(%i: index, %j: index):
    %s = arith.addi %i, %j : index
    %k = arith.constant 3 : index
    %m = arith.remui %s, %k : index
    %t = arith.index_cast %m : index to i32
    %f = arith.sitofp %t : i32 to f32
    tensor.yield %f : f32
  } : tensor<?x8xf32>
  %o = call @f(%x, %w1, %w2) : (tensor<?x8xf32>, tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<?x4xf32>
  %m = bufferization.to_buffer %o : tensor<?x4xf32> to memref<?x4xf32>
  %u = memref.cast %m : memref<?x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c37 = arith.constant 37 : index
  call @run(%c1) : (index) -> ()
  call @run(%c5) : (index) -> ()
  call @run(%c37) : (index) -> ()
  return
}
