//===- memplan-pack.cpp - Pack buffers from a CSV file --------------------===//
//
// Part of memplan. A MiniMalloc-compatible packer over the Planning library:
//
//   memplan-pack --input F.csv [--output G.csv] [--algorithm=...]
//                [--work-limit=W] [--time-limit=S] [--capacity=B] [--validate]
//
// Input: a header with `id,lower,upper,size` and optionally `alignment`
// (MiniMalloc's `hint`, `gaps` and `offset` columns are read and ignored);
// each buffer lives on [lower, upper). The older `id,start,end,size` header
// has an inclusive end and is read as [start, end + 1), as MiniMalloc reads
// it. Output: the input columns plus `offset`. One summary line on stdout.
// Exit codes: 0 planned, 1 does not fit --capacity, 2 bad input (or an
// output that cannot be written), 3 an invalid plan caught by --validate.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/Limits.h"
#include "memplan/Planning/Packing.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <string>
#include <vector>

using namespace llvm;
using namespace mlir::memplan;

static cl::OptionCategory category("memplan-pack options");
static cl::opt<std::string> inputPath("input", cl::desc("Input CSV file"),
                                      cl::value_desc("file"), cl::Required,
                                      cl::cat(category));
static cl::opt<std::string>
    outputPath("output",
               cl::desc("Write the input rows plus an `offset` column here"),
               cl::value_desc("file"), cl::cat(category));
static cl::opt<PackAlgorithm> algorithm("algorithm",
                                        cl::desc("Packing algorithm"),
                                        cl::init(PackAlgorithm::Best),
                                        packAlgorithmValues(),
                                        cl::cat(category));
// cl::desc keeps a StringRef: the text must outlive the option.
static const std::string workLimitHelp =
    "Bound of best and exact, in work units (default " +
    std::to_string(kDefaultPackWork) +
    ", about 1 s; 0: none, only with --time-limit). The same input and "
    "options give the same plan on any machine. Each segment's first packing "
    "(the peak split, O(n log n)) "
    "is made whatever the bound, and counted";
static cl::opt<uint64_t> workLimit("work-limit", cl::desc(workLimitHelp),
                                   cl::init(kDefaultPackWork),
                                   cl::cat(category));
static cl::opt<double> timeLimit(
    "time-limit",
    cl::desc("Also stop best and exact after this many seconds (default: no "
             "wall-clock bound). The plan then depends on the machine's "
             "speed; with --work-limit=0 only the clock bounds the search"),
    cl::value_desc("seconds"), cl::cat(category));
static cl::opt<std::string> capacityText(
    "capacity",
    cl::desc("Decision mode: succeed when everything fits in this many bytes, "
             "exit 1 otherwise (at once, with no search, below the lower "
             "bound or the aligned bound: the arena then reported is the "
             "start-order sweep's)"),
    cl::value_desc("bytes"), cl::cat(category));
static cl::opt<bool> repair(
    "repair",
    cl::desc("best, and exact where its search problem cannot be built: on "
             "a segment too large for the exact search, after the random "
             "greedy orders, the squeaky wheel and the band search, repair "
             "the packing around its top with the work left (default true; "
             "--repair=false shows what it buys)"),
    cl::init(true), cl::cat(category));
static cl::opt<bool> squeakyWheel(
    "squeaky-wheel",
    cl::desc("best, and exact where its search problem cannot be built: first "
             "fit in orders that move the buffers ending above the lower "
             "bound earlier each pass, on a segment too large for the exact "
             "search after the random orders; best also on a segment of "
             "129-4096 buffers after a failed exact search (which gets 30 % "
             "of the work left there, 70 % with this and --band-search "
             "both off; with --capacity 50 %, all of it with both off) "
             "(default true; "
             "--squeaky-wheel=false shows what it buys)"),
    cl::init(true), cl::cat(category));
