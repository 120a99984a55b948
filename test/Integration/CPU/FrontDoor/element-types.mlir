// Buffers of index, i1, i24, f16 and vector elements, sized through MLIR's
// DataLayout (index: 8 bytes, i24: 4, vector<3xf32>: 16). A memref<7xindex>
// used to reject the whole module; now every buffer of @step is planned.
// Planned and unplanned programs print the same bits.
//
// RUN: memplan-opt --memplan-prepare %s | mlir-opt %bufferize \
// RUN:   | memplan-opt --memplan-lower-to-llvm \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.unplanned
// RUN: memplan-opt --memplan-pipeline="report=%t.json strict=true" %s \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.planned
// RUN: diff %t.unplanned %t.planned
// RUN: FileCheck %s --input-file=%t.planned
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json
// RUN: not grep unplanned %t.json

// CHECK: {{^\[}}0,  13.5,  20,  31.75,  -1.27722,  20.25,  32]
// All five buffers of @step are planned (each rounded up to bufferization's
// 64-byte alignment; the vector one takes 112 -> 128 bytes).
// REPORT: "arena_bytes": 384,
// REPORT-COUNT-4: "size": 64,
// REPORT: "size": 128,
// REPORT: "name": "step",

#id = affine_map<(i) -> (i)>

func.func private @printMemrefF32(memref<*xf32>)

func.func @step(%x: tensor<7xf32>) -> tensor<7xf32> {
  %ei = tensor.empty() : tensor<7xindex>
  %idx = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]}
      outs(%ei : tensor<7xindex>) {
  ^bb0(%o: index):
    %i = linalg.index 0 : index
    %c3 = arith.constant 3 : index
    %m = arith.muli %i, %c3 : index
    linalg.yield %m : index
  } -> tensor<7xindex>
  %eb = tensor.empty() : tensor<7xi1>
  %big = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<7xf32>) outs(%eb : tensor<7xi1>) {
  ^bb0(%a: f32, %o: i1):
    %z = arith.constant 0.0 : f32
    %c = arith.cmpf ogt, %a, %z : f32
    linalg.yield %c : i1
  } -> tensor<7xi1>
  %e24 = tensor.empty() : tensor<7xi24>
  %n24 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%idx : tensor<7xindex>) outs(%e24 : tensor<7xi24>) {
  ^bb0(%a: index, %o: i24):
    %t = arith.index_cast %a : index to i24
    %k = arith.constant 1000000 : i24
    %s = arith.muli %t, %k : i24
    linalg.yield %s : i24
  } -> tensor<7xi24>
  %eh = tensor.empty() : tensor<7xf16>
  %half = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<7xf32>) outs(%eh : tensor<7xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<7xf16>
  %ev = tensor.empty() : tensor<7xvector<3xf32>>
  %vec = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%half : tensor<7xf16>) outs(%ev : tensor<7xvector<3xf32>>) {
  ^bb0(%a: f16, %o: vector<3xf32>):
    %f = arith.extf %a : f16 to f32
    %v = vector.broadcast %f : f32 to vector<3xf32>
    %c = arith.constant dense<[1.0, 2.0, 4.0]> : vector<3xf32>
    %p = arith.mulf %v, %c : vector<3xf32>
    linalg.yield %p : vector<3xf32>
  } -> tensor<7xvector<3xf32>>
  %er = tensor.empty() : tensor<7xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%idx, %big, %n24, %vec : tensor<7xindex>, tensor<7xi1>, tensor<7xi24>, tensor<7xvector<3xf32>>)
      outs(%er : tensor<7xf32>) {
  ^bb0(%i: index, %b: i1, %n: i24, %v: vector<3xf32>, %o: f32):
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %fn = arith.sitofp %n : i24 to f32
    %scale = arith.constant 1.0e-6 : f32
    %fs = arith.mulf %fn, %scale : f32
    %sum = vector.reduction <add>, %v : vector<3xf32> into f32
    %pos = arith.addf %fi, %sum : f32
    %neg = arith.subf %fs, %sum : f32
    %sel = arith.select %b, %pos, %neg : f32
    linalg.yield %sel : f32
  } -> tensor<7xf32>
  return %r : tensor<7xf32>
}

func.func @main() {
  %x = arith.constant dense<[0.0, 1.5, -2.0, 3.25, -0.5, 0.75, 2.0]> : tensor<7xf32>
  %r = func.call @step(%x) : (tensor<7xf32>) -> tensor<7xf32>
  %m = bufferization.to_buffer %r : tensor<7xf32> to memref<7xf32>
  %u = memref.cast %m : memref<7xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
