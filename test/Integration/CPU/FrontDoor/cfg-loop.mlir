// Functions with several blocks, as detensorizing or scf-to-cf leave them: a
// loop of blocks and a diamond whose join merges two buffers. In @loop, %w is
// last used in the header, which comes before the body in block order: only
// the CFG liveness keeps it live over the body (otherwise the body's buffers
// could take its slot and the second iteration would read garbage). Planned
// and unplanned programs print the same bits, and both functions are planned.
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
// RUN: memplan-opt --memplan-prepare --memplan-annotate-lifetimes --memplan-materialize-remat %s \
// RUN:   | memplan-opt --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   | memplan-opt --test-memplan-print-lifetimes=cross-check=true -o /dev/null | FileCheck %s --check-prefix=LIVE

// CHECK-COUNT-2: {{^\[}}{{-?[0-9]}}
// REPORT: "lower_bound_bytes": 320,
// REPORT: "name": "loop",
// REPORT: "name": "diamond",
// LIVE: lifetimes of @loop
// LIVE: liveness cross-check: {{[1-9][0-9]*}} live (op, value) pairs covered
// LIVE: lifetimes of @diamond
// LIVE: liveness cross-check: {{[1-9][0-9]*}} live (op, value) pairs covered

func.func private @printMemrefF32(memref<*xf32>)

#id = affine_map<(i) -> (i)>

func.func @loop(%x: tensor<16xf32>, %n: index) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e0 = tensor.empty() : tensor<16xf32>
  %w = linalg.mul ins(%x, %x : tensor<16xf32>, tensor<16xf32>) outs(%e0 : tensor<16xf32>) -> tensor<16xf32>
  %e1 = tensor.empty() : tensor<16xf32>
  %a0 = linalg.add ins(%x, %w : tensor<16xf32>, tensor<16xf32>) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  cf.br ^header(%a0, %c0 : tensor<16xf32>, index)
^header(%acc: tensor<16xf32>, %i: index):
  // The last use of %w in block order.
  %eh = tensor.empty() : tensor<16xf32>
  %h = linalg.sub ins(%acc, %w : tensor<16xf32>, tensor<16xf32>) outs(%eh : tensor<16xf32>) -> tensor<16xf32>
  %cond = arith.cmpi slt, %i, %n : index
  cf.cond_br %cond, ^body, ^exit
^body:
  %et = tensor.empty() : tensor<16xf32>
  %t = linalg.mul ins(%h, %x : tensor<16xf32>, tensor<16xf32>) outs(%et : tensor<16xf32>) -> tensor<16xf32>
  %eu = tensor.empty() : tensor<16xf32>
  %u = linalg.add ins(%t, %t : tensor<16xf32>, tensor<16xf32>) outs(%eu : tensor<16xf32>) -> tensor<16xf32>
  %i1 = arith.addi %i, %c1 : index
  cf.br ^header(%u, %i1 : tensor<16xf32>, index)
^exit:
  %er = tensor.empty() : tensor<16xf32>
  %r = linalg.add ins(%h, %acc : tensor<16xf32>, tensor<16xf32>) outs(%er : tensor<16xf32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}

func.func @diamond(%x: tensor<16xf32>, %c: i1) -> tensor<16xf32> {
  cf.cond_br %c, ^a, ^b
^a:
  %ep = tensor.empty() : tensor<16xf32>
  %p = linalg.mul ins(%x, %x : tensor<16xf32>, tensor<16xf32>) outs(%ep : tensor<16xf32>) -> tensor<16xf32>
  cf.br ^join(%p : tensor<16xf32>)
^b:
  %eq = tensor.empty() : tensor<16xf32>
  %q = linalg.add ins(%x, %x : tensor<16xf32>, tensor<16xf32>) outs(%eq : tensor<16xf32>) -> tensor<16xf32>
  cf.br ^join(%q : tensor<16xf32>)
^join(%m: tensor<16xf32>):
  %er = tensor.empty() : tensor<16xf32>
  %r = linalg.sub ins(%m, %x : tensor<16xf32>, tensor<16xf32>) outs(%er : tensor<16xf32>) -> tensor<16xf32>
  %es = tensor.empty() : tensor<16xf32>
  %s = linalg.mul ins(%r, %m : tensor<16xf32>, tensor<16xf32>) outs(%es : tensor<16xf32>) -> tensor<16xf32>
  return %s : tensor<16xf32>
}

func.func @main() {
  %c3 = arith.constant 3 : index
  %true = arith.constant true
  %x0 = tensor.empty() : tensor<16xf32>
  %x = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]}
      outs(%x0 : tensor<16xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %v = func.call @pseudo(%i, %i) : (index, index) -> f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  %l = func.call @loop(%x, %c3) : (tensor<16xf32>, index) -> tensor<16xf32>
  %d = func.call @diamond(%l, %true) : (tensor<16xf32>, i1) -> tensor<16xf32>
  %ml = bufferization.to_buffer %l : tensor<16xf32> to memref<16xf32>
  %ul = memref.cast %ml : memref<16xf32> to memref<*xf32>
  func.call @printMemrefF32(%ul) : (memref<*xf32>) -> ()
  %md = bufferization.to_buffer %d : tensor<16xf32> to memref<16xf32>
  %ud = memref.cast %md : memref<16xf32> to memref<*xf32>
  func.call @printMemrefF32(%ud) : (memref<*xf32>) -> ()
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
