//===- MemplanAttrs.td - memplan attributes ----------------*- tablegen -*-===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_ATTRS
#define MEMPLAN_ATTRS

include "memplan/IR/MemplanDialect.td"
include "mlir/IR/AttrTypeBase.td"

class Memplan_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Memplan_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Memplan_LifetimeAttr : Memplan_Attr<"Lifetime", "lifetime"> {
  let summary = "A half-open interval of program steps [start, end)";
  let description = [{
    The steps during which a buffer is live. Steps number the operations of a
    function body in program order (the first is step 0); operations nested in
    control-flow regions are numbered in pre-order. The interval is half-open:
    a buffer live on `[2, 5)` is live at steps 2, 3 and 4.

    ```mlir
    %0 = memref.alloc() {memplan.lifetime = #memplan.lifetime<0, 6>} : memref<8xf32>
    ```

    Verifier: `0 <= start < end`.
  }];
  let parameters = (ins "int64_t":$start, "int64_t":$end);
  let assemblyFormat = "`<` $start `,` $end `>`";
  let genVerifyDecl = 1;
}

def Memplan_PlacementAttr : Memplan_Attr<"Placement", "placement"> {
  let summary = "Where a placed buffer lives in its arena";
  let description = [{
    A placed buffer occupies the bytes `[offset, offset + size)` of its arena.
    `size` is the bytes it reserves (its storage rounded up to `alignment`);
    `offset` is a multiple of `alignment`, a power of two.

    ```mlir
    #memplan.placement<offset = 128, size = 64, alignment = 64>
    ```

    Verifier: `offset >= 0`, `size > 0`, `alignment` a power of two, `offset`
    a multiple of `alignment`.
  }];
  let parameters = (ins "int64_t":$offset, "int64_t":$size,
                        "int64_t":$alignment);
  let assemblyFormat =
      "`<` `offset` `=` $offset `,` `size` `=` $size `,` `alignment` `=` $alignment `>`";
  let genVerifyDecl = 1;
}

def Memplan_RematDecisionAttr
    : Memplan_Attr<"RematDecision", "remat_decision"> {
  let summary = "Whether a value the backward pass reads is kept or recomputed";
  let description = [{
    One decision of `--memplan-insert-remat`: the value (as the plan report
    names it), whether it is recomputed or kept, its bytes and the compute
    cost of producing it once.

    ```mlir
    #memplan.remat_decision<recompute, "linalg.generic at model.mlir:12:3", bytes = 4096, cost = 1024.0>
    ```

    Verifier: `bytes >= 0`; `cost` finite and non-negative.
  }];
  let parameters = (ins StringRefParameter<"the value">:$value,
                        "bool":$recompute, "int64_t":$bytes,
                        APFloatParameter<"compute cost">:$cost);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Memplan_RematAttr : Memplan_Attr<"Remat", "remat"> {
  let summary = "The rematerialization decisions of one function";
  let description = [{
    What `--memplan-insert-remat` decided for a function, read by the plan
    report: the budget, the compute cost the recomputations add, the cost of
    the step without them, and one `#memplan.remat_decision` per value the
    backward pass reads.

    ```mlir
    func.func @step(...) attributes {memplan.remat = #memplan.remat<
        budget = 65536, recompute_cost = 1024.0, baseline_cost = 9000.0,
        decisions = [#memplan.remat_decision<keep, "...", bytes = 4096, cost = 8.0>]>}
    ```

    Verifier: `budget >= 0`; both costs finite and non-negative.
  }];
  let parameters = (ins "int64_t":$budget,
                        APFloatParameter<"added cost">:$recomputeCost,
                        APFloatParameter<"baseline cost">:$baselineCost,
                        ArrayRefParameter<"RematDecisionAttr">:$decisions);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // MEMPLAN_ATTRS