static cl::opt<bool> bandSearch(
    "band-search",
    cl::desc("best, and exact where its search problem cannot be built: take "
             "out the buffers at the top of the packing and pack them again "
             "with the exact search, above the buffers left in place, after "
             "the squeaky wheel, on a segment too large for the exact search; "
             "best also on a segment of 129-4096 buffers after a failed "
             "exact search (default true; "
             "--band-search=false shows what it buys)"),
    cl::init(true), cl::cat(category));
static cl::opt<bool> seededFit(
    "seeded-fit",
    cl::desc("best and exact, among the rules, on a segment of more than "
             "1024 buffers: pack its 256, 512, 1024, 2048 largest buffers "
             "(fewer than the segment's) with the exact search at the lower "
             "bound, the aligned bound or the capacity (while it packs them), "
             "then place every other buffer around them by first fit; kept "
             "where lower (default true; --seeded-fit=false shows what it "
             "buys)"),
    cl::init(true), cl::cat(category));
static cl::opt<bool> coalesce(
    "coalesce",
    cl::desc("best: where the rules leave segments above the lower bound "
             "(with --capacity, above the capacity), also pack their buffers "
             "merged into "
             "composites (buffers with the same lifetime stacked, a buffer "
             "and one of its size that starts when it ends at one offset): "
             "the search on the buffers gets half of the work left (30 % "
             "where one of those segments has more than 65536 buffers and "
             "--seeded-fit is on), the composites the rest (with --capacity "
             "only where the buffers neither fit nor are proven not to), "
             "and each segment keeps the lower of its two packings; the "
             "buffers' own search then has less work, so a trace may end "
             "higher, or a proof of --capacity may need a larger "
             "--work-limit (default true; --coalesce=false shows what it "
             "buys)"),
    cl::init(true), cl::cat(category));
static cl::opt<bool>
    quiet("quiet",
          cl::desc("No progress lines (best and exact print one to stderr at "
                   "most once a second, and one at the end, when stderr is a "
                   "terminal)"),
          cl::cat(category));
static cl::opt<bool> validate("validate",
                              cl::desc("Re-check the plan before writing it"),
                              cl::cat(category));

namespace {
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<unsigned> lines; // source line of each row
  std::vector<PackItem> items;
  int offsetColumn = -1; // an input `offset` column, dropped on output
};

[[noreturn]] void fail(const Twine &message) {
  errs() << "memplan-pack: error: " << message << "\n";
  exit(2);
}

SmallVector<StringRef> splitRow(StringRef line) {
  SmallVector<StringRef> cells;
  line.split(cells, ',');
  for (StringRef &cell : cells)
    cell = cell.trim();
  return cells;
}

