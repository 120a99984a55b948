// A while loop as frontends write it on tensors (a rank-0 counter and
// condition, a vector accumulator), put through what compilers run before
// bufferizing: scf-to-cf, then upstream linalg-detensorize, which turns the
// rank-0 tensors into scalars and leaves the accumulator carried around a
// loop of blocks.
// - @f returns the accumulator: its buffer is the caller's, so each
//   iteration's instance stays on the heap and the loop carrying it is no
//   obstacle; the loop's own temporary is planned in @f's arena.
// - @g returns something computed from the accumulator after the loop, and
//   the op writing the new accumulator reads the old one backwards: after
//   bufferization, memplan-double-buffer gives the carried buffer two slots
//   hoisted out of the loop (selected by a parity argument of the loop's
//   header), and both are planned in @g's arena with the loop's temporary.
// @main's temporary is planned in its arena; the planned program prints the
// unplanned program's bits. (cfg-carried-fallback.mlir: a carried buffer two
// slots cannot hold is left unplanned with a warning.)
//
// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(convert-scf-to-cf,linalg-detensorize{aggressive-mode}),canonicalize)' > %t.cf.mlir
// RUN: FileCheck %s --check-prefix=DETENSORIZED --input-file=%t.cf.mlir
// RUN: memplan-opt --memplan-prepare %t.cf.mlir | mlir-opt %bufferize \
// RUN:   | memplan-opt --memplan-lower-to-llvm \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.unplanned
// RUN: memplan-opt --memplan-pipeline="report=%t.json" %t.cf.mlir 2> %t.warnings \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.planned
// RUN: diff %t.unplanned %t.planned
// RUN: FileCheck %s --check-prefix=OUT --input-file=%t.planned
// RUN: FileCheck %s --check-prefix=WARN --input-file=%t.warnings --allow-empty
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json

// The counter and the condition are scalars now; the accumulator is a block
// argument of the loop header.
// DETENSORIZED: ^bb1(%{{.*}}: tensor<16xf32>, %{{.*}}: i32):
// DETENSORIZED-NOT: tensor<i32>
// DETENSORIZED: return %{{.*}} : tensor<16xf32>
// Five halvings towards 1 from 2 i + 1, i = 0..15 (x -> x/2 + 1/2): 1 + i/16.
// @g: five steps of x -> x[15 - i] - x[i]/2 + 1/2 from the same start, then
// doubled (the values a Python reference computes).
// OUT: [1, 1.0625, 1.125, 1.1875, 1.25, 1.3125, 1.375, 1.4375, 1.5, 1.5625, 1.625, 1.6875, 1.75, 1.8125, 1.875, 1.9375]
// OUT: [230.75, 200.375, 170, 139.625, 109.25, 78.875, 48.5, 18.125, -12.25, -42.625, -73, -103.375, -133.75, -164.125, -194.5, -224.875]
// WARN-NOT: warning
// @f: the loop's temporary. @g: the two slots, live over the whole loop,
// and the temporary.
// REPORT: "arena_bytes": 64,
// REPORT-NEXT: "buffers": [
// REPORT: "name": "f",
// REPORT: "arena_bytes": 192,
// REPORT-NEXT: "buffers": [
// REPORT-NEXT: {
// REPORT-NEXT: "end": [[END:[0-9]+]],
// REPORT: "size": 64,
// REPORT-NEXT: "start": 0
// REPORT: "end": [[END]],
// REPORT: "size": 64,
// REPORT-NEXT: "start": 0
// REPORT: "name": "g",
// REPORT: "arena_bytes": 128,
// REPORT: "name": "main",

#id = affine_map<(i) -> (i)>
#rev = affine_map<(i) -> (15 - i)>
#s = affine_map<() -> ()>
func.func private @printMemrefF32(memref<*xf32>)

func.func @f(%x: tensor<16xf32>, %n: tensor<i32>) -> tensor<16xf32> {
  %zero = arith.constant dense<0> : tensor<i32>
  %one = arith.constant dense<1> : tensor<i32>
  %r:2 = scf.while (%acc = %x, %i = %zero) : (tensor<16xf32>, tensor<i32>) -> (tensor<16xf32>, tensor<i32>) {
    %e0 = tensor.empty() : tensor<i1>
    %lt = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []}
        ins(%i, %n : tensor<i32>, tensor<i32>) outs(%e0 : tensor<i1>) {
    ^bb0(%a: i32, %b: i32, %o: i1):
      %c = arith.cmpi slt, %a, %b : i32
      linalg.yield %c : i1
    } -> tensor<i1>
    %cond = tensor.extract %lt[] : tensor<i1>
    scf.condition(%cond) %acc, %i : tensor<16xf32>, tensor<i32>
  } do {
  ^bb0(%a: tensor<16xf32>, %j: tensor<i32>):
    // A temporary of the iteration (x/2), then the carried result (+ 1/2).
    %et = tensor.empty() : tensor<16xf32>
    %half = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%a : tensor<16xf32>) outs(%et : tensor<16xf32>) {
    ^bb0(%v: f32, %o: f32):
      %h = arith.constant 0.5 : f32
      %m = arith.mulf %v, %h : f32
      linalg.yield %m : f32
    } -> tensor<16xf32>
    // The new accumulator is written by the op that still reads the old
    // one, so two instances are live at once: (x - x/2) + 1/2.
    %e = tensor.empty() : tensor<16xf32>
    %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
        ins(%a, %half : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) {
    ^bb0(%v: f32, %hv: f32, %o: f32):
      %h = arith.constant 0.5 : f32
      %d = arith.subf %v, %hv : f32
      %s2 = arith.addf %d, %h : f32
      linalg.yield %s2 : f32
    } -> tensor<16xf32>
    %e1 = tensor.empty() : tensor<i32>
    %j1 = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []}
        ins(%j, %one : tensor<i32>, tensor<i32>) outs(%e1 : tensor<i32>) {
    ^bb0(%a1: i32, %b1: i32, %o1: i32):
      %t = arith.addi %a1, %b1 : i32
      linalg.yield %t : i32
    } -> tensor<i32>
    scf.yield %g, %j1 : tensor<16xf32>, tensor<i32>
  }
  return %r#0 : tensor<16xf32>
}

