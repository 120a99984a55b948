// RUN: memplan-opt %s --memplan-pack-arena="report=%t.json explain=%t.txt" --memplan-verify-plan | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json
// RUN: FileCheck %s --check-prefix=EXPLAIN --input-file=%t.txt

// A buffer passed to a call is planned when the callee certainly keeps no
// reference to it once it returns: a function of the module that only reads
// or writes it (through views too, and through further such calls), or one
// of MLIR's runner printers. Otherwise it stays a memref.alloc.

func.func private @printMemrefF32(memref<*xf32>)
func.func private @unknown(memref<16xf32>)

func.func @reads(%m: memref<16xf32>, %out: memref<16xf32>) {
  %v = memref.subview %m[0] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1]>>
  %o = memref.subview %out[0] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1]>>
  linalg.copy ins(%v : memref<8xf32, strided<[1]>>) outs(%o : memref<8xf32, strided<[1]>>)
  %u = memref.cast %m : memref<16xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @returns(%m: memref<16xf32>) -> memref<16xf32> {
  return %m : memref<16xf32>
}

func.func @frees(%m: memref<16xf32>) {
  memref.dealloc %m : memref<16xf32>
  return
}

// The report and the explanation say which allocations stay on the heap,
// and why.
// REPORT: "heap_buffers": [
// REPORT-NEXT: {
// REPORT-NEXT: "name": "memref.alloc @ {{.*}}pack-arena-calls.mlir:[[#@LINE+32]]:8",
// REPORT-NEXT: "reason": "passed to @returns, which may keep or return it"
// REPORT: "reason": "passed to @frees, which may keep or return it"
// REPORT: "reason": "passed to @unknown, which may keep or return it"
// REPORT: "name": "caller",
// EXPLAIN: @caller: arena
// EXPLAIN: left on the heap: memref.alloc @ {{.*}}: passed to @returns, which may keep or return it
// EXPLAIN-NEXT: left on the heap: memref.alloc @ {{.*}}: passed to @frees, which may keep or return it
// EXPLAIN-NEXT: left on the heap: memref.alloc @ {{.*}}: passed to @unknown, which may keep or return it

// CHECK-LABEL: func.func @caller
// CHECK: memplan.arena
// CHECK: %[[A:.*]] = memplan.view {{.*}} to memref<16xf32>
// CHECK: call @reads(%[[A]],
// CHECK: %[[B:.*]] = memplan.view {{.*}} to memref<16xf32>
// CHECK: call @printMemrefF32
// Returned by the callee, freed by it, or given to an unknown function: kept
// as allocations.
// CHECK: %[[R:.*]] = memref.alloc() : memref<16xf32>
// CHECK: call @returns(%[[R]])
// CHECK: %[[F:.*]] = memref.alloc() : memref<16xf32>
// CHECK: call @frees(%[[F]])
// CHECK: %[[U:.*]] = memref.alloc() : memref<16xf32>
// CHECK: call @unknown(%[[U]])
func.func @caller(%x: memref<16xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  linalg.copy ins(%x : memref<16xf32>) outs(%a : memref<16xf32>)
  func.call @reads(%a, %out) : (memref<16xf32>, memref<16xf32>) -> ()
  %b = memref.alloc() : memref<16xf32>
  linalg.copy ins(%a : memref<16xf32>) outs(%b : memref<16xf32>)
  %bu = memref.cast %b : memref<16xf32> to memref<*xf32>
  func.call @printMemrefF32(%bu) : (memref<*xf32>) -> ()
  %r = memref.alloc() : memref<16xf32>
  %r2 = func.call @returns(%r) : (memref<16xf32>) -> memref<16xf32>
  linalg.copy ins(%r2 : memref<16xf32>) outs(%out : memref<16xf32>)
  %f = memref.alloc() : memref<16xf32>
  func.call @frees(%f) : (memref<16xf32>) -> ()
  %u = memref.alloc() : memref<16xf32>
  func.call @unknown(%u) : (memref<16xf32>) -> ()
  return
}
