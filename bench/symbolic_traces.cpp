//===- symbolic_traces.cpp - Dynamic-batch plans from two static traces ---===//
//
// Part of memplan's benchmarks (issue 16). The zoo emits only the MLP with a
// dynamic batch so far; for the other models this driver recovers each
// buffer's size as a function of the batch from two static traces of the
// same model (memplan-pack-arena's export-csv at batch B1 and B2, same
// buffers in the same order, same lifetimes): size(B) = a + c * B, exact
// when B1 and B2 make every size a multiple of its alignment. It then plans
// the symbolic buffers as memplan-pack-arena does (Planning/Symbolic.h) and
// prints, per batch size, arena / LB for tract's partitions, the ordered
// plan, what runs (the smaller), a static plan packed for exactly that
// size, and one static plan at the bound used for every size.
//
//   memplan-bench-symbolic-traces A.csv B1 B.csv B2 --bound=N --sizes=1,8,..
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/Packing.h"
#include "memplan/Planning/Symbolic.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace mlir::memplan;
namespace cl = llvm::cl;

static cl::list<std::string> positional(cl::Positional,
                                        cl::desc("A.csv B1 B.csv B2"));
static cl::opt<int64_t> bound("bound", cl::desc("The bound of the batch"),
                              cl::init(64));
static cl::list<int64_t> sizes("sizes", cl::desc("Batch sizes to evaluate"),
                               cl::CommaSeparated);
static cl::opt<uint64_t> workLimit("work-limit",
                                   cl::desc("Work bound of each packing"),
                                   cl::init(kDefaultPackWork));

namespace {
struct Row {
  int64_t start, end;
  uint64_t size, alignment;
};

[[noreturn]] void fail(const llvm::Twine &message) {
  llvm::errs() << "memplan-bench-symbolic-traces: " << message << "\n";
  exit(1);
}

std::vector<Row> readTrace(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    fail("cannot read " + path);
  std::vector<Row> rows;
  llvm::SmallVector<llvm::StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n', -1, false);
  for (llvm::StringRef line : llvm::ArrayRef(lines).drop_front()) {
    llvm::SmallVector<llvm::StringRef> f;
    line.trim().split(f, ',');
    Row r;
    if (f.size() != 5 || f[1].getAsInteger(10, r.start) ||
        f[2].getAsInteger(10, r.end) || f[3].getAsInteger(10, r.size) ||
        f[4].getAsInteger(10, r.alignment))
      fail("bad line in " + path + ": " + line);
    rows.push_back(r);
  }
  return rows;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "dynamic-batch plans from traces\n");
  if (positional.size() != 4)
    fail("expected A.csv B1 B.csv B2");
  int64_t b1 = std::stoll(positional[1]), b2 = std::stoll(positional[3]);
  std::vector<Row> t1 = readTrace(positional[0]), t2 = readTrace(positional[2]);
  if (t1.size() != t2.size() || b1 >= b2)
    fail("the traces differ in their buffers, or B1 >= B2");
  size_t n = t1.size();
  std::vector<SymbolicItem> items;
  std::vector<int64_t> constant(n), slope(n);
  for (size_t i = 0; i < n; ++i) {
    if (t1[i].start != t2[i].start || t1[i].end != t2[i].end ||
        t1[i].alignment != t2[i].alignment)
      fail("buffer " + llvm::Twine(i) + " differs in lifetime or alignment");
    int64_t d = int64_t(t2[i].size) - int64_t(t1[i].size);
    if (d < 0 || d % (b2 - b1) != 0)
      fail("buffer " + llvm::Twine(i) + " is not linear in the batch");
    slope[i] = d / (b2 - b1);
    constant[i] = int64_t(t1[i].size) - slope[i] * b1;
    if (constant[i] < 0)
      fail("buffer " + llvm::Twine(i) + " has a negative constant part");
    items.push_back({{t1[i].start, t1[i].end}, t1[i].alignment});
  }
  auto sizesAt = [&](int64_t b) {
    std::vector<uint64_t> s(n);
    for (size_t i = 0; i < n; ++i)
      s[i] = llvm::alignTo(uint64_t(constant[i] + slope[i] * b),
                           items[i].alignment);
    return s;
  };
  PackOptions options;
  options.workLimit = workLimit;
  auto packAt = [&](const std::vector<uint64_t> &s) {
    std::vector<PackItem> p;
    for (size_t i = 0; i < n; ++i)
      if (s[i])
        p.push_back({items[i].live, s[i], items[i].alignment});
    return std::make_pair(pack(p, options).arena, packLowerBound(p));
  };
  std::vector<uint64_t> rep = sizesAt(bound);
  SymbolicPlan partitions = planPartitions(items, rep);
  // As memplan-pack-arena: ordered plans packed at the bound and at 1/8 and
  // 1/64 of it; at run time the smallest arena of all plans.
  std::vector<SymbolicPlan> ordered;
  for (int64_t b : {bound.getValue(), std::max<int64_t>(1, bound / 8),
                    std::max<int64_t>(1, bound / 64)})
    ordered.push_back(planOrdered(items, sizesAt(b), options));
  if (checkSymbolicPlan(partitions, items))
    fail("internal error: a plan does not order every overlapping pair");
  for (const SymbolicPlan &plan : ordered)
    if (checkSymbolicPlan(plan, items))
      fail("internal error: a plan does not order every overlapping pair");
  uint64_t boundedArena = packAt(rep).first;
  size_t scaled = llvm::count_if(slope, [](int64_t c) { return c > 0; });
  llvm::outs() << n << " buffers (" << scaled
               << " scale with the batch), bound B=" << bound << "\n\n"
               << "| B | LB | partitions | ordered at the bound only | ordered "
                  "| auto (runs) | static at B | bounded at B="
               << bound << " |\n|---|---|---|---|---|---|---|---|\n";
  for (int64_t b : sizes) {
    std::vector<uint64_t> s = sizesAt(b);
    auto [staticArena, lb] = packAt(s);
    uint64_t part = evaluateSymbolicPlan(partitions, items, s)->arena;
    uint64_t first = evaluateSymbolicPlan(ordered.front(), items, s)->arena;
    uint64_t ord = first;
    for (const SymbolicPlan &plan : ordered)
      ord = std::min(ord, evaluateSymbolicPlan(plan, items, s)->arena);
    auto r = [&](uint64_t x) {
      char text[32];
      snprintf(text, sizeof(text), "%.4f", double(x) / double(lb));
      return std::string(text);
    };
    char mib[32];
    snprintf(mib, sizeof(mib), "%.2f MiB", double(lb) / (1 << 20));
    llvm::outs() << "| " << b << " | " << mib << " | " << r(part) << " | "
                 << r(first) << " | " << r(ord) << " | "
                 << r(std::min(part, ord)) << " | " << r(staticArena) << " | "
                 << (b <= bound ? r(boundedArena) : std::string("-")) << " |\n";
  }
  return 0;
}
