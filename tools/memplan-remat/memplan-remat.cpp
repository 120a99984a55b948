//===- memplan-remat.cpp - Rematerialization on node-link graphs ----------===//
//
// Part of memplan. Reads a computation graph in networkx node-link JSON (the
// format of the graphs published with Checkmate and Moccasin): `nodes` with
// `id`, compute cost `cost_cpu`, output bytes `cost_ram`, a `backward` flag
// and an optional `name`; `links` (or `edges`) with `source` and `target`.
// Nodes run in increasing `id`, a topological order. Plans which forward
// outputs to recompute under the memory model of docs/Remat.md.
//
//   memplan-remat --input G.json [--budget=BYTES] [--policy=P] [--output
//   D.json]
//
// Prints one line:
//   cost=<C> baseline_cost=<B> overhead=<(C-B)/B> peak=<bytes>
//   budget=<bytes|none> optimal=yes|no|unknown time_ms=<ms>
// Exit: 0 planned; 1 the budget is infeasible (naming the smallest budget
// memplan reaches); 2 bad input.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/Chain.h"
#include "memplan/Planning/Remat.h"
#include "memplan/Planning/RematMILP.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>

using namespace llvm;
using namespace mlir::memplan;

static cl::OptionCategory category("memplan-remat options");
static cl::opt<std::string> inputPath("input",
                                      cl::desc("Graph (node-link JSON)"),
                                      cl::value_desc("file"), cl::Required,
                                      cl::cat(category));
