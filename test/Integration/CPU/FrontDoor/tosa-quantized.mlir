// A quantized TOSA program (int8 in, rescale to int32, add, rescale back
// to int8, cast) lowered by upstream tosa-to-linalg. The lowered
// linalg.generic bodies keep tosa.apply_scale, which memplan-prepare lowers
// with upstream tosa-to-arith (include-apply-rescale). Planned and unplanned
// programs print the same bits.
//
// RUN: mlir-opt %s --pass-pipeline="builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor))" -o %t.linalg.mlir
// RUN: FileCheck %s --check-prefix=LOWERED --input-file=%t.linalg.mlir
// RUN: memplan-opt --memplan-prepare %t.linalg.mlir | FileCheck %s --check-prefix=PREPARED
// RUN: memplan-opt --memplan-prepare %t.linalg.mlir | mlir-opt %bufferize \
// RUN:   | memplan-opt --memplan-lower-to-llvm \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.unplanned
// RUN: memplan-opt --memplan-pipeline="report=%t.json" %t.linalg.mlir \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.planned
// RUN: diff %t.unplanned %t.planned
// RUN: FileCheck %s --input-file=%t.planned
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json

// LOWERED: tosa.apply_scale
// PREPARED-NOT: tosa.

// CHECK: {{\[}}[4836,   1938,   408,   28,   12,   -4,   731,   3432],
// CHECK-NEXT: {{\[}}-12,   72,   2070,   3066,   6,   21,   126,   1363]]
// Four 64-byte buffers of @qnet, at most three live at once.
// REPORT: "arena_bytes": 192
// REPORT: "lower_bound_bytes": 192
// REPORT-NEXT: "name": "qnet"

func.func private @printMemrefI32(memref<*xi32>)

func.func @qnet(%x: tensor<2x8xi8>) -> tensor<2x8xi32> {
  %m = "tosa.const"() <{values = dense<1518500250> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<31> : tensor<1xi8>}> : () -> tensor<1xi8>
  %izp = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %a = tosa.rescale %x, %m, %s, %izp, %zp32 {scale32 = true, rounding_mode = #tosa.rounding_mode<SINGLE_ROUND>, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<2x8xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<2x8xi32>
  %b = tosa.add %a, %a : (tensor<2x8xi32>, tensor<2x8xi32>) -> tensor<2x8xi32>
  %m2 = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s2 = "tosa.const"() <{values = dense<32> : tensor<1xi8>}> : () -> tensor<1xi8>
  %ozp = "tosa.const"() <{values = dense<-5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.rescale %b, %m2, %s2, %zp32, %ozp {scale32 = true, rounding_mode = #tosa.rounding_mode<DOUBLE_ROUND>, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<2x8xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<2x8xi8>
  %d = tosa.cast %c : (tensor<2x8xi8>) -> tensor<2x8xi32>
  %s0 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %e = tosa.mul %d, %a, %s0 : (tensor<2x8xi32>, tensor<2x8xi32>, tensor<1xi8>) -> tensor<2x8xi32>
  return %e : tensor<2x8xi32>
}

func.func @main() {
  %x = arith.constant dense<[[-128, -77, -31, -2, 0, 5, 64, 127], [9, -9, 100, -100, 1, -1, 33, -64]]> : tensor<2x8xi8>
  %r = func.call @qnet(%x) : (tensor<2x8xi8>) -> tensor<2x8xi32>
  %m = bufferization.to_buffer %r : tensor<2x8xi32> to memref<2x8xi32>
  %u = memref.cast %m : memref<2x8xi32> to memref<*xi32>
  func.call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}
