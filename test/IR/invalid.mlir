// RUN: memplan-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{lifetime must be non-empty: start (3) must be less than end (3)}}
func.func @empty_lifetime() attributes {x = #memplan.lifetime<3, 3>} {
  return
}

// -----

// expected-error @+1 {{lifetime start must be non-negative, got -1}}
func.func @negative_lifetime() attributes {x = #memplan.lifetime<-1, 3>} {
  return
}

// -----

// expected-error @+1 {{placement alignment must be a power of two, got 48}}
func.func @bad_alignment() attributes {x = #memplan.placement<offset = 0, size = 8, alignment = 48>} {
  return
}

// -----

// expected-error @+1 {{placement offset 32 is not a multiple of its alignment 64}}
func.func @misaligned_placement() attributes {x = #memplan.placement<offset = 32, size = 8, alignment = 64>} {
  return
}

// -----

// expected-error @+1 {{placement size must be positive, got 0}}
func.func @empty_placement() attributes {x = #memplan.placement<offset = 0, size = 0, alignment = 1>} {
  return
}

// -----

func.func @arena_not_bytes() {
  // expected-error @+1 {{'memplan.arena' op result #0 must be 1D memref of 8-bit signless integer values}}
  %a = memplan.arena alignment(64) : memref<16xf32>
  return
}

// -----

func.func @arena_dynamic() {
  // expected-error @+1 {{arena must have a static, positive size (or a run-time `size` operand), got 'memref<?xi8>'}}
  %a = memplan.arena alignment(64) : memref<?xi8>
  return
}

// -----

func.func @arena_alignment() {
  // expected-error @+1 {{alignment must be a power of two, got 12}}
  %a = memplan.arena alignment(12) : memref<64xi8>
  return
}

// -----

func.func @view_outside_arena() {
  %a = memplan.arena alignment(64) : memref<128xi8>
  // expected-error @+1 {{placed bytes [64, 192) exceed the arena of 128 bytes}}
  %v = memplan.view %a[<offset = 64, size = 128, alignment = 64>] : memref<128xi8> to memref<32xf32>
  return
}

// -----

func.func @view_too_small() {
  %a = memplan.arena alignment(64) : memref<128xi8>
  // expected-error @+1 {{placement reserves 64 bytes but the view needs 128}}
  %v = memplan.view %a[<offset = 0, size = 64, alignment = 64>] : memref<128xi8> to memref<32xf32>
  return
}

// -----

func.func @view_misaligned_for_element() {
  %a = memplan.arena alignment(64) : memref<128xi8>
  // expected-error @+1 {{offset 2 is not aligned for element type 'f32' (4 bytes)}}
  %v = memplan.view %a[<offset = 2, size = 16, alignment = 2>] : memref<128xi8> to memref<4xf32>
  return
}

// -----

func.func @view_scalable_elements() {
  %a = memplan.arena alignment(64) : memref<128xi8>
  // expected-error @+1 {{element type 'vector<[4]xf32>' has no storage size}}
  %v = memplan.view %a[<offset = 0, size = 64, alignment = 64>] : memref<128xi8> to memref<4xvector<[4]xf32>>
  return
}

// -----

// index elements take 8 bytes in the default data layout: 4 need 32.
func.func @view_index_elements_too_small() {
  %a = memplan.arena alignment(64) : memref<128xi8>
  // expected-error @+1 {{placement reserves 16 bytes}}
  %v = memplan.view %a[<offset = 0, size = 16, alignment = 64>] : memref<128xi8> to memref<4xindex>
  return
}

// -----

func.func @view_strided() {
  %a = memplan.arena alignment(64) : memref<128xi8>
  // expected-error @+1 {{result must have the identity layout}}
  %v = memplan.view %a[<offset = 0, size = 64, alignment = 64>] : memref<128xi8> to memref<4xf32, strided<[2]>>
  return
}

// -----

func.func @view_dynamic(%a: memref<128xi8>) {
  // expected-error @+1 {{'memplan.view' op result #0 must be statically shaped memref of any type values}}
  %v = memplan.view %a[<offset = 0, size = 64, alignment = 64>] : memref<128xi8> to memref<?xf32>
  return
}

