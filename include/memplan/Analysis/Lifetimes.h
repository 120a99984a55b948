//===- Lifetimes.h - Buffer lifetimes of a function -------------*- C++ -*-===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//
//
// The lifetime analysis numbers the steps of a function, finds the values
// that own storage (roots), follows aliases to them, and gives every root a
// half-open interval of steps during which its buffer is live. The semantics
// are those of docs/Lifetimes.md (and docs/Design.md):
//
//  * Steps: the ops of the body in program order, the first being step 0;
//    ops nested in the regions of control-flow ops (RegionBranchOpInterface:
//    scf.for/if/while, memplan.recompute, ...) are numbered in pre-order,
//    terminators included. Payload regions (linalg bodies) get no steps.
//  * A value defined at step d and last used at step u is live on [d, u+1); a
//    use inside a region op of a value defined outside it counts at the last
//    nested step of the outermost region op that contains the use but not the
//    definition. Arguments are live from step 0; returned values until the
//    return op's step + 1; an unused value on [d, d+1). memref.dealloc is not
//    a use.
//  * Aliases (views, casts, reshapes, destination-style results, values
//    forwarded through region branches) extend the lifetime of their root.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_ANALYSIS_LIFETIMES_H
#define MEMPLAN_ANALYSIS_LIFETIMES_H

#include "memplan/Planning/Interval.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir {
namespace memplan {

/// Where the storage of a root comes from.
enum class RootKind {
  /// A new buffer the function allocates (memref.alloc, tensor.empty, ...).
  /// Planned unless it is returned.
  Allocated,
  /// A buffer already placed in an arena (memplan.view). Counts like a
  /// planned buffer; its size is the bytes its placement reserves.
  Placed,
  /// A function argument: the caller's storage.
  Argument,
  /// Storage the arena does not hold: constants and globals, stack
  /// allocations, results of calls, the arena itself.
  External,
};

/// One root: a value that owns storage, with the lifetime of its buffer.
struct Root {
  Value value;
  RootKind kind = RootKind::External;
  /// Storage bytes of the value's type (for Placed: the reserved bytes);
  /// 0 when the size is known only at run time.
  uint64_t size = 0;
  /// A ranked shape with dynamic dimensions (FunctionLifetimes::analyze with
  /// allowDynamicShapes): the size is known only at run time.
  bool dynamicSize = false;
  Interval live;
  /// The buffer (or a value that may share it) reaches the function's return.
  bool returned = false;

  /// Whether the buffer belongs in the function's arena: allocated or placed
  /// internally and not handed to the caller.
  bool isPlanned() const {
    return (kind == RootKind::Allocated || kind == RootKind::Placed) &&
           !returned;
  }
};

/// The lifetimes of one function.
class FunctionLifetimes {
public:
  /// Analyses `func`. On input that cannot be analysed soundly (dynamic or
  /// unranked shapes, element types the data layout cannot size,
  /// multi-block regions inside control-flow ops, ops whose aliasing is
  /// unknown, buffers allocated in a loop and carried to the next iteration)
  /// emits a located error and fails. With `allowDynamicShapes`, ranked
  /// shapes with dynamic dimensions are analysed too: their roots have
  /// `dynamicSize` and size 0 (the planner sizes them symbolically).
  static FailureOr<FunctionLifetimes> analyze(FunctionOpInterface func,
                                              bool allowDynamicShapes = false);

  /// All roots (arguments first, then in program order).
  ArrayRef<Root> getRoots() const { return roots; }
  /// The number of steps of the function.
  int64_t getNumSteps() const { return numSteps; }
  /// The step of `op`, or -1 if it has none (payload ops, other functions).
  int64_t getStep(Operation *op) const { return steps.lookup(op) - 1; }
  /// The last step nested in `op` (its own step when it has no regions).
  int64_t getLastNestedStep(Operation *op) const;
  /// The root index of every tensor/memref value analysed; -1 for others.
  /// A value that may share the storage of several roots (a merge of
  /// region-branch values) maps to the first.
  int64_t getRootIndex(Value value) const;
  /// The roots that `value` may share storage with.
  SmallVector<const Root *> getRootsOf(Value value) const;
  /// The lower bound: the peak of planned bytes and its first step.
  LowerBound getPeak() const;

private:
  FunctionLifetimes() = default;

  SmallVector<Root> roots;
  /// Step + 1 of every stepped op (0 = no step).
  DenseMap<Operation *, int64_t> steps;
  DenseMap<Operation *, int64_t> lastNestedSteps;
  /// Class of each analysed value, and the roots of each class.
  DenseMap<Value, unsigned> classOf;
  SmallVector<SmallVector<unsigned, 1>> classRoots;
  int64_t numSteps = 0;

  friend class LifetimeBuilder;
};

/// The lifetimes of `func` for a pass that plans it, with the per-function
/// fallback. A function already marked `memplan.unplanned` gives
/// std::nullopt. When the analysis rejects `func`: with `strict` its errors
/// stand and the result is failure; otherwise the first error becomes a
/// warning at the same location ("memplan leaves @f unplanned: <why>", with
/// its notes), the function is marked `memplan.unplanned = "<why>"`, and the
/// result is std::nullopt (leave the function as it is).
FailureOr<std::optional<FunctionLifetimes>>
analyzeForPlanning(FunctionOpInterface func, bool strict,
                   bool allowDynamicShapes = false);

/// Runs `attempt`, which plans `func` or emits located errors and fails,
/// with the per-function fallback of analyzeForPlanning: true when it
/// succeeded; with `strict`, failure when it failed (its errors stand);
/// otherwise false when it failed, its first error turned into the warning
/// "memplan leaves @f unplanned: <why>" and `memplan.unplanned = "<why>"` on
/// the function. `attempt` must not have changed the IR when it fails.
FailureOr<bool>
attemptWithFallback(FunctionOpInterface func, bool strict,
                    llvm::function_ref<LogicalResult()> attempt);

/// Whether the callee of `call` certainly keeps no reference to the buffer
/// passed as its `argIndex`-th argument once it returns (so the caller may
/// place that buffer in its arena): a function defined in the module whose
/// argument, through views and casts, is only read, written or handed to
/// another such call (not returned, forwarded into or out of a region,
/// stored, freed, or given to an op of unknown aliasing), or one of MLIR's
/// runner-utility printers (`printMemref*`, which print and forget). Looks
/// through at most a few levels of calls (no recursion on the input).
bool calleeKeepsNoReference(CallOpInterface call, unsigned argIndex);

/// A function's name in reports, exported files and progress lines: its
/// symbol name, prefixed by the names of the nested modules holding it
/// ("outer::inner::f"; "_" for an unnamed one), so that same-named functions
/// at different levels stay apart. Top-level functions keep their name.
std::string qualifiedFunctionName(Operation *func);

/// "<op name> @ <file:line:col>": how reports and remat decisions name the
/// buffer an op creates (a recomputed op's `memplan.recompute` location name
/// is looked through, so it is named like the op it copies).
std::string describeOp(Operation *op);

/// The memref that `op` stores into memory as data (a `memref.store` or an
/// affine store whose value is itself a memref, as into a table of
/// buffers), or null. Such a buffer escapes what the lifetimes see: a later
/// load may read it after the function returns.
Value getMemRefStoredAsData(Operation *op);

/// The storage bytes of a static-shaped tensor or memref type; see
/// getStaticStorageBytes (sizes from `layout`). Emits an error at `loc` and
/// fails otherwise.
FailureOr<uint64_t> getCheckedStorageBytes(Location loc, Type type,
                                           const DataLayout &layout);

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_ANALYSIS_LIFETIMES_H
