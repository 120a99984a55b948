//===- MemplanOps.td - memplan operations ------------------*- tablegen -*-===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_OPS
#define MEMPLAN_OPS

include "memplan/IR/MemplanDialect.td"
include "memplan/IR/MemplanAttrs.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"

def Memplan_ArenaBuffer : MemRefRankOf<[I8], [1]>;

//===----------------------------------------------------------------------===//
// arena
//===----------------------------------------------------------------------===//

def Memplan_ArenaOp : Memplan_Op<"arena"> {
  let summary = "The one byte buffer that holds a function's planned buffers";
  let description = [{
    Allocates the arena of the enclosing function: `N` bytes, aligned to
    `alignment` bytes (a power of two). Every planned buffer of the function
    is a `memplan.view` (static offset) or a `memplan.dynamic_view` (offset
    computed at run time) into it. The arena lives from function entry to
    exit.

    ```mlir
    %arena = memplan.arena alignment(64) : memref<4096xi8>
    ```

    A function with dynamic shapes gets an arena whose size is computed at
    run time, at the function's entry, from the sizes of its arguments
    (docs/Packing.md, "Symbolic sizes"):

    ```mlir
    %arena = memplan.arena alignment(64) size(%bytes) : memref<?xi8>
    ```

    Verifier: the result is a `memref<Nxi8>` with the identity layout,
    either static with `N > 0` and no `size`, or dynamic with a `size`
    operand; `alignment` is a power of two.
  }];
  let arguments = (ins I64Attr:$alignment, Optional<Index>:$size);
  let results = (outs Res<Memplan_ArenaBuffer, "the arena",
                          [MemAlloc<DefaultResource>]>:$result);
  let assemblyFormat = [{
    `alignment` `(` $alignment `)` (`size` `(` $size^ `)`)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The arena's size in bytes; ShapedType::kDynamic when it is computed
    /// at run time.
    int64_t getSizeInBytes() { return getType().getDimSize(0); }
    /// Whether the size is computed at run time.
    bool isDynamic() { return getSize() != nullptr; }
  }];
}

//===----------------------------------------------------------------------===//
// view
//===----------------------------------------------------------------------===//

def Memplan_ViewOp : Memplan_Op<"view", [Pure]> {
  let summary = "A typed buffer at a static offset inside an arena";
  let description = [{
    A static-shaped memref with the identity layout, placed at
    `placement.offset` inside `arena` and reserving `placement.size` bytes.

    ```mlir
    %v = memplan.view %arena[<offset = 64, size = 64, alignment = 64>]
        : memref<4096xi8> to memref<8xf32>
    ```

    Verifier: the result has a static shape, the identity layout and an
    element type that MLIR's DataLayout can size; the offset is a multiple of the element's
    storage size (aligned for the element type); `placement.size` covers the
    result's bytes; when the arena's size is static, the reserved bytes lie
    inside it.
  }];
  let arguments = (ins Memplan_ArenaBuffer:$arena,
                       Memplan_PlacementAttr:$placement);
  let results = (outs AnyStaticShapeMemRef:$result);
  let assemblyFormat = [{
    $arena `[` $placement `]` attr-dict `:` type($arena) `to` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// dynamic_view
//===----------------------------------------------------------------------===//

def Memplan_DynamicViewOp : Memplan_Op<"dynamic_view", [Pure]> {
  let summary = "A typed buffer at a run-time offset inside an arena";
  let description = [{
    A memref with the identity layout, placed at byte `offset` inside
    `arena`; `sizes` are the result's dynamic dimensions, in order. The
    offset is computed at run time (by memplan-pack-arena, at the function's
    entry, from the sizes of the function's arguments) and is a multiple of
    `alignment`. How the plan guarantees that views live at the same time do
    not overlap is docs/Packing.md, "Symbolic sizes"; memplan-verify-plan
    checks it at sample sizes.

    ```mlir
    %v = memplan.dynamic_view %arena[%offset][%n] alignment(64)
        : memref<?xi8> to memref<?x768xf32>
    ```

    Verifier: the result has the identity layout and an element type that
    MLIR's DataLayout can size; there is one size per dynamic dimension;
    `alignment` is a power of two at least the element's storage size; the
    result is in the arena's memory space.
  }];
  let arguments = (ins Memplan_ArenaBuffer:$arena, Index:$offset,
                       Variadic<Index>:$sizes, I64Attr:$alignment);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = [{
    $arena `[` $offset `]` `[` $sizes `]` `alignment` `(` $alignment `)` attr-dict
    `:` type($arena) `to` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// checkpoint
//===----------------------------------------------------------------------===//

def Memplan_CheckpointOp : Memplan_Op<"checkpoint",
    [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "Keeps a tensor value for its later uses";
  let description = [{
    Marks `input` as kept (checkpointed): its buffer stays live until the last
    use of `result`, typically in the backward pass. The result is the same
    value; the op only states the decision, so that later passes and reports
    see it.

    ```mlir
    %kept = memplan.checkpoint %act : tensor<16x64xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// recompute
//===----------------------------------------------------------------------===//

def Memplan_RecomputeOp : Memplan_Op<"recompute", [
    IsolatedFromAbove, RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"::mlir::memplan::YieldOp">,
    DeclareOpInterfaceMethods<RegionBranchOpInterface,
                              ["getEntrySuccessorOperands"]>]> {
  let summary = "Recomputes values from kept inputs";
  let description = [{
    Runs its body once and yields the recomputed values. The body is isolated
    from above: everything it reads is an explicit input, forwarded to the
    block arguments in order, so analyses see exactly what the recomputation
    keeps alive.

    ```mlir
    %r = memplan.recompute(%kept, %w) : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> {
    ^bb0(%x: tensor<16x64xf32>, %y: tensor<64x64xf32>):
      ...
      memplan.yield %v : tensor<16x64xf32>
    }
    ```

    Verifier (RegionBranchOpInterface): the block arguments match the inputs
    in number and type; the yielded values match the results.
  }];
  let arguments = (ins Variadic<AnyType>:$inputs);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` `:` functional-type($inputs, $results) attr-dict-with-keyword $body
  }];
}

def Memplan_YieldOp : Memplan_Op<"yield", [
    Pure, ReturnLike, Terminator, HasParent<"RecomputeOp">]> {
  let summary = "Yields the recomputed values of a memplan.recompute";
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // MEMPLAN_OPS
