//===- Passes.td - memplan conversion passes ---------------*- tablegen -*-===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_CONVERSION_PASSES
#define MEMPLAN_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertMemplanToMemRefPass
    : Pass<"convert-memplan-to-memref", "::mlir::ModuleOp"> {
  let summary = "Lower arenas and views to upstream memref ops";
  let description = [{
    Each `memplan.arena alignment(A) : memref<Nxi8>` becomes one
    `memref.alloc() {alignment = A} : memref<Nxi8>`, freed by a
    `memref.dealloc` before the function's return (not an arena in a
    non-default memory space: upstream's lowering of a dealloc calls `free`
    with a default-address-space pointer and fails there, so such an arena
    stays allocated, as the program's own buffers in that space would);
    each `memplan.view`
    becomes a `memref.view` at its byte offset. The result lowers with
    upstream passes (for instance `finalize-memref-to-llvm`) and runs under
    `mlir-runner`. Attributes whose value is a memplan attribute
    (`memplan.remat`, `memplan.lifetime`) are dropped: only the planning
    passes read them, and the result must parse without the memplan dialect.

    Rejections: `memplan.arena must be in the entry block of a function body`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ConvertMemplanToGPUPass
    : Pass<"convert-memplan-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Put every device function's buffers in device memory, its "
                "arena in one allocation that lives across calls";
  let description = [{
    Runs at memref level, after packing and verification, on every function
    with a body that is not marked `memplan.host` (a *device function*: its
    compute becomes GPU kernels; see `memplan-gpu-map-loops`). Host
    functions (`memplan.host`) are left as they are: they are the driver,
    and move data with `gpu.alloc`/`gpu.memcpy` themselves.

    In a device function:
    - `memplan.arena : memref<Nxi8>` becomes a call of the runtime's
      `memplan_arena_acquire(slot, N)` (declared here with
      `llvm.emit_c_interface`) and a `memref.cast` to `memref<Nxi8>`. `slot`
      is the address of a private global of the module,
      `@__memplan_arena.<function>`, that caches the device pointer: the
      first call allocates the arena on the device, every later call reuses
      it, so a loop of N steps makes one device allocation for all of the
      function's intermediates. The arena lives until the program exits. A
      device function with an arena is therefore not reentrant: it must not
      run twice at once (recursion, several threads). An arena sized at run
      time (`memplan.arena size(%bytes) : memref<?xi8>`, dynamic shapes)
      passes `%bytes`: the runtime allocates anew only when a call needs more
      than the function's last allocation holds (it frees that one once the
      device has finished with it), so calls at sizes that never grow make
      no allocation after the first.
    - each `memplan.dynamic_view` becomes a `memref.view` at its run-time
      offset, with its sizes;
    - each `memplan.view` becomes a `memref.view` of it at its offset;
    - every other `memref.alloc` (returned or escaping buffers) becomes a
      `gpu.alloc` (made on each call: return results through donated
      arguments to avoid it, as `memplan-zoo --target=nvvm` does) and
      `memref.dealloc` a `gpu.dealloc`;
    - `memref.get_global` of a constant global becomes a call of the
      runtime's `memplan_constant_acquire(slot, host, bytes)` which copies
      the constant to the device on the first call and reuses that copy.

    After it, a device function touches no host memory except through the
    runtime; kernels are made by `memplan-gpu-map-loops`. Attributes whose
    value is a memplan attribute (`memplan.remat`, `memplan.lifetime`) are
    dropped from the module, as by `convert-memplan-to-memref`.

    Rejections (located errors; the pass fails):
    - `memplan.arena in memory space S in a device function: the device
      arena is in the default (global) memory space`
    - `memplan.arena must be in the entry block of a function body`
    - `planned buffer inside '...' in a device function: its iterations run
      at once on the device and would share the buffer's one slot` (a
      `memplan.view` or `memplan.dynamic_view` inside `scf.parallel`, `scf.forall` or
      `affine.parallel`, which run their iterations in order on the CPU)
    - `memref.alloca in a device function: kernels cannot read host stack
      memory`
    - `memref.get_global of a non-constant global in a device function: its
      host memory is not visible to kernels`
    - `dynamic shape ... in a device function: memplan's device lowering
      supports static shapes only` (on a `memref.get_global`; allocations
      of run-time size become `gpu.alloc`s of that size)
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect"];
}

def GPUMapLoopsPass : Pass<"memplan-gpu-map-loops", "::mlir::ModuleOp"> {
  let summary = "Turn device functions' linalg ops into GPU-mapped parallel "
                "loops, host functions' into sequential loops";
  let description = [{
    Runs at memref level on every function with a body. It decides where
    each linalg op runs and lowers it to loops accordingly:

    - In a host function (`memplan.host`) every linalg op becomes a
      sequential `scf.for` nest (upstream `linalgOpToLoops`): it runs on the
      CPU.
    - In a device function every `memref.copy` first becomes a
      `linalg.copy`. A linalg op whose loops are not all parallel loops
      before its reduction loops is generalized and its loops interchanged
      so that they are (the order in which each output element accumulates
      is unchanged). Then each linalg op becomes an `scf.parallel` over its
      parallel loops with `scf.for` loops for its reductions inside
      (upstream `linalgOpToParallelLoops`); an op without parallel loops
      (rank 0, or a full reduction) runs inside a one-iteration
      `scf.parallel`, i.e. on one GPU thread. Every outermost
      `scf.parallel` is then collapsed to one dimension (its iteration
      space, row-major, so consecutive threads touch consecutive elements
      of the innermost dimension), split into blocks of up to
      `block-size` threads with a bound check for the last block, and
      mapped to `block_x`/`thread_x` (`#gpu.loop_dim_map`). An upper bound
      that is not a constant (dynamic shapes) makes the trip counts, their
      product and the number of blocks run-time values: the grid is
      `max(1, ceil(points / block-size))` blocks of `block-size` threads
      (CUDA refuses an empty grid) and every thread checks the bound; nested
      `scf.parallel` loops become `scf.for` loops inside the thread.
      `convert-parallel-loops-to-gpu` then makes one `gpu.launch` per
      outermost loop.

    After it, a device function reads and writes memory only inside mapped
    `scf.parallel` loops, through `gpu` ops, or through calls.

    Options: `block-size` (threads per block, 1 to 1024, default 256).

    Rejections (located errors; the pass fails):
    - `linalg op on tensors: bufferize before memplan-gpu-map-loops`
    - `scf.parallel with reductions in a device function is not supported`
    - `scf.parallel with a non-constant lower bound or step in a device
      function: memplan's device lowering needs them constant (a positive
      step)` (linalg ops' loops start at 0 with step 1)
    - `the iteration space of this loop has more than 2^63 points`
    - `the iteration space of this loop needs more than 2^31-1 GPU blocks of
      N threads`
    - `'...' reads or writes memory on the host in a device function: kernels
      own the device memory; move this into a linalg op or a host function`
    - `block-size must be between 1 and 1024, got N`
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per GPU block (1 to 1024)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def VerifyLoweredPass : Pass<"memplan-verify-lowered", "::mlir::ModuleOp"> {
  let summary = "Check that a lowered module holds only what its target runs";
  let description = [{
    The last stage of `memplan-pipeline`: after lowering, every op must be
    one the target's translation and runner accept. For `target=cpu` that is
    the `llvm` dialect and `builtin.module`; for `target=nvvm` also
    `gpu.binary` (the serialized kernels) and `gpu.launch_func` (which
    `mlir-translate` turns into runtime calls). Anything else (a `vector`, `ub`,
    `math` or `memref` op that no lowering handled, an
    `unrealized_conversion_cast`, ...) would make `mlir-runner` or
    `mlir-translate` fail on the output, so the pipeline fails instead.
    Changes nothing.

    Rejections (located errors, one per distinct op name, at its first
    occurrence; the pass fails):
    - `'<op>' is left after lowering for target=<t>: no stage of the
      pipeline lowers it, so the output would not run`
    - `nested module @m is not lowered for target=<t>: '<op>' is left in it
      (...)` (once per nested module with anything left in it, naming the
      first op left, instead of one error per op inside; the pipeline lowers
      nested modules for target=cpu except `vector.mask`)
  }];
  let options = [
    Option<"target", "target", "::mlir::memplan::LoweringTarget",
           /*default=*/"::mlir::memplan::LoweringTarget::CPU",
           "The target whose dialects are allowed: cpu (default) or nvvm",
           [{::mlir::memplan::loweringTargetValues()}]>,
  ];
}

#endif // MEMPLAN_CONVERSION_PASSES
