//===- RematGraph.cpp - The remat graph of a tensor-level function --------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/Analysis/RematGraph.h"
#include "memplan/Analysis/Lifetimes.h"
#include "memplan/Analysis/SymbolicSizes.h"
#include "memplan/IR/MemplanDialect.h"
#include "memplan/IR/MemplanOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <numeric>
#include <set>

using namespace mlir;
using namespace mlir::memplan;

static double elements(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return 0;
  return double(shaped.getNumElements());
}

double mlir::memplan::estimateCost(Operation *op) {
  if (Attribute attr =
          MemplanDialect::CostAttrHelper(op->getContext()).getAttr(op)) {
    if (auto f = dyn_cast<FloatAttr>(attr))
      return f.getValueAsDouble();
    if (auto i = dyn_cast<IntegerAttr>(attr))
      return double(i.getInt());
  }
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    double iterations = 1;
    for (int64_t range : linalgOp.getStaticLoopRanges())
      iterations *= range > 0 ? double(range) : 1.0;
    double body = 0;
    for (Operation &nested : linalgOp->getRegion(0).front())
      if (!isa<linalg::YieldOp>(nested))
        body += 1;
    return iterations * std::max(1.0, body);
  }
  if (isa<tensor::InsertSliceOp>(op))
    return elements(op->getOperand(0).getType());
  if (isa<tensor::PadOp, tensor::ConcatOp>(op))
    return elements(op->getResult(0).getType());
  return 0;
}

/// Ops that write a buffer (not allocations, views or casts).
static bool writes(Operation *op) {
  return isa<DestinationStyleOpInterface>(op) ||
         isa<tensor::PadOp, tensor::ConcatOp, tensor::GenerateOp,
             tensor::FromElementsOp, tensor::SplatOp>(op);
}

Operation *FunctionRematGraph::findControlFlow(FunctionOpInterface func,
                                               bool &multiBlock) {
  Region &body = func.getFunctionBody();
  multiBlock = !body.hasOneBlock();
  if (multiBlock)
    return nullptr;
  for (Operation &op : body.front())
    if (isa<RegionBranchOpInterface>(op))
      return &op;
  return nullptr;
}

