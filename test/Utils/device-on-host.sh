#!/usr/bin/env bash
# device-on-host.sh < DEVICE.mlir > HOST.mlir
# Rewrites a memplan-zoo --target=nvvm module so it runs on the CPU: device
# allocations and copies become host ones, memplan's runtime printer becomes
# mlir-runner's, the step markers and counters become empty functions. The
# step itself (in-place updates into donated buffers, the steps loop) is left
# as it is, so the CPU can check the device program's semantics.
exec sed \
  -e 's/gpu\.alloc  ()/memref.alloc()/' \
  -e 's/gpu\.memcpy  \(%[A-Za-z0-9_]*\), \(%[A-Za-z0-9_]*\) : \(.*\), \(.*\)$/memref.copy \2, \1 : \4 to \3/' \
  -e 's/func\.func private @memplan_steps_begin()$/func.func private @memplan_steps_begin() { return }/' \
  -e 's/func\.func private @memplan_print_counters()$/func.func private @memplan_print_counters() { return }/' \
  -e 's/func\.func private @memplan_step_done(i64)$/func.func private @memplan_step_done(%s: i64) { return }/' \
  -e 's/memplan_print_f32/printMemrefF32/g' -e 's/memplan_print_f64/printMemrefF64/g' \
  -e 's/ attributes {llvm\.emit_c_interface}//'
