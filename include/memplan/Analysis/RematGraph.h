//===- RematGraph.h - The remat graph of a tensor-level function -*- C++
//-*-===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//
//
// Builds the IR-free RematGraph (Planning/Remat.h) of a straight-line,
// tensor-level function: one node per planned buffer (a root of the lifetime
// analysis) with the destination-style chain of ops that writes it (e.g.
// tensor.empty -> linalg.fill -> linalg.matmul). A node's cost is the sum of
// its chain's costs (docs/CostModel.md), its bytes the buffer's size (0 for
// buffers the caller owns), its inputs the buffers its chain reads. Forward
// nodes are the buffers the loss depends on — the loss is the function's
// first result — and every other node is backward.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_ANALYSIS_REMATGRAPH_H
#define MEMPLAN_ANALYSIS_REMATGRAPH_H

#include "memplan/Planning/Remat.h"

#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

namespace mlir {
namespace memplan {

/// The estimated cost of one op: the `memplan.cost` attribute when present;
/// for linalg ops, iterations x payload ops (at least one per iteration);
/// for copies (insert_slice, pad, concat), the elements written; 0 for
/// allocations, views and casts.
double estimateCost(Operation *op);

struct FunctionRematGraph {
  RematGraph graph;
  /// Per node: the ops of its chain in program order (the root first) and
  /// the value its chain ends with (what later ops read).
  std::vector<SmallVector<Operation *>> chains;
  std::vector<Value> finals;
  /// Per node: whether the caller owns the buffer (returned or an argument
  /// chain); such nodes are never recomputed.
  std::vector<uint8_t> external;
  /// Node of each op that belongs to a chain.
  llvm::DenseMap<Operation *, size_t> nodeOf;

  /// Builds the graph; emits a located error and fails on functions it
  /// cannot model (regions other than payloads, several blocks, a chain
  /// whose value is read before it is complete). A buffer of dynamic shape
  /// gets its size at the bounds of the function's symbols
  /// (`memplan.bounds`, then `extraBounds`): a budget applies at the bounds.
  /// A symbol without a bound, or a size that is no stated function of the
  /// symbols, is an error.
  static FailureOr<FunctionRematGraph>
  build(FunctionOpInterface func,
        const llvm::StringMap<uint64_t> &extraBounds = {});
  /// The first op that makes `func` other than straight-line code (an op
  /// with regions that branch among them, such as scf.if or scf.for), or
  /// null; `multiBlock` is set when its body has several blocks. build()
  /// refuses such functions.
  static Operation *findControlFlow(FunctionOpInterface func, bool &multiBlock);
};

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_ANALYSIS_REMATGRAPH_H
