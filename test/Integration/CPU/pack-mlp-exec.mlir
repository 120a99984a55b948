// The bundled MLP training step, bufferized upstream, run twice under
// mlir-runner: once as upstream leaves it (one allocation per buffer), once
// with every internal buffer packed into one arena. The printed outputs (the
// loss and the updated parameters) must be identical; the buffers' addresses
// in the runner's headers differ and are dropped.
//
// RUN: cat %S/Inputs/mlp-main.mlir %memplan_src_root/examples/mlp_train_step.mlir > %t.mlir
// RUN: mlir-opt %bufferize %t.mlir | memplan-opt --memplan-lower-to-llvm \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.unplanned
// RUN: mlir-opt %bufferize %t.mlir \
// RUN:   | memplan-opt --memplan-pack-arena --memplan-verify-plan --convert-memplan-to-memref \
// RUN:   | memplan-opt --memplan-lower-to-llvm \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.planned
// RUN: diff %t.unplanned %t.planned
// The same through the one-flag pipeline.
// RUN: memplan-opt --memplan-pipeline %t.mlir \
// RUN:   | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.pipeline
// RUN: diff %t.unplanned %t.pipeline
// RUN: FileCheck %s --input-file=%t.planned
// The planned program really has one arena in @train_step and no other
// internal allocation there.
// RUN: mlir-opt %bufferize %t.mlir | memplan-opt --memplan-pack-arena | FileCheck %s --check-prefix=IR

// CHECK: [0.137784]
// CHECK-COUNT-4: [

// IR-LABEL: func.func @train_step
// IR: memplan.arena alignment(64) : memref<{{[0-9]+}}xi8>
// IR-COUNT-14: memplan.view
// IR-NOT: memplan.view
// IR: return
