// RUN: memplan-opt %s -split-input-file --memplan-verify-plan | FileCheck %s

// A valid hand-written plan passes unchanged: the two views share bytes but
// never live at the same step ([0, 2) and [2, 4)).
// CHECK-LABEL: func.func @disjoint_in_time
// CHECK-COUNT-2: memplan.view
func.func @disjoint_in_time(%f: f32, %out: memref<16xf32>) {
  %arena = memplan.arena alignment(64) : memref<64xi8>
  %a = memplan.view %arena[<offset = 0, size = 64, alignment = 64>] : memref<64xi8> to memref<16xf32>
  linalg.fill ins(%f : f32) outs(%a : memref<16xf32>)
  %b = memplan.view %arena[<offset = 0, size = 64, alignment = 64>] : memref<64xi8> to memref<16xf32>
  linalg.copy ins(%b : memref<16xf32>) outs(%out : memref<16xf32>)
  return
}
