//===- RematGraphIO.cpp - Remat graphs as node-link JSON ------------------===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/RematGraphIO.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

#include <cmath>
#include <optional>

using namespace llvm;
using namespace mlir::memplan;

json::Value mlir::memplan::rematGraphToJSON(const RematGraph &graph,
                                            StringRef function) {
  json::Array nodes, links;
  for (auto [k, node] : llvm::enumerate(graph.nodes)) {
    json::Object out{{"id", static_cast<int64_t>(k)},
                     {"backward", node.backward},
                     {"cost_cpu", node.cost},
                     {"cost_ram", static_cast<int64_t>(node.bytes)}};
    if (!node.name.empty())
      out["name"] = node.name;
    nodes.push_back(std::move(out));
    for (size_t in : node.inputs)
      links.push_back(json::Object{{"source", static_cast<int64_t>(in)},
                                   {"target", static_cast<int64_t>(k)}});
  }
  json::Object info;
  if (!function.empty())
    info["function"] = function;
  return json::Object{{"directed", true},
                      {"multigraph", false},
                      {"graph", std::move(info)},
                      {"nodes", std::move(nodes)},
                      {"links", std::move(links)}};
}

namespace {
/// The deepest nesting of arrays and objects a graph file may have (a
/// node-link graph needs 3: llvm::json's parser recurses once per level).
constexpr unsigned kMaxJsonNesting = 64;

/// The line:column of the first bracket nested deeper than kMaxJsonNesting,
/// found without recursion (strings and their escapes skipped).
static std::optional<std::pair<unsigned, unsigned>>
findDeepNesting(StringRef text) {
  unsigned depth = 0, line = 1, column = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
    }
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonNesting)
        return std::make_pair(line, column);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

} // namespace

std::variant<RematGraph, std::string>
mlir::memplan::parseRematGraphJSON(StringRef text, StringRef path) {
  auto fail =
      [](const Twine &message) -> std::variant<RematGraph, std::string> {
    return message.str();
  };
  if (auto deep = findDeepNesting(text))
    return fail(path + ":" + Twine(deep->first) + ":" + Twine(deep->second) +
                ": arrays and objects nested deeper than " +
                Twine(kMaxJsonNesting) + " levels");
  Expected<json::Value> parsed = json::parse(text);
  if (!parsed)
    return fail(path + ": not JSON: " + toString(parsed.takeError()));
  json::Object *root = parsed->getAsObject();
  if (!root)
    return fail(path + ": the top level must be an object");
  json::Array *nodes = root->getArray("nodes");
  if (!nodes)
    return fail(path + ": missing array 'nodes'");
  json::Array *links = root->getArray("links");
  if (!links)
    links = root->getArray("edges");
  if (!links)
    return fail(path + ": missing array 'links' (or 'edges')");

  std::vector<RematNode> read;
  for (auto [k, value] : llvm::enumerate(*nodes)) {
    json::Object *node = value.getAsObject();
    std::string where = (path + ": nodes[" + Twine(k) + "]").str();
    if (!node)
      return fail(where + " is not an object");
    std::optional<int64_t> id = node->getInteger("id");
    if (!id)
      return fail(where + ": missing integer 'id'");
    std::optional<double> cost = node->getNumber("cost_cpu");
    std::optional<double> ram = node->getNumber("cost_ram");
    if (!cost || !std::isfinite(*cost) || *cost < 0)
      return fail(where + " (id " + Twine(*id) +
                  "): 'cost_cpu' must be a non-negative number");
    if (!ram || !std::isfinite(*ram) || *ram < 0 || *ram > 9.0e18)
      return fail(where + " (id " + Twine(*id) +
                  "): 'cost_ram' must be a non-negative number of bytes");
    std::optional<bool> backward = node->getBoolean("backward");
    if (!backward)
      return fail(where + " (id " + Twine(*id) +
                  "): missing boolean 'backward'");
    RematNode n;
    n.id = *id;
    n.cost = *cost;
    // An integer is taken exactly (a double holds 2^53 at most); a
    // fraction is rounded up.
    std::optional<int64_t> exact = node->getInteger("cost_ram");
    n.bytes = exact ? uint64_t(*exact) : uint64_t(std::ceil(*ram));
    n.backward = *backward;
    if (std::optional<StringRef> name = node->getString("name"))
      n.name = name->str();
    read.push_back(std::move(n));
  }
  llvm::stable_sort(
      read, [](const RematNode &a, const RematNode &b) { return a.id < b.id; });
  // Ids are sorted: duplicates are neighbours, a lookup is a binary search
  // (every int64 is a valid id; a hash map would reserve some as keys).
  for (size_t i = 1; i < read.size(); ++i)
    if (read[i - 1].id == read[i].id)
      return fail(path + ": duplicate node id " + Twine(read[i].id));
  struct Index {
    const std::vector<RematNode> &nodes;
    std::optional<size_t> find(int64_t id) const {
      auto it = llvm::partition_point(
          nodes, [&](const RematNode &n) { return n.id < id; });
      if (it == nodes.end() || it->id != id)
        return std::nullopt;
      return size_t(it - nodes.begin());
    }
  } index{read};
  for (auto [k, value] : llvm::enumerate(*links)) {
    json::Object *link = value.getAsObject();
    std::string where = (path + ": links[" + Twine(k) + "]").str();
    std::optional<int64_t> source =
        link ? link->getInteger("source") : std::nullopt;
    std::optional<int64_t> target =
        link ? link->getInteger("target") : std::nullopt;
    if (!source || !target)
      return fail(where + ": needs integer 'source' and 'target'");
    std::optional<size_t> s = index.find(*source), t = index.find(*target);
    if (!s || !t)
      return fail(where + ": unknown node " + Twine(!s ? *source : *target));
    if (*source >= *target)
      return fail(where + ": source " + Twine(*source) +
                  " does not run before target " + Twine(*target) +
                  " (ids must be a topological order)");
    if (read[*s].backward && !read[*t].backward)
      return fail(where + ": a forward node (" + Twine(*target) +
                  ") reads a backward node (" + Twine(*source) + ")");
    read[*t].inputs.push_back(*s);
  }
  RematGraph graph;
  graph.nodes = std::move(read);
  if (std::optional<std::string> error = graph.validate())
    return fail(path + ": " + *error);
  return graph;
}
