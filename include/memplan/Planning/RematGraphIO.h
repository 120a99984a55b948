//===- RematGraphIO.h - Remat graphs as node-link JSON ---------*- C++ -*-===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//
//
// The networkx node-link JSON of a RematGraph (the format of the graphs
// published with Checkmate and Moccasin): `nodes` with `id`, compute cost
// `cost_cpu`, output bytes `cost_ram`, a `backward` flag and an optional
// `name`; `links` (or `edges`) with `source` and `target`. Nodes run in
// increasing `id`, a topological order. --memplan-insert-remat writes it
// (`export-graph=`), memplan-remat reads it.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_PLANNING_REMATGRAPHIO_H
#define MEMPLAN_PLANNING_REMATGRAPHIO_H

#include "memplan/Planning/Remat.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <variant>

namespace mlir {
namespace memplan {

/// The graph as node-link JSON: node ids are the graph's indices, names the
/// nodes' names (left out when empty), and `graph.function` is `function`
/// when it is not empty.
llvm::json::Value rematGraphToJSON(const RematGraph &graph,
                                   llvm::StringRef function = "");

/// Parses a node-link graph from `text`; on bad input, the message (every
/// one starts with `name`, e.g. the file's path: `name: nodes[3] ...`, or
/// `name:LINE:COLUMN: ...` for nesting too deep to parse). Node ids may be
/// any integers in a topological order; the result's nodes are sorted by
/// id, inputs are indices. Checks what RematGraph::validate checks, plus:
/// ids unique, links between known nodes and forward in id, no forward
/// node reading a backward one, `cost_ram` a number of bytes below 9e18.
/// Never recurses deeper than a few levels (deeper input is refused before
/// parsing).
std::variant<RematGraph, std::string> parseRematGraphJSON(llvm::StringRef text,
                                                          llvm::StringRef name);

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_PLANNING_REMATGRAPHIO_H
