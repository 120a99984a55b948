// The README's demo input: its lifetimes before and after upstream
// bufferization agree, and the peak is the one the README shows.
// RUN: memplan-opt --test-memplan-print-lifetimes %memplan_src_root/examples/mlp_train_step.mlir -o /dev/null | FileCheck %s
// RUN: mlir-opt --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" %memplan_src_root/examples/mlp_train_step.mlir \
// RUN:   | memplan-opt --test-memplan-print-lifetimes -o /dev/null | FileCheck %s --check-prefix=MEMREF

// CHECK-LABEL: lifetimes of @train_step (49 steps)
// CHECK-COUNT-14: planned
// CHECK-NOT: planned
// CHECK: peak = 1152 at step 36
// MEMREF-LABEL: lifetimes of @train_step (49 steps)
// MEMREF-COUNT-14: memref.alloc {{.*}} planned
// MEMREF: peak = 1152 at step 36
