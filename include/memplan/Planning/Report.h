//===- Report.h - Plan reports: JSON v1 and HTML ----------------*- C++ -*-===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//
//
// The plan report of docs/Interfaces.md (JSON, version 1) and a
// self-contained HTML picture of the same data.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_PLANNING_REPORT_H
#define MEMPLAN_PLANNING_REPORT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
namespace memplan {

struct ReportBuffer {
  int64_t id = 0;
  std::string name;
  /// Bytes occupied: the buffer's size rounded up to the alignment.
  uint64_t size = 0;
  uint64_t offset = 0;
  int64_t start = 0;
  int64_t end = 0;
  /// Recomputed by rematerialization (an extension of JSON v1).
  bool recomputed = false;
  /// The buffer's alignment in the packing (CSV export only).
  uint64_t alignment = 1;
  /// A function with dynamic shapes: the buffer's byte size over the
  /// function's symbols ("3072 * B * S"); `size` and `offset` are then the
  /// values at the representative point.
  std::string sizeExpr;
  /// The op that produces the buffer's contents ("linalg.matmul @
  /// file:line:col": the last of the writes that open its lifetime); empty
  /// when unknown.
  std::string producer;
  /// The producer's step (-1: unknown) and the steps of the ops that use
  /// the buffer (through views), ascending (HTML only).
  int64_t producerStep = -1;
  std::vector<int64_t> useSteps;
};

/// A function with dynamic shapes (docs/Packing.md, "Symbolic sizes").
struct ReportSymbol {
  std::string name;
  /// What it stands for: "dim 0 of argument 1", "argument 2".
  std::string source;
  std::optional<uint64_t> bound;
  /// Where a bound the IR implies comes from; empty for a given bound.
  std::string boundSource;
};
struct ReportPoint {
  /// "representative", "bounds" or "eval".
  std::string label;
  std::vector<std::pair<std::string, uint64_t>> values;
  /// The arena the plan gives at this point, and the peak live bytes.
  uint64_t arenaBytes = 0;
  uint64_t lowerBoundBytes = 0;
  /// What each way of planning gives here: tract's partitions, the ordered
  /// plan, and a static plan packed for exactly these sizes (0: not
  /// computed).
  uint64_t partitionsBytes = 0;
  uint64_t orderedBytes = 0;
  uint64_t staticBytes = 0;
};
struct SymbolicReport {
  /// "symbolic" (offsets computed at run time) or "bounded" (one static plan
  /// at the bounds).
  std::string mode;
  /// partitions, ordered or auto (symbolic mode).
  std::string algorithm;
  std::vector<ReportSymbol> symbols;
  /// The representative point first.
  std::vector<ReportPoint> points;
};

/// The `remat` section of a function's report.
struct RematDecision {
  std::string value;
  bool recompute = false;
  uint64_t bytes = 0;
  double cost = 0;
};
struct RematReport {
  uint64_t budgetBytes = 0;
  double recomputeCost = 0;
  double baselineCost = 0;
  std::vector<RematDecision> decisions;
};

struct ReportFunction {
  std::string name;
  uint64_t arenaBytes = 0;
  uint64_t lowerBoundBytes = 0;
  /// No smaller arena exists (PackResult::provenLowerBound); written to the
  /// JSON only when above lowerBoundBytes.
  uint64_t provenLowerBoundBytes = 0;
  uint64_t alignment = 1;
  std::string algorithm;
  bool optimal = false;
  std::vector<ReportBuffer> buffers;
  /// The arena's memory space as MLIR prints it; empty for the default space
  /// (a function has one arena per memory space, each its own entry).
  std::string memorySpace;
  /// Why the function was left unplanned (per-function fallback); empty when
  /// it was planned. An unplanned function has no arena and no buffers.
  std::string unplannedReason;
  /// Present when rematerialization ran.
  std::optional<RematReport> remat;
  /// Present for a function with dynamic shapes; arenaBytes,
  /// lowerBoundBytes and the buffers are then those at the representative
  /// point (symbolic mode) or at the bounds (bounded mode).
  std::optional<SymbolicReport> symbolic;
  /// Buffers the function allocates that stay on the heap, with why (a call
  /// that may keep them, a layout, ...): (name, reason).
  std::vector<std::pair<std::string, std::string>> heapBuffers;
  /// The op at each step ("op @ file:line:col"), indexed by step; empty when
  /// not collected (HTML only).
  std::vector<std::string> stepOps;
};

/// Writes the JSON v1 report.
llvm::Error writeJsonReport(llvm::StringRef path,
                            llvm::ArrayRef<ReportFunction> functions);

/// Writes each planned arena's buffers as a packing instance in MiniMalloc's
/// CSV format plus memplan's alignment column
/// (`id,lower,upper,size,alignment`; size = the bytes the buffer occupies,
/// lifetime [lower, upper) in steps), for memplan-pack or MiniMalloc. With
/// one arena in `functions`, to `path`; with several, one file per arena,
/// named by inserting `.<function>` (and `.space<S>` for a non-default memory
/// space) before the extension of `path`. Unplanned functions and arenas
/// without buffers are skipped.
llvm::Error writeCsvTraces(llvm::StringRef path,
                           llvm::ArrayRef<ReportFunction> functions);

/// "Why does this step need N bytes?" in a few lines per arena: the arena
/// against the lower bound, the peak step, the largest buffers live there
/// (with the ops and source locations that create them) and their share of
/// the peak, and what a budget made memplan recompute, at what cost. Sizes
/// in human units. Written to `os`.
void writeExplanation(llvm::raw_ostream &os,
                      llvm::ArrayRef<ReportFunction> functions,
                      unsigned maxBuffers = 5);

/// Bytes in human units: "512 B", "1.50 KiB", "12.12 GiB".
std::string formatBytes(uint64_t bytes);

/// Writes one self-contained HTML page (no network, no library): per arena,
/// its summary in human units, then a picture drawn by the page's script: a
/// rectangle per buffer (x = steps, y = offset; recomputed and kept
/// (checkpoint) buffers in their own colours) over the live bytes, with
/// axis scales, the lower-bound line and the arena top; zoom, pan, hover
/// details (producer op and location, sizes, lifetime, remat reason, the op
/// at each step), a selected buffer's producer and use steps marked, and a
/// sortable table of the buffers. docs/Interfaces.md describes the page.
llvm::Error writeHtmlReport(llvm::StringRef path,
                            llvm::ArrayRef<ReportFunction> functions);

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_PLANNING_REPORT_H
