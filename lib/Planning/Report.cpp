//===- Report.cpp - Plan reports: JSON v1, CSV traces, explanations -------===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/Report.h"
#include "ReportInternal.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iterator>

using namespace mlir::memplan;
using llvm::json::Array;
using llvm::json::Object;
using mlir::memplan::detail::openOutput;

llvm::Expected<std::unique_ptr<llvm::raw_fd_ostream>>
mlir::memplan::detail::openOutput(llvm::StringRef path) {
  std::error_code ec;
  auto os =
      std::make_unique<llvm::raw_fd_ostream>(path, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return llvm::createStringError(ec, "cannot write '%s': %s",
                                   path.str().c_str(), ec.message().c_str());
  return os;
}

llvm::Error
mlir::memplan::writeJsonReport(llvm::StringRef path,
                               llvm::ArrayRef<ReportFunction> functions) {
  Array functionsJson;
  for (const ReportFunction &f : functions) {
    Array buffers;
    for (const ReportBuffer &b : f.buffers) {
      Object buffer{{"id", b.id},
                    {"name", b.name},
                    {"size", static_cast<int64_t>(b.size)},
                    {"offset", static_cast<int64_t>(b.offset)},
                    {"start", b.start},
                    {"end", b.end}};
      if (b.recomputed)
        buffer["recomputed"] = true;
      if (!b.sizeExpr.empty())
        buffer["size_expr"] = b.sizeExpr;
      if (!b.producer.empty())
        buffer["producer"] = b.producer;
      buffers.push_back(std::move(buffer));
    }

    Object function{
        {"name", f.name},
        {"arena_bytes", static_cast<int64_t>(f.arenaBytes)},
        {"lower_bound_bytes", static_cast<int64_t>(f.lowerBoundBytes)},
        {"alignment", static_cast<int64_t>(f.alignment)},
        {"algorithm", f.algorithm},
        {"optimal", f.optimal},
        {"buffers", std::move(buffers)}};
    if (f.provenLowerBoundBytes > f.lowerBoundBytes)
      function["proven_lower_bound_bytes"] =
          static_cast<int64_t>(f.provenLowerBoundBytes);
    if (!f.memorySpace.empty())
      function["memory_space"] = f.memorySpace;
    if (!f.unplannedReason.empty())
      function["unplanned"] = f.unplannedReason;
    if (!f.heapBuffers.empty()) {
      Array heap;
      for (const auto &[name, reason] : f.heapBuffers)
        heap.push_back(Object{{"name", name}, {"reason", reason}});
      function["heap_buffers"] = std::move(heap);
    }
    if (f.remat) {
      Array decisions;
      for (const RematDecision &d : f.remat->decisions)
        decisions.push_back(
            Object{{"value", d.value},
                   {"decision", d.recompute ? "recompute" : "keep"},
                   {"bytes", static_cast<int64_t>(d.bytes)},
                   {"cost", d.cost}});
      function["remat"] =
          Object{{"budget_bytes", static_cast<int64_t>(f.remat->budgetBytes)},
                 {"recompute_cost", f.remat->recomputeCost},
                 {"baseline_cost", f.remat->baselineCost},
                 {"decisions", std::move(decisions)}};
    }
    if (f.symbolic) {
      Array symbols, points;
      for (const ReportSymbol &sym : f.symbolic->symbols) {
        Object symbol{{"name", sym.name}, {"source", sym.source}};
        if (sym.bound)
          symbol["bound"] = static_cast<int64_t>(*sym.bound);
        if (!sym.boundSource.empty())
          symbol["bound_source"] = sym.boundSource;
        symbols.push_back(std::move(symbol));
      }
      for (const ReportPoint &p : f.symbolic->points) {
        Object values;
        for (const auto &[name, value] : p.values)
          values[name] = static_cast<int64_t>(value);
        Object point{
            {"label", p.label},
            {"values", std::move(values)},
            {"arena_bytes", static_cast<int64_t>(p.arenaBytes)},
            {"lower_bound_bytes", static_cast<int64_t>(p.lowerBoundBytes)}};
        auto add = [&](const char *key, uint64_t bytes) {
          if (bytes)
            point[key] = static_cast<int64_t>(bytes);
        };
        add("partitions_bytes", p.partitionsBytes);
        add("ordered_bytes", p.orderedBytes);
        add("static_bytes", p.staticBytes);
        points.push_back(std::move(point));
      }
      function["symbolic"] = Object{{"mode", f.symbolic->mode},
                                    {"algorithm", f.symbolic->algorithm},
                                    {"symbols", std::move(symbols)},
                                    {"points", std::move(points)}};
    }
    functionsJson.push_back(std::move(function));
  }
  llvm::json::Value root =
      Object{{"version", 1}, {"functions", std::move(functionsJson)}};
  auto os = openOutput(path);
  if (!os)
    return os.takeError();
  **os << llvm::formatv("{0:2}", root) << "\n";
  return llvm::Error::success();
}

llvm::Error
mlir::memplan::writeCsvTraces(llvm::StringRef path,
                              llvm::ArrayRef<ReportFunction> functions) {
  std::vector<const ReportFunction *> arenas;
  for (const ReportFunction &f : functions)
    if (f.unplannedReason.empty() && !f.buffers.empty())
      arenas.push_back(&f);
  llvm::StringRef extension = llvm::sys::path::extension(path);
  llvm::StringRef stem = path.drop_back(extension.size());
  for (const ReportFunction *f : arenas) {
    std::string file = path.str();
    if (arenas.size() > 1) {
      std::string space;
      for (char c : f->memorySpace)
        space += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      file = (stem + "." + f->name +
              (space.empty() ? std::string() : ".space" + space) + extension)
                 .str();
    }
    auto os = openOutput(file);
    if (!os)
      return os.takeError();
    **os << "id,lower,upper,size,alignment\n";
    for (const ReportBuffer &b : f->buffers)
      **os << b.id << "," << b.start << "," << b.end << "," << b.size << ","
           << b.alignment << "\n";
    (*os)->close();
    if ((*os)->has_error())
      return llvm::createStringError((*os)->error(), "cannot write '%s'",
                                     file.c_str());
  }
  return llvm::Error::success();
}

std::string mlir::memplan::formatBytes(uint64_t bytes) {
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024)
    return std::to_string(bytes) + " B";
  double value = static_cast<double>(bytes) / 1024;
  unsigned unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  return llvm::formatv("{0:F2} {1}", value, units[unit]).str();
}

