//===- PackArena.cpp - Place a function's allocations in one arena --------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "SymbolicArena.h"

#include "memplan/Analysis/Lifetimes.h"
#include "memplan/Analysis/SymbolicSizes.h"
#include "memplan/IR/MemplanOps.h"
#include "memplan/Planning/Limits.h"
#include "memplan/Planning/Packing.h"
#include "memplan/Planning/Report.h"
#include "memplan/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace memplan {
#define GEN_PASS_DEF_PACKARENAPASS
#include "memplan/Transforms/Passes.h.inc"
} // namespace memplan
} // namespace mlir

using namespace mlir;
using namespace mlir::memplan;

#define DEBUG_TYPE "memplan-pack-arena"

namespace {
struct PackArenaPass : public memplan::impl::PackArenaPassBase<PackArenaPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    // Symbolic sizes relate dimensions through these ops' value bounds.
    affine::registerValueBoundsOpInterfaceExternalModels(registry);
    arith::registerValueBoundsOpInterfaceExternalModels(registry);
    memref::registerValueBoundsOpInterfaceExternalModels(registry);
    scf::registerValueBoundsOpInterfaceExternalModels(registry);
    tensor::registerValueBoundsOpInterfaceExternalModels(registry);
  }

  /// The options of functions with dynamic shapes; false on a bad one.
  bool parseSymbolicOptions(ModuleOp module) {
    symbolic.algorithm = symbolicAlgorithm;
    symbolic.bounded = bounded;
    symbolic.alignment = alignment;
    symbolic.pack.algorithm = algorithm;
    symbolic.pack.workLimit = workLimit;
    symbolic.pack.timeLimitSeconds = timeLimit;
    symbolic.bounds.clear();
    symbolic.evalPoints.clear();
    symbolNames.clear();
    if (std::optional<std::string> bad =
            parseSymbolValues(boundsOption, symbolic.bounds)) {
      module.emitError("memplan-pack-arena: bad bounds option: ") << *bad;
      return false;
    }
    SmallVector<StringRef> points;
    StringRef(evalOption).split(points, ';', -1, /*KeepEmpty=*/false);
    for (StringRef point : points) {
      symbolic.evalPoints.emplace_back();
      if (std::optional<std::string> bad =
              parseSymbolValues(point, symbolic.evalPoints.back())) {
        module.emitError("memplan-pack-arena: bad eval option: ") << *bad;
        return false;
      }
    }
    return true;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    PackAlgorithm algo = algorithm;
    if (!parseSymbolicOptions(module))
      return signalPassFailure();
    if (std::optional<std::string> bad =
            checkSearchBounds(workLimit, timeLimit, "time-limit")) {
      module.emitError(*bad);
      return signalPassFailure();
    }
    if (alignment <= 0 || !llvm::isPowerOf2_64(alignment)) {
      module.emitError("alignment must be a power of two, got ")
          << static_cast<int64_t>(alignment);
      return signalPassFailure();
    }
    std::vector<ReportFunction> reports;
    WalkResult walk = module.walk([&](FunctionOpInterface func) {
      if (func.isExternal() || isHostFunction(func))
        return WalkResult::advance();
      if (failed(packFunction(func, algo, reports)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    // A bound or eval value for a symbol no function has is a typo.
    auto unknown = [&](const llvm::StringMap<uint64_t> &values,
                       StringRef option) {
      for (const auto &entry : values)
        if (!symbolNames.contains(entry.getKey())) {
          module.emitError("memplan-pack-arena: the ")
              << option << " option names '" << entry.getKey()
              << "', which is a symbol of no function of the module";
          return true;
        }
      return false;
    };
    if (unknown(symbolic.bounds, "bounds") ||
        llvm::any_of(symbolic.evalPoints,
                     [&](const auto &point) { return unknown(point, "eval"); }))
      return signalPassFailure();
    auto write = [&](StringRef path, auto writer) {
      if (path.empty())
        return success();
      if (llvm::Error error = writer(path, reports)) {
        module.emitError("cannot write the report '")
            << path << "': " << llvm::toString(std::move(error));
        return failure();
      }
      return success();
    };
    if (failed(write(report, writeJsonReport)) ||
        failed(write(html, writeHtmlReport)) ||
        failed(write(exportCsv, writeCsvTraces)))
      return signalPassFailure();
    if (explain == "-") {
      writeExplanation(llvm::errs(), reports);
    } else if (!explain.empty()) {
      std::error_code ec;
      llvm::raw_fd_ostream os(explain, ec, llvm::sys::fs::OF_Text);
      if (!ec) {
        writeExplanation(os, reports);
        os.close();
      }
      if (ec || os.has_error()) {
        module.emitError("cannot write the explanation '")
            << explain << "': " << (ec ? ec : os.error()).message();
        return signalPassFailure();
      }
    }
  }

  LogicalResult packFunction(FunctionOpInterface func, PackAlgorithm algo,
                             std::vector<ReportFunction> &reports);
  SymbolicArenaConfig symbolic;
  /// The symbols of every function, to check the options' names against.
  llvm::StringSet<> symbolNames;
  /// Packs `planned` (root indices, all in memory space `space`) into one
  /// arena of that space and reports it.
  /// Whether a report, picture or explanation is asked for: only they read
  /// the buffers' producers and use steps.
  bool describesBuffers() const {
    return !report.empty() || !html.empty() || !explain.empty();
  }
  /// `stepOps`: the op at each step, described before any space is packed.
  LogicalResult packSpace(FunctionOpInterface func, PackAlgorithm algo,
                          const FunctionLifetimes &lifetimes,
                          ArrayRef<size_t> planned, Attribute space,
                          ArrayRef<std::string> stepOps,
                          std::vector<ReportFunction> &reports);
};
} // namespace

/// The op at each step of `func`, for the report's time axis.
static std::vector<std::string>
describeSteps(FunctionOpInterface func, const FunctionLifetimes &lifetimes) {
  std::vector<std::string> ops(std::max<int64_t>(0, lifetimes.getNumSteps()));
  func->walk([&](Operation *op) {
    int64_t step = lifetimes.getStep(op);
    if (step >= 0 && step < int64_t(ops.size()) && ops[step].empty())
      ops[step] = describeOp(op);
  });
  return ops;
}

/// The steps at which `alloc`'s buffer is used (through view-like ops), and
/// its producer: the last op of the writes that open its lifetime.
static void describeUses(memref::AllocOp alloc,
                         const FunctionLifetimes &lifetimes,
                         ReportBuffer &buffer) {
  // (step, op, writes) of every use; views followed with a worklist.
  std::vector<std::tuple<int64_t, Operation *, bool>> uses;
  SmallVector<Value> work{alloc.getResult()};
  while (!work.empty()) {
    Value value = work.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      // Views and selects (memplan-double-buffer's slots) alias the buffer.
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          (view && view.getViewSource() == value) ||
          isa<arith::SelectOp>(user)) {
        for (Value result : user->getResults())
          work.push_back(result);
        continue;
      }
      // A use inside a region op's body counts at the nearest stepped op.
      Operation *at = user;
      while (at && lifetimes.getStep(at) < 0)
        at = at->getParentOp();
      if (!at)
        continue;
      uses.push_back({lifetimes.getStep(at), user,
                      hasEffect<MemoryEffects::Write>(user, value)});
    }
  }
  llvm::stable_sort(uses, [](const auto &a, const auto &b) {
    return std::get<0>(a) < std::get<0>(b);
  });
  Operation *producer = nullptr;
  for (auto &[step, op, writes] : uses) {
    if (!writes)
      break;
    producer = op;
    buffer.producerStep = step;
  }
  if (!producer && !uses.empty()) {
    producer = std::get<1>(uses.front());
    buffer.producerStep = std::get<0>(uses.front());
  }
  if (producer)
    buffer.producer = describeOp(producer);
  for (auto &[step, op, writes] : uses)
    if (buffer.useSteps.empty() || buffer.useSteps.back() != step)
      buffer.useSteps.push_back(step);
}

