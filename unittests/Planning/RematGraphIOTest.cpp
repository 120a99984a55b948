//===- RematGraphIOTest.cpp - Remat graphs as node-link JSON --------------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/RematGraphIO.h"
#include "RandomRematGraph.h"

#include "llvm/Support/FormatVariadic.h"
#include "gtest/gtest.h"

#include <random>
#include <string>

using namespace mlir::memplan;

namespace {

std::string print(const RematGraph &g, llvm::StringRef function = "") {
  return llvm::formatv("{0:2}", rematGraphToJSON(g, function)).str();
}

TEST(RematGraphIOTest, RoundTrip) {
  // What --memplan-insert-remat writes, memplan-remat reads back unchanged:
  // ids become indices, costs, bytes, flags, inputs and names survive.
  std::mt19937_64 rng(4);
  for (int iter = 0; iter < 200; ++iter) {
    RematGraph g = randomGraph(rng, 1 + iter % 20, 1000);
    for (auto [k, node] : llvm::enumerate(g.nodes)) {
      node.id = static_cast<int64_t>(k);
      if (k % 3 == 0)
        node.name = "op " + std::to_string(k);
      node.cost += 0.25; // not an integer
    }
    std::variant<RematGraph, std::string> back =
        parseRematGraphJSON(print(g, "f"), "g.json");
    ASSERT_TRUE(std::holds_alternative<RematGraph>(back))
        << std::get<std::string>(back);
    const RematGraph &r = std::get<RematGraph>(back);
    ASSERT_EQ(r.nodes.size(), g.nodes.size());
    for (auto [a, b] : llvm::zip(g.nodes, r.nodes)) {
      EXPECT_EQ(a.id, b.id);
      EXPECT_EQ(a.name, b.name);
      EXPECT_EQ(a.cost, b.cost);
      EXPECT_EQ(a.bytes, b.bytes);
      EXPECT_EQ(a.backward, b.backward);
      EXPECT_EQ(a.inputs, b.inputs);
    }
  }
}

TEST(RematGraphIOTest, LargeSizesAreExact) {
  // Bytes above 2^53 (a double's integers) are read exactly.
  RematGraph g;
  g.nodes.push_back({0, "", 1, (uint64_t(1) << 60) + 1, false, {}});
  g.nodes.push_back({1, "", 1, 3, true, {0}});
  std::variant<RematGraph, std::string> back =
      parseRematGraphJSON(print(g), "g.json");
  ASSERT_TRUE(std::holds_alternative<RematGraph>(back));
  EXPECT_EQ(std::get<RematGraph>(back).nodes[0].bytes, (uint64_t(1) << 60) + 1);
}

TEST(RematGraphIOTest, Rejections) {
  auto error = [](llvm::StringRef text) {
    std::variant<RematGraph, std::string> r =
        parseRematGraphJSON(text, "g.json");
    return std::holds_alternative<std::string>(r) ? std::get<std::string>(r)
                                                  : std::string("accepted");
  };
  EXPECT_EQ(error("[]"), "g.json: the top level must be an object");
  EXPECT_EQ(error(R"({"links": []})"), "g.json: missing array 'nodes'");
  EXPECT_EQ(error(R"({"nodes": [{"id": 0, "cost_cpu": 1, "cost_ram": 4,
                    "backward": false}, {"id": 1, "cost_cpu": 1,
                    "cost_ram": 4, "backward": true}],
                    "links": [{"source": 1, "target": 0}]})"),
            "g.json: links[0]: source 1 does not run before target 0 (ids "
            "must be a topological order)");
  std::string deep(100, '[');
  EXPECT_EQ(error(deep),
            "g.json:1:65: arrays and objects nested deeper than 64 levels");
}

} // namespace
