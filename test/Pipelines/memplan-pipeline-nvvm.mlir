// REQUIRES: cuda-toolkit
// RUN: memplan-opt %s --memplan-pipeline="target=nvvm toolkit=%cuda_toolkit" -o %t
// RUN: FileCheck %s --input-file=%t
// RUN: FileCheck %s --input-file=%t --check-prefix=BIN
// RUN: memplan-opt %s --memplan-pipeline="target=nvvm chip=sm_80 features=+ptx70 format=isa" | FileCheck %s --check-prefix=ISA
// RUN: %expect_exit 1 memplan-opt %s --memplan-pipeline="target=nvvm block-size=2048" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BLOCK

// A planned step for the GPU: every kernel outlined and serialized (a fatbin
// made with the toolkit's ptxas), the arena taken from the runtime once per
// function, no other device allocation in the step, host code in the LLVM
// dialect.
// BIN: gpu.binary @step_kernel {{.*}}#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
// CHECK: llvm.mlir.global internal @__memplan_arena.step()
// CHECK-LABEL: llvm.func @step(
// CHECK: llvm.mlir.addressof @__memplan_arena.step
// CHECK: llvm.call @memplan_arena_acquire(
// CHECK-NOT: mgpuMemAlloc
// CHECK: gpu.launch_func
// CHECK-NOT: memplan.
// CHECK-NOT: linalg.
// ISA: gpu.binary @step_kernel {{.*}}#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">{{.*}}.target sm_80
// BLOCK: block-size must be between 1 and 1024, got 2048
func.func @step(%x: tensor<64x32xf32>, %w: tensor<32x16xf32>, %out: tensor<16xf32>) -> tensor<16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %h = linalg.matmul ins(%x, %w : tensor<64x32xf32>, tensor<32x16xf32>) outs(%f : tensor<64x16xf32>) -> tensor<64x16xf32>
  %e2 = tensor.empty() : tensor<64x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<64x16xf32>) outs(%e2 : tensor<64x16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x16xf32>
  // The result goes into the donated argument: the step allocates nothing.
  %z = linalg.fill ins(%zero : f32) outs(%out : tensor<16xf32>) -> tensor<16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%r : tensor<64x16xf32>) outs(%z : tensor<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %acc, %a : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %s : tensor<16xf32>
}