LogicalResult
PackArenaPass::packFunction(FunctionOpInterface func, PackAlgorithm algo,
                            std::vector<ReportFunction> &reports) {
  auto reportUnplanned = [&] {
    ReportFunction report;
    report.name = qualifiedFunctionName(func);
    report.unplannedReason =
        MemplanDialect::UnplannedAttrHelper(func.getContext())
            .getAttr(func)
            .str();
    reports.push_back(std::move(report));
    return success();
  };
  // Symbol names and bounds are checked on every function that has them,
  // whether or not it allocates anything dynamic (cheap: its arguments).
  FailureOr<SymbolicSizes> sizes = SymbolicSizes::create(func, symbolic.bounds);
  if (failed(sizes))
    return failure();
  for (const SizeSymbol &symbol : sizes->getSymbols())
    symbolNames.insert(symbol.name);
  FailureOr<std::optional<FunctionLifetimes>> analysed =
      analyzeForPlanning(func, strict, /*allowDynamicShapes=*/true);
  if (failed(analysed))
    return failure();
  if (!*analysed)
    return reportUnplanned();
  const FunctionLifetimes *lifetimes = &**analysed;
  ArrayRef<Root> roots = lifetimes->getRoots();
  auto indexOf = [&](const Root *root) { return root - roots.data(); };

  // Candidates: planned, static, identity-layout, non-empty memref.allocs.
  std::vector<uint8_t> candidate(roots.size(), 0);
  // Why a buffer the function allocates stays on the heap (for the report).
  std::vector<std::string> heapReason(roots.size());
  for (auto [i, root] : llvm::enumerate(roots)) {
    auto alloc = root.value.getDefiningOp<memref::AllocOp>();
    bool sized = root.size > 0 || root.dynamicSize;
    candidate[i] = root.isPlanned() && alloc && sized &&
                   alloc.getType().getLayout().isIdentity();
    if (root.isPlanned() && alloc && sized && !candidate[i])
      heapReason[i] = "it has a non-identity layout";
  }
  auto leaveOnHeap = [&](const Root *root, const std::string &why) {
    size_t i = indexOf(root);
    if (std::exchange(candidate[i], 0))
      heapReason[i] = why;
  };
  // Escapes: anything sharing the buffer passed to a call that may keep a
  // reference to it (or return it: the analysis does not alias call
  // results with arguments).
  func.walk([&](CallOpInterface call) {
    OperandRange args = call.getArgOperands();
    for (OpOperand &operand : call->getOpOperands()) {
      unsigned index = operand.getOperandNumber();
      bool isArg = !args.empty() && index >= args.getBeginOperandIndex() &&
                   index < args.getBeginOperandIndex() + args.size();
      if (isArg &&
          calleeKeepsNoReference(call, index - args.getBeginOperandIndex()))
        continue;
      std::string callee = "an indirect call";
      if (auto symbol = llvm::dyn_cast_if_present<SymbolRefAttr>(
              call.getCallableForCallee()))
        callee = "@" + symbol.getLeafReference().str();
      for (const Root *root : lifetimes->getRootsOf(operand.get()))
        leaveOnHeap(root,
                    "passed to " + callee + ", which may keep or return it");
    }
  });
  // Escapes: anything sharing the buffer stored into memory as data (a table
  // of buffers): a later load, here or in the caller, may read it after the
  // arena is gone.
  func.walk([&](Operation *op) {
    Value stored = getMemRefStoredAsData(op);
    if (!stored)
      return;
    for (const Root *root : lifetimes->getRootsOf(stored))
      leaveOnHeap(root, "stored into memory by '" +
                            op->getName().getStringRef().str() +
                            "', where a later load may read it");
  });
  // The byte size of every candidate over the function's symbols, when one
  // has a dynamic shape. A buffer whose size is no function of the
  // arguments' sizes (read from memory, sized by a loop) cannot be placed
  // before the function runs: it stays on the heap, the rest is planned.
  DenseMap<size_t, AffineExpr> bytesOfRoot;
  bool dynamic = llvm::any_of(llvm::enumerate(roots), [&](auto indexed) {
    return candidate[indexed.index()] && indexed.value().dynamicSize;
  });
  if (dynamic) {
    for (auto [i, root] : llvm::enumerate(roots)) {
      if (!candidate[i])
        continue;
      auto alloc = root.value.getDefiningOp<memref::AllocOp>();
      std::string why;
      ScopedDiagnosticHandler quiet(func.getContext(), [&](Diagnostic &diag) {
        if (why.empty())
          why = diag.str();
        return success();
      });
      uint64_t element =
          getElementStorageBytes(alloc.getType().getElementType(),
                                 DataLayout::closest(alloc))
              .value_or(1);
      FailureOr<AffineExpr> bytes =
          sizes->getByteSize(alloc.getLoc(), alloc.getResult(), element);
      if (failed(bytes))
        leaveOnHeap(&root, why);
      else
        bytesOfRoot[i] = *bytes;
    }
  }
  // A dealloc must free planned buffers only, or none.
  SmallVector<memref::DeallocOp> deallocs;
  func.walk([&](memref::DeallocOp op) { deallocs.push_back(op); });
  for (bool changed = true; changed;) {
    changed = false;
    for (memref::DeallocOp op : deallocs) {
      SmallVector<const Root *> freed = lifetimes->getRootsOf(op.getMemref());
      bool any = llvm::any_of(
          freed, [&](const Root *r) { return candidate[indexOf(r)]; });
      bool all = llvm::all_of(
          freed, [&](const Root *r) { return candidate[indexOf(r)]; });
      if (any && !all) {
        for (const Root *r : freed) {
          changed |= candidate[indexOf(r)] != 0;
          leaveOnHeap(r, "freed together with a buffer that is not planned");
        }
      }
    }
  }

  // Deallocs of planned buffers disappear: the arena holds them.
  SmallVector<memref::DeallocOp> plannedDeallocs;
  for (memref::DeallocOp op : deallocs) {
    SmallVector<const Root *> freed = lifetimes->getRootsOf(op.getMemref());
    if (!freed.empty() && llvm::all_of(freed, [&](const Root *r) {
          return candidate[indexOf(r)];
        }))
      plannedDeallocs.push_back(op);
  }

  // One arena per memory space, in the order the spaces first appear.
  SmallVector<Attribute> spaces;
  DenseMap<Attribute, std::vector<size_t>> plannedBySpace;
  for (auto [i, root] : llvm::enumerate(roots)) {
    if (!candidate[i])
      continue;
    Attribute space =
        root.value.getDefiningOp<memref::AllocOp>().getType().getMemorySpace();
    auto [it, inserted] = plannedBySpace.try_emplace(space);
    if (inserted)
      spaces.push_back(space);
    it->second.push_back(i);
  }
  if (spaces.empty())
    spaces.push_back(Attribute());
  size_t firstReport = reports.size();
  if (dynamic) {
    if (failed(packSymbolicFunction(func, *lifetimes, spaces, plannedBySpace,
                                    *sizes, bytesOfRoot, symbolic, reports)))
      return failure();
  } else {
    // Described before packing (packing a space replaces its allocations),
    // and only for the picture, the one reader of the step ops.
    std::vector<std::string> stepOps;
    if (!html.empty())
      stepOps = describeSteps(func, *lifetimes);
    for (Attribute space : spaces)
      if (failed(packSpace(func, algo, *lifetimes, plannedBySpace[space], space,
                           stepOps, reports)))
        return failure();
  }
  if (reports.size() > firstReport)
    for (auto [i, root] : llvm::enumerate(roots))
      if (!heapReason[i].empty())
        reports[firstReport].heapBuffers.push_back(
            {describeOp(root.value.getDefiningOp()), heapReason[i]});
  for (memref::DeallocOp op : plannedDeallocs)
    op.erase();
  return success();
}

