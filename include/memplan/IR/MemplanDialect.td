//===- MemplanDialect.td - The memplan dialect -------------*- tablegen -*-===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_DIALECT
#define MEMPLAN_DIALECT

include "mlir/IR/OpBase.td"

def Memplan_Dialect : Dialect {
  let name = "memplan";
  let summary = "Static memory planning: lifetimes, rematerialization, arenas";
  let description = [{
    The `memplan` dialect makes a memory plan ordinary, typed IR:

    * `#memplan.lifetime<start, end>` records when a buffer is live, as a
      half-open interval of program steps;
    * `#memplan.placement<...>` records where a placed buffer lives inside
      its arena;
    * `memplan.arena` is the single byte buffer that holds every planned
      buffer of a function, and `memplan.view` a typed buffer at a static
      offset inside it;
    * `memplan.checkpoint` and `memplan.recompute` express, at tensor level,
      which values are kept for their late uses and which are recomputed.

    Discardable attributes, each verified by the dialect:

    * `memplan.lifetime` on an operation holds the lifetime of the buffer its
      result owns (an array, one entry per result, when the operation has
      several results; a `unit` entry for a result that owns no buffer), and
      on a function argument the lifetime of that argument. It is a
      debugging aid written by `--memplan-annotate-lifetimes`: the planning
      passes recompute lifetimes on memrefs and never read it;
    * `memplan.budget = <bytes> : i64` on a function records the byte budget
      its packed arena must respect;
    * `memplan.remat = #memplan.remat<...>` on a function, the
      rematerialization decisions for the plan report;
    * `memplan.cost = <number>` on an op overrides its estimated compute
      cost for rematerialization;
    * `memplan.host` (unit) marks a function as host code, never planned;
    * `memplan.unplanned = "<why>"` marks a function memplan left unplanned;
    * `memplan.bounds = {S = <n> : i64, ...}` bounds a function's size
      symbols, and `memplan.symbols` on its arguments names them.

    Ops recomputed by `memplan.recompute` carry the location name
    `memplan.recompute`.
  }];
  let cppNamespace = "::mlir::memplan";
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  // One typed accessor per discardable attribute: `get<Name>AttrHelper()`
  // on the loaded dialect, or `<Name>AttrHelper::getNameStr()` for the name.
  // MemplanDialect::verifyOperationAttribute checks each (docs/Dialect.md).
  let discardableAttrs = (ins
    // On an op: the lifetime of the buffer its result owns, or an array
    // with one #memplan.lifetime or unit entry per result; on a function
    // argument: that argument's lifetime. Written by
    // --memplan-annotate-lifetimes as a debugging aid; no pass reads it
    // (pack-arena and verify-plan recompute lifetimes on memrefs).
    "::mlir::Attribute":$lifetime,
    // On a function: the byte budget its packed arena must respect.
    "::mlir::IntegerAttr":$budget,
    // On a function: the rematerialization decisions, for the plan report.
    "::mlir::memplan::RematAttr":$remat,
    // On an op: its compute cost for rematerialization, overriding the
    // estimate (docs/CostModel.md): a finite, non-negative number.
    "::mlir::Attribute":$cost,
    // On a function: host code, whose buffers memplan neither plans nor
    // offloads (the driver of a device program).
    "::mlir::UnitAttr":$host,
    // On a function: memplan left it unplanned (per-function fallback);
    // the value says why.
    "::mlir::StringAttr":$unplanned,
    // On a function: inclusive, non-negative bounds of its size symbols,
    // `{B = 64 : i64}`.
    "::mlir::DictionaryAttr":$bounds
  );
  let extraClassDeclaration = [{
    /// The discardable argument attribute that names the symbols of a
    /// function with dynamic shapes: on a ranked shaped argument an array
    /// with one name per dimension ("" for the default name), on an index
    /// argument one name (docs/Lifetimes.md, "Symbolic sizes").
    static ::llvm::StringRef getSymbolsAttrName() { return "memplan.symbols"; }
  }];
}

class Memplan_Op<string mnemonic, list<Trait> traits = []>
    : Op<Memplan_Dialect, mnemonic, traits>;

#endif // MEMPLAN_DIALECT