Table readTable(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> file =
      MemoryBuffer::getFileOrSTDIN(path);
  if (!file)
    fail("cannot read '" + path + "': " + file.getError().message());
  Table table;
  // A UTF-8 byte order mark is not part of the first column's name; lines
  // end with \n (a \r before it is trimmed), or, in a file with no \n at
  // all, with \r (old Mac files).
  StringRef text = (*file)->getBuffer();
  if (text.starts_with("\xEF\xBB\xBF"))
    text = text.drop_front(3);
  SmallVector<StringRef> lines;
  text.split(lines, text.contains('\n') ? '\n' : '\r');
  int id = -1, lower = -1, upper = -1, size = -1, alignment = -1;
  bool inclusiveEnd = false;
  // The header's names for the two ends of a lifetime, for messages.
  const char *lowerName = "lower", *upperName = "upper";
  StringSet<> seen, columns;
  bool haveHeader = false;
  uint64_t total = 0; // aligned sum of sizes: bounds every packing
  for (auto [index, rawLine] : llvm::enumerate(lines)) {
    unsigned lineNo = index + 1;
    StringRef line = rawLine.trim();
    if (line.empty())
      continue;
    SmallVector<StringRef> cells = splitRow(line);
    if (!haveHeader) {
      haveHeader = true;
      for (auto [col, name] : llvm::enumerate(cells)) {
        table.header.push_back(name.str());
        int c = col;
        if (!name.empty() && !columns.insert(name).second)
          fail(path + ":" + Twine(lineNo) + ": column '" + name +
               "' appears twice");
        if (name == "id")
          id = c;
        else if (name == "lower")
          lower = c;
        else if (name == "upper")
          upper = c;
        else if (name == "start")
          lower = c;
        else if (name == "end") {
          upper = c;
          inclusiveEnd = true;
        } else if (name == "size")
          size = c;
        else if (name == "alignment")
          alignment = c;
        else if (name == "offset")
          table.offsetColumn = c;
        else if (name != "hint" && name != "gaps")
          fail(path + ":" + Twine(lineNo) + ": unknown column '" +
               yaml::escape(name, /*EscapePrintable=*/false) + "'" +
               (name.contains('\r') ? " (a carriage return inside a line: "
                                      "lines end in \\n or \\r\\n, or in \\r "
                                      "in a file with no \\n)"
                                    : ""));
      }
      // lower or start, upper or end: one of each pair (an `upper` and an
      // `end` were read as one inclusive end).
      for (auto [a, b] : {std::pair<StringRef, StringRef>{"lower", "start"},
                          {"upper", "end"}})
        if (columns.contains(a) && columns.contains(b))
          fail(path + ":" + Twine(lineNo) + ": columns '" + a + "' and '" + b +
               "' both give the lifetime's " + b + ": give one");
      lowerName = columns.contains("start") ? "start" : "lower";
      upperName = inclusiveEnd ? "end" : "upper";
      struct Required {
        const char *name;
        int column;
        const char *instead;
      };
      for (Required r : {Required{"id", id, ""},
                         {"lower", lower, " (or 'start')"},
                         {"upper", upper, " (or 'end', an inclusive end)"},
                         {"size", size, ""}})
        if (r.column < 0)
          fail(path + ":" + Twine(lineNo) + ": missing column '" + r.name +
               "'" + r.instead +
               " (expected a header id,lower,upper,size[,alignment])");
      continue;
    }
    if (cells.size() != table.header.size())
      fail(path + ":" + Twine(lineNo) + ": expected " +
           Twine(table.header.size()) + " values, got " + Twine(cells.size()));
    auto number = [&](int col, StringRef what) -> int64_t {
      int64_t value;
      if (cells[col].getAsInteger(10, value))
        fail(path + ":" + Twine(lineNo) + ": " + what + " '" + cells[col] +
             "' is not a 64-bit integer");
      return value;
    };
    if (cells[id].empty())
      fail(path + ":" + Twine(lineNo) + ": empty id");
    if (!seen.insert(cells[id]).second)
      fail(path + ":" + Twine(lineNo) + ": duplicate id '" + cells[id] + "'");
    PackItem item;
    item.live.start = number(lower, lowerName);
    int64_t end = number(upper, upperName);
    if (inclusiveEnd) {
      if (end == INT64_MAX)
        fail(path + ":" + Twine(lineNo) + ": end overflows 64 bits");
      ++end;
    }
    item.live.end = end;
    int64_t bytes = number(size, "size");
    if (item.live.start < 0)
      fail(path + ":" + Twine(lineNo) + ": " + lowerName +
           " must be non-negative");
    if (item.live.end <= item.live.start)
      fail(path + ":" + Twine(lineNo) + ": " + upperName + " (" +
           Twine(inclusiveEnd ? end - 1 : end) + ") must be " +
           (inclusiveEnd ? "at least" : "greater than") + " " + lowerName +
           " (" + Twine(item.live.start) + ")");
    if (bytes <= 0)
      fail(path + ":" + Twine(lineNo) + ": size must be positive, got " +
           Twine(bytes));
    item.size = bytes;
    if (alignment >= 0) {
      int64_t align = number(alignment, "alignment");
      if (align <= 0 || !isPowerOf2_64(align))
        fail(path + ":" + Twine(lineNo) +
             ": alignment must be a power of two, got " + Twine(align));
      item.alignment = align;
    }
    // Every packing fits below the aligned sum of sizes: kept below 2^62,
    // far from any wrap of an offset, an arena or a peak.
    uint64_t add = item.size + item.alignment;
    if (add < item.size || total + add < total ||
        total + add > (UINT64_MAX >> 2))
      fail(path + ":" + Twine(lineNo) +
           ": the sizes plus alignments of the buffers so far total 2^62 "
           "bytes or more (the most memplan-pack packs)");
    total += add;
    table.items.push_back(item);
    table.lines.push_back(lineNo);
    std::vector<std::string> row;
    for (StringRef cell : cells)
      row.push_back(cell.str());
    table.rows.push_back(std::move(row));
  }
  if (!haveHeader)
    fail(path + ": empty file (expected a header id,lower,upper,size)");
  return table;
}