static cl::opt<std::string>
    outputPath("output",
               cl::desc("Write the decisions ({id, decision} per node) here"),
               cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string>
    budgetText("budget",
               cl::desc("Most bytes the peak may reach (default: no budget)"),
               cl::value_desc("bytes"), cl::cat(category));
static cl::opt<std::string> policyName(
    "policy",
    cl::desc(
        "keep-all | recompute-all | every-n | cost-threshold | sqrt | "
        "budget | chain | optimal (default: budget with --budget, keep-all "
        "without)"),
    cl::cat(category));
static cl::opt<uint64_t>
    every("every", cl::desc("every-n: keep every N-th forward node"),
          cl::init(2), cl::cat(category));
static cl::opt<double>
    threshold("threshold",
              cl::desc("cost-threshold: keep forward nodes costing >= C"),
              cl::init(0), cl::cat(category));

static cl::opt<double> timeLimit(
    "time-limit",
    cl::desc("optimal: seconds the MILP solver may take (default 60); when "
             "it stops early the best schedule found is reported with "
             "optimal=no"),
    cl::init(60), cl::cat(category));

[[noreturn]] static void fail(const Twine &message) {
  errs() << "memplan-remat: error: " << message << "\n";
  exit(2);
}

static RematGraph readGraph(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> file =
      MemoryBuffer::getFileOrSTDIN(path);
  if (!file)
    fail("cannot read '" + path + "': " + file.getError().message());
  Expected<json::Value> parsed = json::parse((*file)->getBuffer());
  if (!parsed)
    fail(path + ": not JSON: " + toString(parsed.takeError()));
  json::Object *root = parsed->getAsObject();
  if (!root)
    fail(path + ": the top level must be an object");
  json::Array *nodes = root->getArray("nodes");
  if (!nodes)
    fail(path + ": missing array 'nodes'");
  json::Array *links = root->getArray("links");
  if (!links)
    links = root->getArray("edges");
  if (!links)
    fail(path + ": missing array 'links' (or 'edges')");

  std::vector<RematNode> read;
  for (auto [k, value] : llvm::enumerate(*nodes)) {
    json::Object *node = value.getAsObject();
    std::string where = (path + ": nodes[" + Twine(k) + "]").str();
    if (!node)
      fail(where + " is not an object");
    std::optional<int64_t> id = node->getInteger("id");
    if (!id)
      fail(where + ": missing integer 'id'");
    std::optional<double> cost = node->getNumber("cost_cpu");
    std::optional<double> ram = node->getNumber("cost_ram");
    if (!cost || !std::isfinite(*cost) || *cost < 0)
      fail(where + " (id " + Twine(*id) +
           "): 'cost_cpu' must be a non-negative number");
    if (!ram || !std::isfinite(*ram) || *ram < 0 || *ram > 9.0e18)
      fail(where + " (id " + Twine(*id) +
           "): 'cost_ram' must be a non-negative number of bytes");
    std::optional<bool> backward = node->getBoolean("backward");
    if (!backward)
      fail(where + " (id " + Twine(*id) + "): missing boolean 'backward'");
    RematNode n;
    n.id = *id;
    n.cost = *cost;
    n.bytes = uint64_t(std::ceil(*ram));
    n.backward = *backward;
    if (std::optional<StringRef> name = node->getString("name"))
      n.name = name->str();
    read.push_back(std::move(n));
  }
  llvm::stable_sort(
      read, [](const RematNode &a, const RematNode &b) { return a.id < b.id; });
  DenseMap<int64_t, size_t> index;
  for (auto [i, n] : llvm::enumerate(read))
    if (!index.try_emplace(n.id, i).second)
      fail(path + ": duplicate node id " + Twine(n.id));
  for (auto [k, value] : llvm::enumerate(*links)) {
    json::Object *link = value.getAsObject();
    std::string where = (path + ": links[" + Twine(k) + "]").str();
    std::optional<int64_t> source =
        link ? link->getInteger("source") : std::nullopt;
    std::optional<int64_t> target =
        link ? link->getInteger("target") : std::nullopt;
    if (!source || !target)
      fail(where + ": needs integer 'source' and 'target'");
    auto s = index.find(*source), t = index.find(*target);
    if (s == index.end() || t == index.end())
      fail(where + ": unknown node " +
           Twine(s == index.end() ? *source : *target));
    if (*source >= *target)
      fail(where + ": source " + Twine(*source) +
           " does not run before target " + Twine(*target) +
           " (ids must be a topological order)");
    if (read[s->second].backward && !read[t->second].backward)
      fail(where + ": a forward node (" + Twine(*target) +
           ") reads a backward node (" + Twine(*source) + ")");
    read[t->second].inputs.push_back(s->second);
  }
  RematGraph graph;
  graph.nodes = std::move(read);
  if (std::optional<std::string> error = graph.validate())
    fail(path + ": " + *error);
  return graph;
}

/// The `chain` policy: the forward nodes must form a chain f_0 -> ... ->
/// f_{N-1} (each reads the previous one and no other forward node) and the
/// backward nodes must come as reverse steps N-1 down to 0 (a backward node
/// belongs to the step of the last forward node it reads, or to its
/// predecessor's step when it reads none). The weighted chain DP (Chain.h)
/// plans states x_0 (the graph's input, no bytes) and x_k = f_{k-1}'s output;
/// its reversal becomes a schedule: Advance(k) runs f_k, Reverse(i) runs f_i
/// (unless its output is still at hand or step i does not read it), then
/// step i's backward nodes. The
/// DP's memory for stored states is searched for the cheapest schedule
/// whose peak fits the budget.
struct ChainOutcome {
  std::vector<size_t> schedule;
  RematCost result;
  uint64_t smallestPeak = UINT64_MAX;
};

static ChainOutcome planChain(const RematGraph &graph, uint64_t budget) {
  std::vector<size_t> forward, position(graph.nodes.size(), SIZE_MAX);
  for (auto [i, node] : llvm::enumerate(graph.nodes))
    if (!node.backward) {
      position[i] = forward.size();
      forward.push_back(i);
    }
  auto describe = [&](size_t i) {
    return "node " + std::to_string(graph.nodes[i].id);
  };
  for (auto [k, f] : llvm::enumerate(forward))
    for (size_t in : graph.nodes[f].inputs)
      if (k == 0 || in != forward[k - 1])
        fail("policy 'chain' needs the forward nodes to form a chain: " +
             describe(f) + " reads " + describe(in) +
             (k == 0 ? std::string(", but it is the first forward node")
                     : ", not the forward node before it (" +
                           describe(forward[k - 1]) + ")"));
  size_t n = forward.size();
  if (n == 0)
    fail("policy 'chain' needs forward nodes");
  // Reverse step of each backward node.
  std::vector<std::vector<size_t>> steps(n);
  size_t step = n - 1;
  for (auto [i, node] : llvm::enumerate(graph.nodes)) {
    if (!node.backward)
      continue;
    size_t last = SIZE_MAX;
    for (size_t in : node.inputs)
      if (position[in] != SIZE_MAX)
        last = last == SIZE_MAX ? position[in] : std::max(last, position[in]);
    if (last != SIZE_MAX) {
      if (last > step)
        fail("policy 'chain' needs the backward nodes in reverse order of "
             "the forward nodes they read: " +
             describe(i) + " reads " + describe(forward[last]) +
             " after a backward node of an earlier layer");
      step = last;
    }
    steps[step].push_back(i);
  }
  WeightedChain chain;
  for (size_t k = 0; k < n; ++k) {
    chain.cost.push_back(graph.nodes[forward[k]].cost);
    chain.size.push_back(k == 0 ? 0 : graph.nodes[forward[k - 1]].bytes);
  }
  auto scheduleFor = [&](const ChainPlan &plan) {
    std::vector<size_t> schedule;
    std::vector<uint8_t> ran(n, 0);
    std::optional<ChainAction> previous;
    for (const ChainAction &a : plan.actions) {
      if (a.kind == ChainAction::Advance) {
        schedule.push_back(forward[a.index]);
        ran[a.index] = 1;
      } else {
        size_t i = a.index;
        bool atHand = ran[i] && previous &&
                      (*previous == ChainAction{ChainAction::Advance, i} ||
                       *previous == ChainAction{ChainAction::Reverse, i + 1});
        // Re-run f_i only when its output is not at hand and step i's
        // backward nodes read it.
        bool read = llvm::any_of(steps[i], [&](size_t v) {
          return llvm::is_contained(graph.nodes[v].inputs, forward[i]);
        });
        if ((!atHand && read) || !ran[i])
          schedule.push_back(forward[i]);
        ran[i] = 1;
        llvm::append_range(schedule, steps[i]);
      }
      previous = a;
    }
    return schedule;
  };
  ChainOutcome best;
  best.result.cost = std::numeric_limits<double>::infinity();
  auto probe = [&](uint64_t memory) {
    std::optional<ChainPlan> plan =
        planWeightedChain(chain, memory, /*maxCells=*/4'000'000);
    if (!plan)
      return false;
    // Steps without backward nodes leave advances nobody reads.
    std::vector<size_t> schedule = pruneSchedule(graph, scheduleFor(*plan));
    if (std::optional<std::string> error = checkSchedule(graph, schedule)) {
      errs() << "memplan-remat: internal error: the chain schedule is "
                "invalid: "
             << *error << "\n";
      exit(2);
    }
    RematCost cost = simulateSchedule(graph, schedule);
    best.smallestPeak = std::min(best.smallestPeak, cost.peak);
    if (cost.peak > budget)
      return false;
    if (cost.cost < best.result.cost) {
      best.result = cost;
      best.schedule = std::move(schedule);
    }
    return true;
  };
  // The peak grows with the DP's memory (not strictly): a binary search for
  // the largest memory that fits, keeping the cheapest fitting probe.
  uint64_t lo = 0, hi = 0;
  for (uint64_t s : chain.size)
    hi += s;
  if (probe(hi))
    return best;
  probe(lo);
  while (hi - lo > 1) {
    uint64_t mid = lo + (hi - lo) / 2;
    (probe(mid) ? lo : hi) = mid;
  }
  return best;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "memplan-remat: rematerialization planning on a computation graph "
      "(networkx node-link JSON, as published with Checkmate and Moccasin)\n");
  RematGraph graph = readGraph(inputPath);
  RematOptions options;
  bool haveBudget = !budgetText.empty();
  if (haveBudget && StringRef(budgetText).getAsInteger(10, options.budget))
    fail("--budget '" + budgetText + "' is not a byte count");
  std::string name = policyName.empty() ? (haveBudget ? "budget" : "keep-all")
                                        : std::string(policyName);
  bool milp = name == "optimal", chainPolicy = name == "chain";
  std::optional<RematPolicy> policy =
      milp || chainPolicy ? RematPolicy::Budget : parseRematPolicy(name);
  if (!policy) {
    fail("unknown policy '" + name +
         "' (expected keep-all, recompute-all, every-n, cost-threshold, sqrt, "
         "budget, chain or optimal)");
  }
  if ((*policy == RematPolicy::Budget) && !haveBudget)
    fail("policy '" + name + "' needs --budget");
  if (milp && !rematMILPAvailable())
    fail("policy 'optimal' needs the MILP solver, and this build has none "
         "(install coinor-libcbc-dev and reconfigure)");
  if (!(timeLimit > 0))
    fail("--time-limit must be positive");
  if (every == 0)
    fail("--every must be positive");
  options.policy = *policy;
  options.every = every;
  options.threshold = threshold;

  // What every policy reports: executions per node, cost, peak.
  std::vector<size_t> schedule;
  RematCost result;
  std::string optimal = "unknown";
  auto begin = std::chrono::steady_clock::now();
  // The greedy planner: the plan of `budget`, the incumbent offered to the
  // MILP, and the smallest budget named when one is infeasible.
  RematPlan plan = planRemat(graph, options);
  double baseline = graph.totalCost();
  if (chainPolicy) {
    ChainOutcome chain = planChain(graph, options.budget);
    if (chain.schedule.empty()) {
      errs() << "memplan-remat: the budget of " << options.budget
             << " bytes is infeasible for policy 'chain': its smallest peak "
                "is "
             << chain.smallestPeak
             << " bytes; the smallest budget memplan's greedy planner "
                "reaches is "
             << plan.smallestPeak << " bytes\n";
      return 1;
    }
    schedule = std::move(chain.schedule);
    result = chain.result;
    if (result.cost == baseline)
      optimal = "yes";
  } else if (milp) {
    RematMILPResult solved =
        solveRematMILP(graph, options.budget, timeLimit,
                       plan.feasible ? plan.schedule : std::vector<size_t>());
    using Status = RematMILPResult::Status;
    if (solved.status == Status::Infeasible) {
      errs() << "memplan-remat: the budget of " << options.budget
             << " bytes is infeasible: no schedule fits (proven by the MILP); "
                "the smallest budget memplan's greedy planner reaches is "
             << plan.smallestPeak << " bytes\n";
      return 1;
    }
    if (solved.status == Status::NoSolution) {
      errs() << "memplan-remat: the MILP found no schedule within "
             << format("%g", double(timeLimit))
             << " s (raise --time-limit); the greedy planner's smallest "
                "budget is "
             << plan.smallestPeak << " bytes\n";
      return 1;
    }
    schedule = std::move(solved.schedule);
    if (std::optional<std::string> error = checkSchedule(graph, schedule)) {
      errs() << "memplan-remat: internal error: the MILP's schedule is "
                "invalid: "
             << *error << "\n";
      return 2;
    }
    result = solved.result;
    optimal = solved.status == Status::Optimal ? "yes" : "no";
  } else {
    schedule = plan.schedule;
    result = plan.result;
    // Without recomputation the cost is the baseline, which nothing beats.
    if (result.cost == baseline)
      optimal = "yes";
  }
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - begin)
                  .count();
  std::vector<uint32_t> runs(graph.nodes.size(), 0);
  for (size_t v : schedule)
    ++runs[v];
  if (!outputPath.empty()) {
    json::Array decisions;
    for (auto [i, node] : llvm::enumerate(graph.nodes))
      decisions.push_back(json::Object{
          {"id", node.id}, {"decision", runs[i] > 1 ? "recompute" : "keep"}});
    json::Object out{{"policy", name},
                     {"cost", result.cost},
                     {"baseline_cost", baseline},
                     {"peak", int64_t(result.peak)},
                     {"decisions", std::move(decisions)}};
    // The MILP and the chain DP may store intermediate states while
    // recomputing: the
    // decisions alone do not say when; the schedule does.
    if (milp || chainPolicy || *policy == RematPolicy::Budget) {
      json::Array ids;
      for (size_t v : schedule)
        ids.push_back(graph.nodes[v].id);
      out["schedule"] = std::move(ids);
    }
    std::error_code ec;
    raw_fd_ostream os(outputPath, ec, sys::fs::OF_Text);
    if (ec)
      fail("cannot write '" + outputPath + "': " + ec.message());
    os << formatv("{0:2}", json::Value(std::move(out))) << "\n";
  }
  outs() << "cost=" << format("%g", result.cost)
         << " baseline_cost=" << format("%g", baseline) << " overhead="
         << format("%.4f",
                   baseline > 0 ? (result.cost - baseline) / baseline : 0.0)
         << " peak=" << result.peak << " budget="
         << (haveBudget ? std::to_string(options.budget) : std::string("none"))
         << " optimal=" << optimal << " time_ms=" << format("%.1f", ms) << "\n";
  if (haveBudget && result.peak > options.budget) {
    errs() << "memplan-remat: the budget of " << options.budget
           << " bytes is infeasible for policy '" << name
           << "': the smallest budget memplan reaches is "
           << (*policy == RematPolicy::Budget
                   ? plan.smallestPeak
                   : planRemat(graph,
                               RematOptions{RematPolicy::Budget, 2, 0, 0})
                         .smallestPeak)
           << " bytes\n";
    return 1;
  }
  return 0;
}
