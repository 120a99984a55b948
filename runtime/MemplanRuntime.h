//===- MemplanRuntime.h - memplan's CUDA runtime, C API ---------*- C++ -*-===//
//
// Part of memplan. Linked into every program `memplan-compile --target=nvvm`
// makes. Over the CUDA driver API; every CUDA call is checked: a failure
// prints the call, the CUDA error name and message, and exits with status 1.
//
// Two groups of entry points:
//  - the `mgpu*` functions that MLIR 22's GPU-to-LLVM host code calls
//    (modules, kernels, streams, events, device memory, copies);
//  - memplan's own: the per-function device arena and constant copies that
//    `convert-memplan-to-gpu` emits, host-memref printers, and counters of
//    device allocations that drivers print and tests read.
//
// The CUDA context is created on first use (kernel modules load in global
// constructors, before main): the primary context of device
// $MEMPLAN_DEVICE (default 0).
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_RUNTIME_MEMPLANRUNTIME_H
#define MEMPLAN_RUNTIME_MEMPLANRUNTIME_H

#include <cstdint>

extern "C" {

/// A memref<?xi8> descriptor, as MLIR's C interface passes it.
struct MemplanByteMemRef {
  uint8_t *allocated;
  uint8_t *aligned;
  int64_t offset;
  int64_t sizes[1];
  int64_t strides[1];
};

/// An unranked memref descriptor: rank and a pointer to the ranked one.
struct MemplanUnrankedMemRef {
  int64_t rank;
  void *descriptor;
};

/// The device arena of one function: allocated (`bytes`, cuMemAlloc) on the
/// first call with `*slot == nullptr` and kept (through a record the
/// runtime makes and points `*slot` to); later calls return the same memory
/// while `bytes` fits in it. An arena sized at run time (dynamic shapes)
/// that needs more than the last allocation holds gets a new allocation of
/// exactly `bytes`, after the device has finished with the old one, which is
/// freed. Called by code from `convert-memplan-to-gpu`.
void _mlir_ciface_memplan_arena_acquire(MemplanByteMemRef *result, void **slot,
                                        int64_t bytes);

/// A device copy of `bytes` of host memory at address `host`, made on the
/// first call (`*slot == nullptr`) and cached in `*slot`.
void _mlir_ciface_memplan_constant_acquire(MemplanByteMemRef *result,
                                           void **slot, int64_t host,
                                           int64_t bytes);

/// Print a host memref of f32/f64 elements: a header line with the rank and
/// sizes, then the values, row-major in nested brackets, with enough digits
/// to round-trip (9 for f32, 17 for f64), so equal text means equal bits.
/// A device pointer is refused with an error (copy it to the host first).
void _mlir_ciface_memplan_print_f32(MemplanUnrankedMemRef *memref);
void _mlir_ciface_memplan_print_f64(MemplanUnrankedMemRef *memref);

/// Step markers for drivers: allocations made between
/// `memplan_steps_begin` and the first `memplan_step_done` count for step
/// 1, and so on; the host clock is read at each marker (a step's stream is
/// synchronized before the step returns). With MEMPLAN_VERBOSE_STEPS=1 each
/// marker also prints a line on stderr as it passes.
void memplan_steps_begin();
void memplan_step_done(int64_t step);

/// Print the counters to stdout, one `memplan-runtime:` line each:
///   device_allocations=N device_bytes=B peak_device_bytes=P frees=F
///   arena_allocations=N arena_bytes=B constant_copies=N constant_bytes=B
///   steps=S step1_allocations=N later_step_allocations=N
///   step_ms=T1,T2,...          (wall time of each step, host clock)
///   median_later_step_ms=T     (median of steps 2..S; with S >= 2)
///   device_memory_used=B device_memory_used_at_start=B0
///   device_memory_total=T      (cuMemGetInfo: total - free, all processes;
///                               B0 right after the context was made)
void memplan_print_counters();

/// The number of device allocations so far (arenas included).
int64_t memplan_device_allocations();
}

#endif // MEMPLAN_RUNTIME_MEMPLANRUNTIME_H
