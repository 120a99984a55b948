//===- RematArena.cpp - The packed arena of a remat schedule --------------===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/RematArena.h"

using namespace mlir::memplan;

std::vector<PackItem>
mlir::memplan::rematScheduleItems(const RematGraph &graph,
                                  llvm::ArrayRef<size_t> schedule,
                                  uint64_t alignment) {
  std::vector<size_t> lastRead = scheduleLastReads(graph, schedule);
  std::vector<PackItem> items;
  for (auto [pos, node] : llvm::enumerate(schedule)) {
    uint64_t bytes = graph.nodes[node].bytes;
    if (bytes == 0)
      continue;
    // A node's bytes are at most kMaxTotalBytes (RematGraph::validate) and
    // `alignment` a power of two below 2^63: rounding up cannot wrap.
    uint64_t size = (bytes + alignment - 1) & ~(alignment - 1);
    items.push_back({Interval{static_cast<int64_t>(pos),
                              static_cast<int64_t>(lastRead[pos]) + 1},
                     size, alignment});
  }
  return items;
}

std::optional<RematArenaPrediction> mlir::memplan::predictRematArena(
    const RematGraph &graph, llvm::ArrayRef<size_t> schedule,
    uint64_t alignment, const PackOptions &options) {
  std::vector<PackItem> items = rematScheduleItems(graph, schedule, alignment);
  if (validatePackItems(items))
    return std::nullopt;
  PackResult packed = pack(items, options);
  return RematArenaPrediction{packed.arena, packed.lowerBound};
}