// -----

func.func @checkpoint_type_mismatch(%x: tensor<4xf32>) {
  // expected-error @+1 {{'memplan.checkpoint' op failed to verify that all of {input, result} have same type}}
  %k = "memplan.checkpoint"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @checkpoint_dynamic(%x: tensor<?xf32>) {
  // expected-error @+1 {{'memplan.checkpoint' op operand #0 must be statically shaped tensor of any type values}}
  %k = memplan.checkpoint %x : tensor<?xf32>
  return
}

// -----

func.func @recompute_arg_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{along control flow edge from parent to Region #0: region branch point has 1 operands, but region successor needs 0 inputs}}
  // expected-note @+1 {{region branch point}}
  %r = memplan.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
    %e = tensor.empty() : tensor<4xf32>
    memplan.yield %e : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @recompute_arg_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{successor operand type #0 'tensor<4xf32>' should match successor input type #0 'tensor<4xf16>'}}
  // expected-note @+1 {{region branch point}}
  %r = memplan.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf16>):
    %e = tensor.empty() : tensor<4xf32>
    memplan.yield %e : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @recompute_yield_types(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{successor operand type #0 'tensor<4xf16>' should match successor input type #0 'tensor<4xf32>'}}
  %r = memplan.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = tensor.empty() : tensor<4xf16>
    // expected-note @+1 {{region branch point}}
    memplan.yield %e : tensor<4xf16>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @recompute_isolated(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %r = memplan.recompute() : () -> tensor<4xf32> {
    // expected-error @+1 {{using value defined outside the region}}
    %y = linalg.exp ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) -> tensor<4xf32>
    memplan.yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @yield_outside_recompute() {
  // expected-error @+1 {{'memplan.yield' op expects parent op 'memplan.recompute'}}
  memplan.yield
}

// -----

// expected-error @+1 {{'memplan.lifetime' must be a #memplan.lifetime or an array of them}}
func.func @lifetime_wrong_kind() attributes {memplan.lifetime = 3 : i64} {
  return
}

// -----

func.func @lifetime_array_size() {
  // expected-error @+1 {{'memplan.lifetime' has 2 entries for 1 results}}
  %0 = memref.alloc() {memplan.lifetime = [#memplan.lifetime<0, 1>, unit]} : memref<4xf32>
  return
}

// -----

func.func @lifetime_array_entry() {
  // expected-error @+1 {{'memplan.lifetime' array entries must be #memplan.lifetime or unit}}
  %0 = memref.alloc() {memplan.lifetime = [5]} : memref<4xf32>
  return
}

// -----

// expected-error @+1 {{'memplan.lifetime' must be a #memplan.lifetime}}
func.func @lifetime_arg_array(%a: memref<4xf32> {memplan.lifetime = [#memplan.lifetime<0, 1>]}) {
  return
}

// -----

// expected-error @+1 {{unknown memplan attribute 'memplan.offset'}}
func.func @unknown_attribute() attributes {memplan.offset = 3} {
  return
}

// -----

func.func @view_other_memory_space() {
  %a = memplan.arena alignment(64) : memref<128xi8>
  // expected-error @+1 {{result memory space 1 differs from its arena's (default)}}
  %v = memplan.view %a[<offset = 0, size = 64, alignment = 64>] : memref<128xi8> to memref<16xf32, 1>
  return
}

// -----

func.func @negative_cost(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{'memplan.cost' must be a finite, non-negative number}}
  %y = linalg.exp {memplan.cost = -1.0 : f64} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @string_cost(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{'memplan.cost' must be a finite, non-negative number}}
  %y = linalg.exp {memplan.cost = "cheap"} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @static_arena_with_size(%n: index) {
  // expected-error @+1 {{an arena with a run-time size must have type memref<?xi8>, got 'memref<64xi8>'}}
  %arena = memplan.arena alignment(64) size(%n) : memref<64xi8>
  return
}

// -----

func.func @dynamic_view_sizes(%n: index) {
  %arena = memplan.arena alignment(64) size(%n) : memref<?xi8>
  // expected-error @+1 {{expected 2 sizes for 'memref<?x?xf32>', got 1}}
  %v = memplan.dynamic_view %arena[%n][%n] alignment(64) : memref<?xi8> to memref<?x?xf32>
  return
}

// -----

func.func @dynamic_view_alignment(%n: index) {
  %arena = memplan.arena alignment(64) size(%n) : memref<?xi8>
  // expected-error @+1 {{alignment must be a power of two of at least the element's 8 bytes, got 4}}
  %v = memplan.dynamic_view %arena[%n][%n] alignment(4) : memref<?xi8> to memref<?xf64>
  return
}

// -----

func.func @dynamic_view_space(%n: index) {
  %arena = memplan.arena alignment(64) size(%n) : memref<?xi8>
  // expected-error @+1 {{result memory space 1 differs from its arena's (default)}}
  %v = memplan.dynamic_view %arena[%n][%n] alignment(64) : memref<?xi8> to memref<?xf32, 1>
  return
}

// -----

func.func @dynamic_view_layout(%n: index) {
  %arena = memplan.arena alignment(64) size(%n) : memref<?xi8>
  // expected-error @+1 {{result must have the identity layout}}
  %v = memplan.dynamic_view %arena[%n][%n] alignment(64) : memref<?xi8> to memref<?xf32, strided<[2]>>
  return
}

// -----

// expected-error @+1 {{'memplan.symbols' of an index argument must be a string}}
func.func @index_symbol(%n: index {memplan.symbols = ["N"]}) {
  return
}

// -----

// expected-error @+1 {{'memplan.remat' must be a #memplan.remat on a function}}
func.func @remat_dictionary() attributes {memplan.remat = {budget_bytes = 3 : i64}} {
  return
}

// -----

// expected-error @+1 {{remat recompute_cost must be finite and non-negative, got -1}}
func.func @remat_negative_cost() attributes {memplan.remat = #memplan.remat<budget = 1, recompute_cost = -1.0, baseline_cost = 1.0, decisions = []>} {
  return
}

// -----

// expected-error @+1 {{remat decision bytes must be non-negative, got -4}}
func.func @remat_decision_bytes() attributes {memplan.remat = #memplan.remat<budget = 1, recompute_cost = 1.0, baseline_cost = 1.0, decisions = [#memplan.remat_decision<keep, "v", bytes = -4, cost = 1.0>]>} {
  return
}

// -----

// expected-error @+1 {{expected 'keep' or 'recompute', got 'drop'}}
func.func @remat_decision_kind() attributes {memplan.remat = #memplan.remat<budget = 1, recompute_cost = 1.0, baseline_cost = 1.0, decisions = [#memplan.remat_decision<drop, "v", bytes = 4, cost = 1.0>]>} {
  return
}

// -----

// expected-error @+1 {{expected #memplan.remat_decision}}
func.func @remat_decision_entry() attributes {memplan.remat = #memplan.remat<budget = 1, recompute_cost = 1.0, baseline_cost = 1.0, decisions = [#memplan.lifetime<0, 1>]>} {
  return
}

// -----

// expected-error @+1 {{'memplan.budget' must be a positive integer on a function}}
func.func @budget_zero() attributes {memplan.budget = 0 : i64} {
  return
}

// -----

func.func @budget_on_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{'memplan.budget' must be a positive integer on a function}}
  %y = linalg.exp {memplan.budget = 64 : i64} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// expected-error @+1 {{'memplan.budget' must be a positive integer on a function}}
func.func @budget_too_wide() attributes {memplan.budget = 18446744073709551617 : i128} {
  return
}

// -----

// expected-error @+1 {{'memplan.bounds' bound of 'B' must be a non-negative integer}}
func.func @bound_too_wide(%x: tensor<?xf32> {memplan.symbols = ["B"]}) attributes {memplan.bounds = {B = 18446744073709551617 : i128}} {
  return
}

// -----

// expected-error @+1 {{unknown memplan result attribute 'memplan.lifetime'}}
func.func @result_attribute(%x: memref<4xf32>) -> (memref<4xf32> {memplan.lifetime = #memplan.lifetime<0, 1>}) {
  return %x : memref<4xf32>
}
