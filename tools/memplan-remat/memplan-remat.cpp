//===- memplan-remat.cpp - Rematerialization on node-link graphs ----------===//
//
// Part of memplan. Reads a computation graph in networkx node-link JSON
// (memplan/Planning/RematGraphIO.h, the format of the graphs published with
// Checkmate and Moccasin) and plans which forward outputs to recompute under
// the memory model of docs/Remat.md.
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

#include "memplan/Planning/Limits.h"
#include "memplan/Planning/Remat.h"
#include "memplan/Planning/RematChain.h"
#include "memplan/Planning/RematGraphIO.h"
#include "memplan/Planning/RematMILP.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstdio>

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
// cl::desc keeps a StringRef: the text must outlive the option.
static const std::string nodeLimitHelp =
    "optimal: branch-and-bound nodes the MILP may explore (default " +
    std::to_string(kDefaultMILPNodes) +
    "; 0: none). Unlike the time limit, it gives the same schedule on any "
    "machine";
static const std::string workLimitHelp =
    "The greedy planner's work bound (default " +
    std::to_string(kDefaultRematWorkLimit) +
    ", about 25 s; 0: none). A keep/recompute policy whose schedule needs "
    "more fails; 'budget' plans with the part of its search it finished "
    "and warns. Work, not time: the same plan on any machine";
static cl::opt<uint64_t> workLimit("work-limit", cl::desc(workLimitHelp),
                                   cl::init(kDefaultRematWorkLimit),
                                   cl::cat(category));
static cl::opt<int64_t> nodeLimit("node-limit", cl::desc(nodeLimitHelp),
                                  cl::init(kDefaultMILPNodes),
                                  cl::cat(category));

static cl::opt<bool> quiet(
    "quiet",
    cl::desc("optimal: no progress lines (one when the MILP starts, one a "
             "second while it runs, one when it ends; printed to stderr only "
             "when it is a terminal)"),
    cl::cat(category));

[[noreturn]] static void fail(const Twine &message) {
  errs() << "memplan-remat: error: " << message << "\n";
  exit(2);
}

/// A cost for the summary line: whole numbers below 1e15 exactly (FLOP
/// counts reach millions, where %g would round them), other numbers below
/// 1e15 with two decimals, larger ones with the 17 digits that round-trip
/// (formatv's F2 printed "4000...864." for 4e29).
static std::string costText(double cost) {
  char text[64];
  if (!(std::fabs(cost) < 1e15)) // large (or not finite): round-trip digits
    std::snprintf(text, sizeof(text), "%.17g", cost);
  else if (cost == std::floor(cost))
    std::snprintf(text, sizeof(text), "%.0f", cost);
  else
    std::snprintf(text, sizeof(text), "%.2f", cost);
  return text;
}

static RematGraph readGraph(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> file =
      MemoryBuffer::getFileOrSTDIN(path);
  if (!file)
    fail("cannot read '" + path + "': " + file.getError().message());
  std::variant<RematGraph, std::string> graph =
      parseRematGraphJSON((*file)->getBuffer(), path);
  if (auto *error = std::get_if<std::string>(&graph))
    fail(*error);
  return std::move(std::get<RematGraph>(graph));
}