void mlir::memplan::writeExplanation(llvm::raw_ostream &os,
                                     llvm::ArrayRef<ReportFunction> functions,
                                     unsigned maxBuffers) {
  for (const ReportFunction &f : functions) {
    std::string where =
        "@" + f.name +
        (f.memorySpace.empty() ? "" : " (memory space " + f.memorySpace + ")");
    if (!f.unplannedReason.empty()) {
      os << where << ": left unplanned: " << f.unplannedReason << "\n";
      continue;
    }
    auto heap = [&] {
      for (const auto &[name, reason] : f.heapBuffers)
        os << "  left on the heap: " << name << ": " << reason << "\n";
    };
    if (f.buffers.empty()) {
      if (!f.heapBuffers.empty()) {
        os << where << ": no arena\n";
        heap();
      }
      continue;
    }
    // The live bytes over time, from the packed sizes: the first step where
    // they peak.
    std::vector<std::pair<int64_t, int64_t>> events; // (step, +/-index)
    for (auto [i, b] : llvm::enumerate(f.buffers)) {
      events.push_back({b.start, static_cast<int64_t>(i) + 1});
      events.push_back({b.end, -static_cast<int64_t>(i) - 1});
    }
    // Ends before starts at equal steps (half-open lifetimes).
    llvm::sort(events, [](auto a, auto b) {
      return a.first != b.first ? a.first < b.first : a.second < b.second;
    });
    uint64_t live = 0, peak = 0;
    int64_t peakStep = 0;
    for (auto [step, signedIndex] : events) {
      const ReportBuffer &b = f.buffers[std::abs(signedIndex) - 1];
      if (signedIndex > 0) {
        live += b.size;
        if (live > peak) {
          peak = live;
          peakStep = step;
        }
      } else {
        live -= b.size;
      }
    }
    os << where << ": arena " << formatBytes(f.arenaBytes) << " for "
       << f.buffers.size() << " buffers; lower bound "
       << formatBytes(f.lowerBoundBytes) << " (live bytes at step " << peakStep
       << ")";
    if (f.lowerBoundBytes > 0 && f.arenaBytes > f.lowerBoundBytes)
      os << llvm::formatv(", fragmentation {0:F2}%",
                          100.0 * (f.arenaBytes - f.lowerBoundBytes) /
                              f.arenaBytes);
    if (!f.optimal && f.provenLowerBoundBytes > f.lowerBoundBytes)
      os << ", proven: no arena below " << formatBytes(f.provenLowerBoundBytes);
    os << (f.optimal ? ", proven minimal" : "") << "\n";
    if (f.symbolic) {
      // Sizes known at run time: name the point these figures are at, and
      // give every other point the report evaluated.
      auto describe = [](const ReportPoint &p) {
        std::string text;
        for (const auto &[name, value] : p.values)
          text +=
              (text.empty() ? "" : ",") + name + "=" + std::to_string(value);
        return text.empty() ? std::string("(no symbols)") : text;
      };
      os << "  sizes known at run time (" << f.symbolic->mode << " plan"
         << (f.symbolic->mode == "symbolic" ? ", " + f.symbolic->algorithm
                                            : std::string())
         << "); the figures above are at the "
         << f.symbolic->points.front().label << " point "
         << describe(f.symbolic->points.front()) << "\n";
      for (const ReportPoint &p :
           llvm::ArrayRef(f.symbolic->points).drop_front())
        os << "  at " << p.label << " " << describe(p) << ": arena "
           << formatBytes(p.arenaBytes) << ", lower bound "
           << formatBytes(p.lowerBoundBytes) << "\n";
    }
    std::vector<const ReportBuffer *> atPeak;
    for (const ReportBuffer &b : f.buffers)
      if (b.start <= peakStep && peakStep < b.end)
        atPeak.push_back(&b);
    llvm::stable_sort(atPeak, [](const ReportBuffer *a, const ReportBuffer *b) {
      return a->size > b->size;
    });
    os << "  live at step " << peakStep << ": " << atPeak.size()
       << " buffers; the largest:\n";
    for (const ReportBuffer *b : llvm::ArrayRef(atPeak).take_front(maxBuffers))
      os << llvm::formatv("    {0,10}  {1,5:F1}%  [{2}, {3})  {4}{5}\n",
                          formatBytes(b->size),
                          peak ? 100.0 * b->size / peak : 0.0, b->start, b->end,
                          b->producer.empty() ? b->name : b->producer,
                          b->recomputed ? " (recomputed)" : "");
    if (atPeak.size() > maxBuffers) {
      uint64_t rest = 0;
      for (const ReportBuffer *b :
           llvm::ArrayRef(atPeak).drop_front(maxBuffers))
        rest += b->size;
      os << "    " << formatBytes(rest) << " in " << atPeak.size() - maxBuffers
         << " more\n";
    }
    if (f.remat) {
      uint64_t dropped = 0;
      size_t count = 0;
      for (const RematDecision &d : f.remat->decisions)
        if (d.recompute) {
          dropped += d.bytes;
          ++count;
        }
      os << "  budget " << formatBytes(f.remat->budgetBytes) << ": " << count
         << " values recomputed (" << formatBytes(dropped)
         << " not kept), extra compute "
         << llvm::formatv("{0:E2}", f.remat->recomputeCost);
      if (f.remat->baselineCost > 0)
        os << llvm::formatv(" = {0:F1}% of the step's {1:E2}",
                            100.0 * f.remat->recomputeCost /
                                f.remat->baselineCost,
                            f.remat->baselineCost);
      os << "\n";
    }
    heap();
  }
}
