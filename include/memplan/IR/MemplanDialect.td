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

    Discardable attributes: `memplan.lifetime` on an operation holds the
    lifetime of the buffer its result owns (an array, one entry per result,
    when the operation has several results; a `unit` entry for a result that
    owns no buffer), and on a function argument the lifetime of that argument;
    `memplan.budget = <bytes>` on a function records the byte budget its
    packed arena must respect; `memplan.remat = {...}` the rematerialization
    decisions for the plan report. Ops recomputed by `memplan.recompute`
    carry the location name `memplan.recompute`.
  }];
  let cppNamespace = "::mlir::memplan";
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The discardable attribute that holds a lifetime annotation.
    static ::llvm::StringRef getLifetimeAttrName() { return "memplan.lifetime"; }
    /// The discardable function attribute that records a byte budget.
    static ::llvm::StringRef getBudgetAttrName() { return "memplan.budget"; }
    /// The discardable function attribute that records remat decisions.
    static ::llvm::StringRef getRematAttrName() { return "memplan.remat"; }
    /// The discardable unit attribute that marks a function as host code:
    /// memplan neither plans its buffers nor offloads its ops to a device
    /// (the driver of a device program).
    static ::llvm::StringRef getHostAttrName() { return "memplan.host"; }
    /// The discardable string attribute that marks a function memplan left
    /// unplanned (per-function fallback), with the reason.
    static ::llvm::StringRef getUnplannedAttrName() {
      return "memplan.unplanned";
    }
    /// The discardable attribute that overrides an op's estimated compute
    /// cost for rematerialization (docs/CostModel.md): a finite,
    /// non-negative number.
    static ::llvm::StringRef getCostAttrName() { return "memplan.cost"; }
    /// The discardable argument attribute that names the symbols of a
    /// function with dynamic shapes: on a ranked shaped argument an array
    /// with one name per dimension ("" for the default name), on an index
    /// argument one name (docs/Lifetimes.md, "Symbolic sizes").
    static ::llvm::StringRef getSymbolsAttrName() { return "memplan.symbols"; }
    /// The discardable function attribute that bounds symbols:
    /// `{B = 64 : i64}`, inclusive, non-negative.
    static ::llvm::StringRef getBoundsAttrName() { return "memplan.bounds"; }
  }];
}

class Memplan_Op<string mnemonic, list<Trait> traits = []>
    : Op<Memplan_Dialect, mnemonic, traits>;

#endif // MEMPLAN_DIALECT