LogicalResult PackArenaPass::packSpace(FunctionOpInterface func,
                                       PackAlgorithm algo,
                                       const FunctionLifetimes &lifetimes,
                                       ArrayRef<size_t> planned,
                                       Attribute space,
                                       ArrayRef<std::string> stepOps,
                                       std::vector<ReportFunction> &reports) {
  ArrayRef<Root> roots = lifetimes.getRoots();
  std::vector<PackItem> items;
  uint64_t arenaAlignment = alignment;
  // The arena's extent is an index (int64): every buffer, padded to its
  // alignment, and their sum (which bounds any packing) must fit it.
  uint64_t total = 0;
  for (size_t i : planned) {
    const Root &root = roots[i];
    auto alloc = root.value.getDefiningOp<memref::AllocOp>();
    uint64_t align = getBufferAlignment(alloc, alignment);
    arenaAlignment = std::max(arenaAlignment, align);
    std::optional<uint64_t> padded =
        llvm::checkedAddUnsigned(root.size, align - 1);
    std::optional<uint64_t> sum =
        padded ? llvm::checkedAddUnsigned(total, *padded) : std::nullopt;
    if (!sum || *sum > kMaxTotalBytes)
      return alloc.emitError("memplan-pack-arena: ")
             << (padded && *padded <= kMaxTotalBytes
                     ? "the planned buffers of @" + func.getName().str() +
                           " up to this one total more than 2^63-1 bytes"
                     : "this buffer of " + std::to_string(root.size) +
                           " bytes, aligned to " + std::to_string(align) +
                           ", needs more than 2^63-1 bytes")
             << ": the arena's size would not fit an index";
    total = *sum;
    uint64_t occupied = llvm::alignTo(root.size, align);
    items.push_back({root.live, occupied, align});
  }
  if (std::optional<std::string> error = validatePackItems(items))
    return func.emitError("memplan-pack-arena: internal error: ") << *error;

  PackOptions options;
  options.algorithm = algo;
  options.workLimit = workLimit;
  options.timeLimitSeconds = timeLimit;
  PackResult result = pack(items, options);

  ReportFunction report;
  report.name = qualifiedFunctionName(func);
  if (space)
    report.memorySpace = describeMemorySpace(space);
  report.alignment = arenaAlignment;
  report.algorithm = stringifyPackAlgorithm(algo).str();
  report.arenaBytes = result.arena;
  report.lowerBoundBytes = result.lowerBound;
  report.provenLowerBoundBytes = result.provenLowerBound;
  report.optimal = result.optimal;
  report.remat = readRematReport(func);

  if (!planned.empty()) {
    Block &entry = func.getFunctionBody().front();
    OpBuilder builder(func.getContext());
    builder.setInsertionPointToStart(&entry);
    auto arenaType = MemRefType::get({static_cast<int64_t>(result.arena)},
                                     builder.getI8Type(),
                                     MemRefLayoutAttrInterface(), space);
    auto arena = ArenaOp::create(builder, func.getLoc(), arenaType,
                                 builder.getI64IntegerAttr(arenaAlignment),
                                 /*size=*/Value());
    report.stepOps.assign(stepOps.begin(), stepOps.end());
    for (auto [k, i] : llvm::enumerate(planned)) {
      auto alloc = roots[i].value.getDefiningOp<memref::AllocOp>();
      report.buffers.push_back({static_cast<int64_t>(k), describeOp(alloc),
                                items[k].size, result.offsets[k],
                                items[k].live.start, items[k].live.end,
                                isRecomputed(alloc), items[k].alignment});
      // Producers and use steps: for the report, the picture and the
      // explanation only (not worth their strings on every compile).
      if (describesBuffers())
        describeUses(alloc, lifetimes, report.buffers.back());
      builder.setInsertionPoint(alloc);
      auto placement = PlacementAttr::get(
          func.getContext(), static_cast<int64_t>(result.offsets[k]),
          static_cast<int64_t>(items[k].size),
          static_cast<int64_t>(items[k].alignment));
      auto view = ViewOp::create(builder, alloc.getLoc(), alloc.getType(),
                                 arena, placement);
      alloc.getResult().replaceAllUsesWith(view.getResult());
      alloc.erase();
    }
  }
  if (!planned.empty()) {
    ++numArenas;
    numPlanned += planned.size();
    arenaBytes += result.arena;
    lowerBoundBytes += result.lowerBound;
  }
  LLVM_DEBUG(llvm::dbgs() << "memplan-pack-arena: @" << func.getName() << ": "
                          << planned.size() << " buffers, arena "
                          << result.arena << " B, lower bound "
                          << result.lowerBound << " B, "
                          << (result.optimal ? "optimal" : "not proven")
                          << ", work " << result.work << "\n");
  reports.push_back(std::move(report));
  return success();
}