/// Exits 2 naming `what` where `os` could not be written (the stream would
/// otherwise abort in its destructor, with a status that means something
/// else).
void failIfUnwritten(raw_fd_ostream &os, const Twine &what) {
  if (!os.has_error())
    return;
  std::string why = os.error().message();
  os.clear_error();
  fail("cannot write " + what + ": " + why);
}

void writeTable(StringRef path, const Table &table,
                const std::vector<uint64_t> &offsets) {
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_Text);
  if (ec)
    fail("cannot write '" + path + "': " + ec.message());
  auto emit = [&](const std::vector<std::string> &cells, StringRef last) {
    bool first = true;
    for (auto [col, cell] : llvm::enumerate(cells)) {
      if (static_cast<int>(col) == table.offsetColumn)
        continue;
      os << (first ? "" : ",") << cell;
      first = false;
    }
    os << "," << last << "\n";
  };
  emit(table.header, "offset");
  for (auto [row, offset] : llvm::zip(table.rows, offsets))
    emit(row, std::to_string(offset));
  // "-" is stdout, which the summary line still needs: flushed, not closed.
  if (path == "-")
    os.flush();
  else
    os.close();
  failIfUnwritten(os, "'" + path + "'");
}

/// The ratio arena / LB with 4 decimals, or, where those would read 1.0000
/// for an arena above LB, as many more as show the excess (from the excess
/// itself: arena / LB rounds to 1.0 in a double once LB passes 2^52).
std::string formatRatio(uint64_t arena, uint64_t lowerBound) {
  auto fixed = [](double value, int digits) {
    std::string text;
    raw_string_ostream(text) << format("%.*f", digits, value);
    return text;
  };
  double ratio = lowerBound ? double(arena) / double(lowerBound) : 1.0;
  std::string text = fixed(ratio, 4);
  if (arena <= lowerBound || text != "1.0000")
    return text;
  // Below 5e-5, so its digits after the point are the ratio's.
  double excess = double(arena - lowerBound) / double(lowerBound);
  for (int digits = 5; digits <= 24; ++digits) {
    std::string tail = fixed(excess, digits); // "0.000..."
    if (StringRef(tail).drop_front(2).find_first_not_of('0') != StringRef::npos)
      return "1" + tail.substr(1);
  }
  return text;
}
} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  // A malformed option is bad input (exit 2), not "does not fit" (1).
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "memplan-pack: pack buffers into one arena (MiniMalloc-compatible "
          "CSV)\n\n"
          "  Input (--input=- for stdin): id,lower,upper,size[,alignment]; "
          "each buffer lives on\n"
          "  [lower, upper) (a header id,start,end,size instead: on [start, "
          "end]; MiniMalloc's hint, gaps and offset columns are ignored). "
          "Prints one line:\n"
          "    arena=<B> lower_bound=<B> ratio=<arena/LB> optimal=yes|unknown "
          "time_ms=<ms> work=<units> proven_lower_bound=<B>\n"
          "  ratio: 4 decimals, more where 4 would read 1.0000 for an arena "
          "above lower_bound.\n"
          "  lower_bound: peak live bytes. optimal=yes only when proven "
          "(arena = a lower bound: the peak, or the aligned bound where "
          "alignment forces padding; or an exact search exhausted below "
          "it). proven_lower_bound: no smaller arena exists (the larger "
          "of those bounds, raised by every search that was exhausted "
          "below the arena); arena/proven_lower_bound is the proven "
          "gap.\n"
          "  Exit: 0 planned, 1 does not fit --capacity, 2 bad input or an "
          "output that cannot be written, 3 --validate found the plan "
          "invalid (an internal error).\n",
          &errs()))
    return 2;

  if (timeLimit.getNumOccurrences())
    if (std::optional<std::string> bad = checkTimeLimit(timeLimit))
      fail("--time-limit " + *bad);
  // An explicit --time-limit was checked above (0 included); the shared
  // check covers the work limit and the unbounded combination.
  if (std::optional<std::string> bad = checkSearchBounds(
          workLimit, timeLimit.getNumOccurrences() ? double(timeLimit) : 0.0,
          "--time-limit", "--work-limit"))
    fail(*bad);
  PackOptions options;
  options.algorithm = algorithm;
  options.workLimit = workLimit;
  options.timeLimitSeconds = timeLimit.getNumOccurrences() ? timeLimit : 0.0;
  options.repair = repair;
  options.squeakyWheel = squeakyWheel;
  options.bandSearch = bandSearch;
  options.seededFit = seededFit;
  options.coalesce = coalesce;
  if (capacityText.getNumOccurrences()) {
    uint64_t capacity;
    if (StringRef(capacityText).getAsInteger(10, capacity))
      fail("--capacity '" + capacityText + "' is not a byte count");
    options.capacity = capacity;
  }

  Table table = readTable(inputPath);
  auto begin = std::chrono::steady_clock::now();
  // Progress lines: only for a person watching (stderr a terminal), the
  // first as soon as the search has worked a little, then at most one a
  // second. The clock only decides when to print, never what is planned.
  std::optional<std::chrono::steady_clock::time_point> lastLine;
  if (!quiet && sys::Process::StandardErrIsDisplayed())
    options.progress = [&](const PackProgress &p) {
      auto now = std::chrono::steady_clock::now();
      if (!p.done && lastLine && now - *lastLine < std::chrono::seconds(1))
        return;
      lastLine = now;
      errs() << "memplan-pack: " << (p.done ? "done: " : "");
      if (p.arena)
        errs() << "arena " << p.arena << " ("
               << formatRatio(p.arena, p.lowerBound) << " x LB)";
      else
        errs() << "no arena yet";
      errs() << ", " << p.segmentsDecided << "/" << p.segments
             << " segments decided, work " << p.work;
      if (p.workLimit)
        errs() << " of " << p.workLimit;
      errs() << ", "
             << format("%.1f",
                       std::chrono::duration<double>(now - begin).count())
             << " s\n";
    };
  PackResult result = pack(table.items, options);
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - begin)
                  .count();
  if (validate) {
    if (std::optional<std::string> error =
            checkPacking(table.items, result.offsets, result.arena)) {
      errs() << "memplan-pack: internal error: invalid plan: " << *error
             << "\n";
      return 3;
    }
  }
  if (!outputPath.empty())
    writeTable(outputPath, table, result.offsets);
  outs() << "arena=" << result.arena << " lower_bound=" << result.lowerBound
         << " ratio=" << formatRatio(result.arena, result.lowerBound)
         << " optimal=" << (result.optimal ? "yes" : "unknown")
         << " time_ms=" << format("%.1f", ms) << " work=" << result.work
         << " proven_lower_bound=" << result.provenLowerBound << "\n";
  outs().flush();
  failIfUnwritten(outs(), "the summary to stdout");
  if (options.capacity && result.arena > *options.capacity) {
    errs() << "memplan-pack: does not fit in " << *options.capacity
           << " bytes: best arena found is " << result.arena << " bytes"
           << (result.provenInfeasible ? " (proven: no packing fits)" : "")
           << "\n";
    return 1;
  }
  return 0;
}