func.func @g(%x: tensor<16xf32>, %n: tensor<i32>) -> tensor<16xf32> {
  %zero = arith.constant dense<0> : tensor<i32>
  %one = arith.constant dense<1> : tensor<i32>
  %r:2 = scf.while (%acc = %x, %i = %zero) : (tensor<16xf32>, tensor<i32>) -> (tensor<16xf32>, tensor<i32>) {
    %e0 = tensor.empty() : tensor<i1>
    %lt = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []}
        ins(%i, %n : tensor<i32>, tensor<i32>) outs(%e0 : tensor<i1>) {
    ^bb0(%a: i32, %b: i32, %o: i1):
      %c = arith.cmpi slt, %a, %b : i32
      linalg.yield %c : i1
    } -> tensor<i1>
    %cond = tensor.extract %lt[] : tensor<i1>
    scf.condition(%cond) %acc, %i : tensor<16xf32>, tensor<i32>
  } do {
  ^bb0(%a: tensor<16xf32>, %j: tensor<i32>):
    // A temporary of the iteration (x/2), then the carried result (+ 1/2).
    %et = tensor.empty() : tensor<16xf32>
    %half = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%a : tensor<16xf32>) outs(%et : tensor<16xf32>) {
    ^bb0(%v: f32, %o: f32):
      %h = arith.constant 0.5 : f32
      %m = arith.mulf %v, %h : f32
      linalg.yield %m : f32
    } -> tensor<16xf32>
    // The new accumulator is written by the op that still reads the old
    // one, backwards (one slot would overwrite what it still has to read):
    // (x[15 - i] - x[i]/2) + 1/2.
    %e = tensor.empty() : tensor<16xf32>
    %g = linalg.generic {indexing_maps = [#rev, #id, #id], iterator_types = ["parallel"]}
        ins(%a, %half : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) {
    ^bb0(%v: f32, %hv: f32, %o: f32):
      %h = arith.constant 0.5 : f32
      %d = arith.subf %v, %hv : f32
      %s2 = arith.addf %d, %h : f32
      linalg.yield %s2 : f32
    } -> tensor<16xf32>
    %e1 = tensor.empty() : tensor<i32>
    %j1 = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []}
        ins(%j, %one : tensor<i32>, tensor<i32>) outs(%e1 : tensor<i32>) {
    ^bb0(%a1: i32, %b1: i32, %o1: i32):
      %t = arith.addi %a1, %b1 : i32
      linalg.yield %t : i32
    } -> tensor<i32>
    scf.yield %g, %j1 : tensor<16xf32>, tensor<i32>
  }
  // The accumulator is read after the loop, not returned.
  %ed = tensor.empty() : tensor<16xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%r#0 : tensor<16xf32>) outs(%ed : tensor<16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %w = arith.addf %v, %v : f32
    linalg.yield %w : f32
  } -> tensor<16xf32>
  return %d : tensor<16xf32>
}

func.func @main() {
  %e = tensor.empty() : tensor<16xf32>
  %x = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e : tensor<16xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %i32 = arith.index_cast %i : index to i32
    %v = arith.sitofp %i32 : i32 to f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  // A temporary of @main's own, planned in its arena: 2 x, then + 1.
  %e2 = tensor.empty() : tensor<16xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e2 : tensor<16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %w = arith.mulf %v, %two : f32
    linalg.yield %w : f32
  } -> tensor<16xf32>
  %e3 = tensor.empty() : tensor<16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : tensor<16xf32>) outs(%e3 : tensor<16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c1 = arith.constant 1.0 : f32
    %w = arith.addf %v, %c1 : f32
    linalg.yield %w : f32
  } -> tensor<16xf32>
  %n = arith.constant dense<5> : tensor<i32>
  %r = func.call @f(%y, %n) : (tensor<16xf32>, tensor<i32>) -> tensor<16xf32>
  %m = bufferization.to_buffer %r : tensor<16xf32> to memref<16xf32>
  %u = memref.cast %m : memref<16xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  %rg = func.call @g(%y, %n) : (tensor<16xf32>, tensor<i32>) -> tensor<16xf32>
  %mg = bufferization.to_buffer %rg read_only : tensor<16xf32> to memref<16xf32>
  %ug = memref.cast %mg : memref<16xf32> to memref<*xf32>
  func.call @printMemrefF32(%ug) : (memref<*xf32>) -> ()
  return
}
