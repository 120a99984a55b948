// Rejections and fallbacks of memplan-pack-arena on dynamic shapes.
//
// RUN: memplan-opt %s -split-input-file -verify-diagnostics --memplan-pack-arena
// RUN: not memplan-opt %s -split-input-file --memplan-pack-arena="bounded=true" 2>&1 | FileCheck %s --check-prefix=BOUNDED
// RUN: not memplan-opt %s -split-input-file --memplan-pack-arena="bounds=B" 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not memplan-opt %s -split-input-file --memplan-pack-arena="eval=B=1;B=x" 2>&1 | FileCheck %s --check-prefix=OPTION2
// RUN: not memplan-opt %s -split-input-file --memplan-pack-arena="bounds=zz=3" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not memplan-opt %s -split-input-file --memplan-pack-arena="eval=B=3;Q=4" 2>&1 | FileCheck %s --check-prefix=UNKNOWN2

// BOUNDED: error: memplan-pack-arena: bounded=true needs a bound for every symbol of @f; missing: B (give `memplan.bounds = {B = N : i64}` on the function or the option bounds=B=N)
// OPTION: error: memplan-pack-arena: bad bounds option: expected NAME=VALUE (a non-negative integer), got 'B'
// OPTION2: error: memplan-pack-arena: bad eval option: expected NAME=VALUE (a non-negative integer), got 'B=x'
// UNKNOWN: error: memplan-pack-arena: the bounds option names 'zz', which is a symbol of no function of the module
// UNKNOWN2: error: memplan-pack-arena: the eval option names 'Q', which is a symbol of no function of the module

func.func @f(%x: memref<?xf32> {memplan.symbols = ["B"]}, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  linalg.copy ins(%x : memref<?xf32>) outs(%a : memref<?xf32>)
  linalg.copy ins(%a : memref<?xf32>) outs(%out : memref<?xf32>)
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

// A size read from memory is not a function of the arguments' sizes: that
// buffer stays on the heap (the report says why, see
// pack-arena-dynamic-heap.mlir) and the rest of the function is planned.
func.func @loaded(%x: memref<?xf32>, %size: memref<index>, %out: memref<?xf32>) {
  %n = memref.load %size[] : memref<index>
  %a = memref.alloc(%n) : memref<?xf32>
  linalg.copy ins(%x : memref<?xf32>) outs(%a : memref<?xf32>)
  linalg.copy ins(%a : memref<?xf32>) outs(%out : memref<?xf32>)
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

// expected-error @+1 {{'memplan.bounds' bounds 'S', which is not a symbol of @unknown (its symbols: B, a1)}}
func.func @unknown(%x: memref<?xf32> {memplan.symbols = ["B"]}, %n: index) attributes {memplan.bounds = {S = 4 : i64}} {
  return
}

// -----

// expected-error @+1 {{symbol 'B' names two dimensions of @twice; give each its own name}}
func.func @twice(%x: memref<?xf32> {memplan.symbols = ["B"]}, %y: memref<?xf32> {memplan.symbols = ["B"]}) {
  return
}

// -----

// expected-error @+1 {{'memplan.symbols' name '2x' of argument 0 is not an identifier ([A-Za-z_][A-Za-z0-9_]*)}}
func.func @name(%x: memref<?xf32> {memplan.symbols = ["2x"]}) {
  return
}

// -----

// expected-error @+1 {{'memplan.symbols' of a ranked shaped argument must be an array of one string per dimension}}
func.func @arity(%x: memref<?x?xf32> {memplan.symbols = ["B"]}) {
  return
}

// -----

// expected-error @+1 {{'memplan.bounds' bound of 'B' must be a non-negative integer}}
func.func @negative(%x: memref<?xf32> {memplan.symbols = ["B"]}) attributes {memplan.bounds = {B = -1 : i64}} {
  return
}

// -----

// A budget holds at the bounds: two live buffers of 4 * B bytes at B = 100
// take 896 bytes (each rounded up to 448), over 500.
// expected-error @+1 {{memplan-pack-arena: the arena of @overBudget at the bounds B=100 is 896 bytes, over its budget of 500 bytes}}
func.func @overBudget(%x: memref<?xf32> {memplan.symbols = ["B"]}, %out: memref<?xf32>) attributes {memplan.bounds = {B = 100 : i64}, memplan.budget = 500 : i64} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  %b = memref.alloc(%n) : memref<?xf32>
  linalg.copy ins(%x : memref<?xf32>) outs(%a : memref<?xf32>)
  linalg.copy ins(%a : memref<?xf32>) outs(%b : memref<?xf32>)
  linalg.copy ins(%b : memref<?xf32>) outs(%out : memref<?xf32>)
  return
}
