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

#endif // MEMPLAN_ATTRS