FailureOr<FunctionRematGraph>
FunctionRematGraph::build(FunctionOpInterface func,
                          const llvm::StringMap<uint64_t> &extraBounds) {
  bool multiBlock = false;
  Operation *branching = findControlFlow(func, multiBlock);
  if (multiBlock)
    return func.emitError(
        "memplan-insert-remat supports single-block functions");
  if (branching)
    return branching->emitError("memplan-insert-remat supports straight-line "
                                "functions only, found '")
           << branching->getName() << "'";
  Region &body = func.getFunctionBody();
  FailureOr<FunctionLifetimes> lifetimes =
      FunctionLifetimes::analyze(func, /*allowDynamicShapes=*/true);
  if (failed(lifetimes))
    return failure();
  ArrayRef<Root> roots = lifetimes->getRoots();
  // Dynamic shapes: every planned buffer's size at the bounds.
  std::vector<uint64_t> rootBytes;
  for (const Root &root : roots)
    rootBytes.push_back(root.size);
  if (llvm::any_of(roots, [](const Root &r) {
        return r.isPlanned() && r.dynamicSize;
      })) {
    FailureOr<SymbolicSizes> sizes = SymbolicSizes::create(func, extraBounds);
    if (failed(sizes))
      return failure();
    SmallVector<uint64_t> bounds;
    for (const SizeSymbol &symbol : sizes->getSymbols())
      bounds.push_back(symbol.bound.value_or(0));
    DataLayout layout = DataLayout::closest(func);
    for (auto [i, root] : llvm::enumerate(roots)) {
      if (!root.isPlanned() || !root.dynamicSize)
        continue;
      auto shaped = cast<ShapedType>(root.value.getType());
      FailureOr<AffineExpr> bytes = sizes->getByteSize(
          root.value.getLoc(), root.value,
          getElementStorageBytes(shaped.getElementType(), layout).value_or(1));
      if (failed(bytes))
        return failure();
      std::string missing;
      bytes->walk([&](AffineExpr e) {
        if (auto s = dyn_cast<AffineSymbolExpr>(e);
            s && !sizes->getSymbols()[s.getPosition()].bound &&
            missing.find(sizes->getSymbols()[s.getPosition()].name) ==
                std::string::npos)
          missing += (missing.empty() ? "" : ", ") +
                     sizes->getSymbols()[s.getPosition()].name;
      });
      if (!missing.empty())
        return emitError(root.value.getLoc(), "@")
               << func.getName()
               << " has dynamic shapes: a budget or remat policy applies at "
                  "the bounds of its symbols, and "
               << missing << " has none (give `memplan.bounds = {"
               << missing.substr(0, missing.find(','))
               << " = N : i64}` on the function or the option bounds="
               << missing.substr(0, missing.find(',')) << "=N)";
      std::optional<uint64_t> value = evaluateSizeExpr(*bytes, bounds);
      if (!value)
        return emitError(root.value.getLoc(), "the size of this buffer, ")
               << sizes->print(*bytes)
               << " bytes, is negative or overflows at the bounds";
      rootBytes[i] = *value;
    }
  }

  FunctionRematGraph out;
  // Chains per root, in program order; the position of the last writer.
  DenseMap<int64_t, size_t> nodeOfRoot;
  std::vector<int64_t> rootOfNode;
  std::vector<int64_t> position;
  for (auto [index, op] : llvm::enumerate(body.front())) {
    Value result;
    for (Value r : op.getResults())
      if (isa<RankedTensorType>(r.getType())) {
        result = r;
        break;
      }
    if (!result)
      continue;
    int64_t root = lifetimes->getRootIndex(result);
    if (root < 0 || roots[root].kind != RootKind::Allocated)
      continue;
    auto [it, inserted] = nodeOfRoot.try_emplace(root, out.chains.size());
    if (inserted) {
      out.chains.emplace_back();
      out.finals.push_back(Value());
      rootOfNode.push_back(root);
      position.push_back(-1);
    }
    size_t node = it->second;
    out.chains[node].push_back(&op);
    out.nodeOf[&op] = node;
    if (writes(&op)) {
      position[node] = index;
      out.finals[node] = result;
    }
  }
  size_t n = out.chains.size();
  // Order nodes by when their buffer is complete (the last writer).
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  llvm::stable_sort(
      order, [&](size_t a, size_t b) { return position[a] < position[b]; });
  std::vector<size_t> rank(n);
  for (size_t k = 0; k < n; ++k)
    rank[order[k]] = k;
  auto permute = [&](auto &v) {
    auto copy = v;
    for (size_t k = 0; k < n; ++k)
      v[k] = copy[order[k]];
  };
  permute(out.chains);
  permute(out.finals);
  permute(rootOfNode);
  permute(position);
  for (auto &[op, node] : out.nodeOf)
    node = rank[node];

  out.graph.nodes.resize(n);
  out.external.assign(n, 0);
  for (size_t k = 0; k < n; ++k) {
    RematNode &node = out.graph.nodes[k];
    const Root &root = roots[rootOfNode[k]];
    node.id = k;
    node.bytes = root.isPlanned() ? rootBytes[rootOfNode[k]] : 0;
    out.external[k] = !root.isPlanned();
    if (!out.finals[k])
      out.finals[k] = out.chains[k].back()->getResult(0);
    std::set<size_t> inputs;
    for (Operation *op : out.chains[k]) {
      node.cost += estimateCost(op);
      auto visit = [&](Value v) {
        for (const Root *r : lifetimes->getRootsOf(v)) {
          auto it = nodeOfRoot.find(r - roots.data());
          if (it == nodeOfRoot.end())
            continue;
          size_t q = rank[it->second];
          if (q != k)
            inputs.insert(q);
        }
      };
      for (Value operand : op->getOperands())
        visit(operand);
      // Values read inside payload regions (tensor.extract of a tensor).
      op->walk([&](Operation *nested) {
        if (nested != op)
          for (Value operand : nested->getOperands())
            if (!op->isAncestor(operand.getParentRegion()->getParentOp()))
              visit(operand);
      });
    }
    for (size_t q : inputs) {
      if (q >= k)
        return out.chains[k].front()->emitError(
            "memplan-insert-remat cannot order this buffer after the buffers "
            "it reads");
      node.inputs.push_back(q);
    }
  }
  // Forward: the loss (the first result) and everything it depends on.
  Operation *ret = body.front().getTerminator();
  std::vector<uint8_t> forward(n, 0);
  std::vector<size_t> work;
  // Without results there is no loss: everything is backward (nothing to
  // recompute).
  auto seed = [&](Value v) {
    for (const Root *r : lifetimes->getRootsOf(v)) {
      auto it = nodeOfRoot.find(r - roots.data());
      if (it != nodeOfRoot.end())
        work.push_back(rank[it->second]);
    }
  };
  if (ret->getNumOperands() != 0) {
    Value loss = ret->getOperand(0);
    seed(loss);
    // A loss written into an argument's buffer (a donated result, as device
    // steps return it) is what that op reads.
    if (work.empty())
      if (auto dps = loss.getDefiningOp<DestinationStyleOpInterface>())
        for (OpOperand *in : dps.getDpsInputOperands())
          seed(in->get());
  }
  while (!work.empty()) {
    size_t k = work.back();
    work.pop_back();
    if (forward[k])
      continue;
    forward[k] = 1;
    for (size_t q : out.graph.nodes[k].inputs)
      work.push_back(q);
  }
  for (size_t k = 0; k < n; ++k)
    out.graph.nodes[k].backward = !forward[k];
  if (std::optional<std::string> error = out.graph.validate())
    return func.emitError("memplan-insert-remat cannot plan this function: ")
           << *error;
  return out;
}
