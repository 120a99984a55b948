//===- RematArena.h - The packed arena of a remat schedule -----*- C++ -*-===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//
//
// Predicts, without IR, the arena a remat schedule (Remat.h) will get once it
// is rewritten, bufferized and packed: each execution's output is one buffer
// of its node's bytes (aligned), live from its position in the schedule to
// the last execution that reads it (scheduleLastReads), and the buffers are
// packed by the packer the passes use (Packing.h). The budget search of
// --memplan-insert-remat measures on the IR only the plans whose predicted
// arena fits (docs/Remat.md).
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_PLANNING_REMATARENA_H
#define MEMPLAN_PLANNING_REMATARENA_H

#include "memplan/Planning/Packing.h"
#include "memplan/Planning/Remat.h"

#include <optional>
#include <vector>

namespace mlir {
namespace memplan {

/// The buffers of a valid schedule as pack items: one per execution of a
/// node with bytes (the caller's buffers have none), live over
/// [its position, its last read + 1), its size rounded up to `alignment`
/// (a power of two), aligned to it.
std::vector<PackItem> rematScheduleItems(const RematGraph &graph,
                                         llvm::ArrayRef<size_t> schedule,
                                         uint64_t alignment);

struct RematArenaPrediction {
  /// The packed arena, and the peak of live bytes no packing goes below.
  uint64_t arena = 0;
  uint64_t lowerBound = 0;
};

/// Packs rematScheduleItems with `options`; std::nullopt when
/// validatePackItems refuses the items (sizes totalling more than packing
/// allows, an alignment that is not a power of two).
std::optional<RematArenaPrediction>
predictRematArena(const RematGraph &graph, llvm::ArrayRef<size_t> schedule,
                  uint64_t alignment, const PackOptions &options);

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_PLANNING_REMATARENA_H
