//===- TestPrintRemat.cpp - Print the remat graph and decisions -----------===//
//
// Part of memplan. Test-only: for each function, the remat graph
// (FunctionRematGraph) and the decisions of a policy, in a stable format:
//
//   remat graph of @f (N nodes)
//     node k: <root op> [forward|backward|external] <bytes> B cost <c> reads
//     [i, j]
//   decisions (<policy>): keep node i, recompute node j, ...
//   peak = <bytes> cost = <c> baseline = <c>
//
//===----------------------------------------------------------------------===//

#include "memplan/Analysis/RematGraph.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace mlir::memplan;

namespace {
struct TestPrintRematPass
    : public PassWrapper<TestPrintRematPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestPrintRematPass)
  TestPrintRematPass() = default;
  TestPrintRematPass(const TestPrintRematPass &other) : PassWrapper(other) {}

  StringRef getArgument() const final { return "test-memplan-print-remat"; }
  StringRef getDescription() const final {
    return "Print the remat graph of each function and the decisions of a "
           "policy (test only)";
  }
  Option<std::string> policy{*this, "policy", llvm::cl::desc("Remat policy"),
                             llvm::cl::init("keep-all")};
  Option<int64_t> budget{*this, "budget", llvm::cl::desc("Budget in bytes"),
                         llvm::cl::init(0)};

  void runOnOperation() override {
    llvm::raw_ostream &os = llvm::outs();
    std::optional<RematPolicy> parsed = parseRematPolicy(policy);
    if (!parsed) {
      getOperation().emitError("unknown remat policy '") << policy << "'";
      return signalPassFailure();
    }
    WalkResult walk = getOperation().walk([&](FunctionOpInterface func) {
      if (func.isExternal())
        return WalkResult::advance();
      FailureOr<FunctionRematGraph> g = FunctionRematGraph::build(func);
      if (failed(g))
        return WalkResult::interrupt();
      os << "remat graph of @" << func.getName() << " ("
         << g->graph.nodes.size() << " nodes)\n";
      for (auto [k, node] : llvm::enumerate(g->graph.nodes)) {
        os << "  node " << k << ": " << g->chains[k].front()->getName() << " ["
           << (g->external[k]  ? "external"
               : node.backward ? "backward"
                               : "forward")
           << "] " << node.bytes << " B cost " << llvm::format("%g", node.cost)
           << " reads [";
        llvm::interleaveComma(node.inputs, os);
        os << "]\n";
      }
      RematOptions options;
      options.policy = *parsed;
      if (budget > 0)
        options.budget = budget;
      RematPlan plan = planRemat(g->graph, options);
      os << "decisions (" << policy << "):";
      for (auto [k, node] : llvm::enumerate(g->graph.nodes))
        if (!node.backward && !g->external[k])
          os << " " << (plan.recompute[k] ? "recompute" : "keep") << " " << k;
      os << "\npeak = " << plan.result.peak
         << " cost = " << llvm::format("%g", plan.result.cost)
         << " baseline = " << llvm::format("%g", g->graph.totalCost()) << "\n";
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace

namespace mlir {
namespace memplan {
void registerTestPrintRematPass() { PassRegistration<TestPrintRematPass>(); }
} // namespace memplan
} // namespace mlir
