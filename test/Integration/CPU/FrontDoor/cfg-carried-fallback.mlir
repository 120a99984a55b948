// A loop of blocks whose body allocates, inside an scf.if, a new buffer and
// fills it from the previous iteration's one read backwards (a detensorized
// recurrence). One slot per iteration would overwrite what it reads: the
// analysis must see the older instance live at the allocation even though
// both sit inside the scf.if. (An earlier version of the check looked only at
// the body's top-level ops, planned one slot and printed wrong values with
// exit 0; found by review.) Without strict the function is left unplanned
// with a warning and prints the unplanned bits.
//
// RUN: memplan-opt --memplan-prepare %s | mlir-opt %bufferize \
// RUN:   | memplan-opt --memplan-lower-to-llvm \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.unplanned
// RUN: memplan-opt --memplan-pipeline="report=%t.json" %s 2> %t.warnings \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.planned
// RUN: diff %t.unplanned %t.planned
// RUN: FileCheck %s --check-prefix=WARN --input-file=%t.warnings
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json
// RUN: not memplan-opt --memplan-pipeline="strict=true" %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT

// WARN: warning: memplan leaves @f unplanned: buffer allocated inside a loop of blocks is carried across iterations
// REPORT: "name": "f",
// REPORT: "unplanned": "buffer allocated inside a loop of blocks is carried across iterations
// STRICT: error: buffer allocated inside a loop of blocks is carried across iterations

#id = affine_map<(i) -> (i)>
#rev = affine_map<(i) -> (15 - i)>
func.func private @printMemrefF32(memref<*xf32>)

func.func @f(%x: tensor<16xf32>, %n: index, %c: i1) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^header(%x, %c0 : tensor<16xf32>, index)
^header(%cur: tensor<16xf32>, %i: index):
  %cond = arith.cmpi slt, %i, %n : index
  cf.cond_br %cond, ^body, ^exit
^body:
  %r = scf.if %c -> tensor<16xf32> {
    %e = tensor.empty() : tensor<16xf32>
    %g = linalg.generic {indexing_maps = [#id, #rev, #id], iterator_types = ["parallel"]}
        ins(%cur, %cur : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %h = arith.constant 0.5 : f32
      %m = arith.mulf %a, %h : f32
      %s = arith.addf %m, %b : f32
      linalg.yield %s : f32
    } -> tensor<16xf32>
    scf.yield %g : tensor<16xf32>
  } else {
    scf.yield %cur : tensor<16xf32>
  }
  %i1 = arith.addi %i, %c1 : index
  cf.br ^header(%r, %i1 : tensor<16xf32>, index)
^exit:
  %e2 = tensor.empty() : tensor<16xf32>
  %o = linalg.copy ins(%cur : tensor<16xf32>) outs(%e2 : tensor<16xf32>) -> tensor<16xf32>
  return %o : tensor<16xf32>
}

func.func @main() {
  %c5 = arith.constant 5 : index
  %true = arith.constant true
  %x = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]> : tensor<16xf32>
  %r = func.call @f(%x, %c5, %true) : (tensor<16xf32>, index, i1) -> tensor<16xf32>
  %m = bufferization.to_buffer %r : tensor<16xf32> to memref<16xf32>
  %u = memref.cast %m : memref<16xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
