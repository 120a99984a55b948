// RUN: memplan-opt %s -split-input-file --test-memplan-print-lifetimes -o /dev/null | FileCheck %s

// Element sizes come from MLIR's DataLayout (the module's dlti.dl_spec or the
// defaults), as the LLVM lowering allocates them: size rounded up to the ABI
// alignment, never less than the power-of-two byte width for integers.
// CHECK-LABEL: lifetimes of @sizes
// CHECK-NEXT:  = memref.alloc @0: 56 B
// CHECK-NEXT:  = memref.alloc @1: 32 B
// CHECK-NEXT:  = memref.alloc @2: 32 B
// CHECK-NEXT:  = memref.alloc @3: 8 B
// CHECK-NEXT:  = memref.alloc @4: 16 B
// CHECK-NEXT:  = memref.alloc @5: 32 B
// CHECK-NEXT:  = memref.alloc @6: 6 B
// CHECK-NEXT:  = memref.alloc @7: 128 B
// CHECK-NEXT:  = memref.alloc @8: 32 B
// CHECK-NEXT:  = tensor.empty @9: 16 B
func.func @sizes() {
  %a = memref.alloc() : memref<7xindex>              // 8 B each (64-bit index)
  %b = memref.alloc() : memref<4xcomplex<f32>>       // two f32
  %c = memref.alloc() : memref<2xvector<3xf32>>      // padded to 16 B
  %d = memref.alloc() : memref<8xi1>                 // one byte each
  %e = memref.alloc() : memref<4xi24>                // 3 B aligned to 4
  %f = memref.alloc() : memref<2xi65>                // as LLVM stores i65: 16 B
  %h = memref.alloc() : memref<3xf16>
  %i = memref.alloc() : memref<2x2xvector<2x3xf32>>  // 2 x 16 B each
  %j = memref.alloc() : memref<2xcomplex<f64>>
  %k = tensor.empty() : tensor<2xindex>
  return
}

// -----

// A data layout with a 32-bit index.
// CHECK-LABEL: lifetimes of @index32
// CHECK-NEXT:  = memref.alloc @0: 28 B
module attributes {dlti.dl_spec = #dlti.dl_spec<index = 32 : i64>} {
  func.func @index32() {
    %a = memref.alloc() : memref<7xindex>
    return
  }
}