/// "N bytes (policy P)": the smallest budget any of memplan's policies
/// reaches — the greedy planner's (`greedyPeak`, policy 'budget') or the
/// chain policy's leanest schedule, when the graph is a chain.
static std::string smallestBudgetText(const RematGraph &graph,
                                      uint64_t greedyPeak) {
  uint64_t bytes = greedyPeak;
  const char *policy = "budget";
  if (std::optional<uint64_t> chain = chainSmallestPeak(graph);
      chain && *chain < bytes) {
    bytes = *chain;
    policy = "chain";
  }
  return std::to_string(bytes) + " bytes (policy '" + policy + "')";
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
  if (std::optional<std::string> bad = checkTimeLimit(timeLimit))
    fail("--time-limit " + *bad);
  if (nodeLimit < 0)
    fail("--node-limit must be >= 0");
  if (every == 0)
    fail("--every must be positive");
  options.policy = *policy;
  options.every = every;
  options.threshold = threshold;
  options.workLimit = workLimit ? uint64_t(workLimit) : UINT64_MAX;

  // What every policy reports: executions per node, cost, peak.
  std::vector<size_t> schedule;
  RematCost result;
  std::string optimal = "unknown";
  auto begin = std::chrono::steady_clock::now();
  // The greedy planner: the plan of `budget`, the incumbent offered to the
  // MILP, and the smallest budget named when one is infeasible.
  // Computed when first needed (it is the slowest part on long graphs).
  std::optional<RematPlan> greedyPlan;
  auto greedy = [&]() -> RematPlan & {
    if (!greedyPlan) {
      greedyPlan = planRemat(graph, options);
      if (greedyPlan->stoppedOnWork && greedyPlan->schedule.empty()) {
        errs() << "memplan-remat: error: policy '"
               << stringifyRematPolicy(options.policy) << "' needs ";
        if (greedyPlan->scheduleTooLong)
          errs() << "a schedule of more than " << kMaxRematScheduleLength
                 << " executions";
        else
          errs() << "more work than --work-limit=" << options.workLimit
                 << " allows";
        errs() << " for this graph of " << graph.nodes.size() << " nodes\n";
        exit(1);
      }
      if (greedyPlan->stoppedOnWork)
        errs() << "memplan-remat: warning: the greedy planner stopped on "
                  "--work-limit="
               << options.workLimit
               << ": cheaper plans and smaller budgets may be reachable with "
                  "a larger limit\n";
    }
    return *greedyPlan;
  };
  double baseline = graph.totalCost();
  if (chainPolicy) {
    ChainSchedule chain;
    if (std::optional<std::string> error =
            planChainSchedule(graph, options.budget, chain))
      fail(*error);
    if (chain.schedule.empty()) {
      // Planned first: the greedy planner may end the run with its own error.
      std::string smallest = smallestBudgetText(graph, greedy().smallestPeak);
      errs() << "memplan-remat: the budget of " << options.budget
             << " bytes is infeasible for policy 'chain': its smallest peak "
                "is "
             << chain.smallestPeak
             << " bytes; the smallest budget memplan reaches is " << smallest
             << "\n";
      return 1;
    }
    schedule = std::move(chain.schedule);
    result = chain.result;
    if (result.cost == baseline)
      optimal = "yes";
  } else if (milp) {
    // Progress for a person watching: the MILP is one long call, so a line
    // when it starts and one when it ends.
    bool progress = !quiet && sys::Process::StandardErrIsDisplayed();
    auto started = std::chrono::steady_clock::now();
    if (progress) {
      errs() << "memplan-remat: solving the MILP for " << graph.nodes.size()
             << " nodes under a budget of " << options.budget << " bytes (";
      if (nodeLimit > 0)
        errs() << "at most " << nodeLimit << " branch-and-bound nodes, ";
      else
        errs() << "no node limit, ";
      errs() << format("%g", double(timeLimit)) << " s)\n";
    }
    // Computed before the solve: the greedy planner may print a warning.
    std::vector<size_t> start =
        greedy().feasible ? greedy().schedule : std::vector<size_t>();
    RematMILPResult solved =
        solveRematMILP(graph, options.budget, timeLimit, start, nodeLimit,
                       [&](double elapsed) {
                         if (progress)
                           errs() << "memplan-remat: solving the MILP: "
                                  << format("%.0f", elapsed) << " s of at most "
                                  << format("%g", double(timeLimit)) << " s\n";
                       });
    if (progress)
      errs() << "memplan-remat: the MILP took "
             << format("%.1f", std::chrono::duration<double>(
                                   std::chrono::steady_clock::now() - started)
                                   .count())
             << " s\n";
    using Status = RematMILPResult::Status;
    if (solved.stoppedOnTime)
      errs() << "memplan-remat: warning: the MILP stopped on the time limit, "
                "so this answer depends on the machine's speed (a --node-limit "
                "it reaches first does not)\n";
    if (!solved.note.empty())
      errs() << "memplan-remat: warning: " << solved.note
             << (solved.status == Status::Feasible
                     ? "; reporting the greedy planner's schedule (unproven)"
                     : "")
             << "\n";
    if (solved.status == Status::Infeasible) {
      std::string smallest = smallestBudgetText(graph, greedy().smallestPeak);
      errs() << "memplan-remat: the budget of " << options.budget
             << " bytes is infeasible: no schedule fits (proven by the MILP); "
                "the smallest budget memplan reaches is "
             << smallest << "\n";
      return 1;
    }
    if (solved.status == Status::NoSolution ||
        solved.status == Status::Failed) {
      std::string smallest = smallestBudgetText(graph, greedy().smallestPeak);
      errs() << "memplan-remat: the MILP found no schedule within ";
      if (solved.stoppedOnTime || solved.status == Status::Failed)
        errs() << format("%g", double(timeLimit)) << " s (raise --time-limit)";
      else
        errs() << nodeLimit << " nodes (raise --node-limit)";
      errs() << "; the smallest budget memplan reaches is " << smallest << "\n";
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
    schedule = greedy().schedule;
    result = greedy().result;
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
  outs() << "cost=" << costText(result.cost)
         << " baseline_cost=" << costText(baseline) << " overhead="
         << format("%.4f",
                   baseline > 0 ? (result.cost - baseline) / baseline : 0.0)
         << " peak=" << result.peak << " budget="
         << (haveBudget ? std::to_string(options.budget) : std::string("none"))
         << " optimal=" << optimal << " time_ms=" << format("%.1f", ms) << "\n";
  if (haveBudget && result.peak > options.budget) {
    errs() << "memplan-remat: the budget of " << options.budget
           << " bytes is infeasible for policy '" << name
           << "': the smallest budget memplan reaches is "
           << smallestBudgetText(
                  graph,
                  *policy == RematPolicy::Budget
                      ? greedy().smallestPeak
                      : planRemat(graph, RematOptions{RematPolicy::Budget, 2, 0,
                                                      0, options.workLimit})
                            .smallestPeak)
           << "\n";
    return 1;
  }
  return 0;
}
