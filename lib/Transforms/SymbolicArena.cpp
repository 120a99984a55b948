//===- SymbolicArena.cpp - Arenas for dynamic shapes ----------------------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//
//
// memplan-pack-arena on a function whose planned buffers have dynamic
// shapes (docs/Packing.md, "Symbolic sizes"). Every buffer's byte size is an
// expression over the function's symbols (SymbolicSizes). In symbolic mode a
// placement valid for every size (Planning/Symbolic.h) is emitted as `arith`
// code at the function's entry: the sizes, the offsets, and the arena's size,
// allocated once per call. In bounded mode one static plan at the bounds is
// used for every smaller shape, with a run-time check that each buffer fits.
//
//===----------------------------------------------------------------------===//

#include "SymbolicArena.h"

#include "memplan/Analysis/SymbolicSizes.h"
#include "memplan/IR/MemplanOps.h"
#include "memplan/Planning/Limits.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <map>

using namespace mlir;
using namespace mlir::memplan;

uint64_t mlir::memplan::getBufferAlignment(memref::AllocOp alloc,
                                           uint64_t alignment) {
  // At least the element's storage size (a power of two): the view of the
  // buffer must start on an element boundary.
  uint64_t element = getElementStorageBytes(alloc.getType().getElementType(),
                                            DataLayout::closest(alloc))
                         .value_or(1);
  return std::max<uint64_t>({alignment, alloc.getAlignment().value_or(1),
                             llvm::PowerOf2Ceil(element)});
}

/// Whether `op` was created by rematerialization.
bool mlir::memplan::isRecomputed(Operation *op) {
  auto named = dyn_cast<NameLoc>(op->getLoc());
  return named && named.getName() == kRecomputeLocName;
}

/// The remat section of the report, from the function's memplan.remat.
std::optional<RematReport>
mlir::memplan::readRematReport(FunctionOpInterface func) {
  RematAttr remat =
      MemplanDialect::RematAttrHelper(func.getContext()).getAttr(func);
  if (!remat)
    return std::nullopt;
  RematReport report;
  report.budgetBytes = static_cast<uint64_t>(remat.getBudget());
  report.recomputeCost = remat.getRecomputeCost().convertToDouble();
  report.baselineCost = remat.getBaselineCost().convertToDouble();
  for (RematDecisionAttr d : remat.getDecisions())
    report.decisions.push_back({d.getValue().str(), d.getRecompute(),
                                static_cast<uint64_t>(d.getBytes()),
                                d.getCost().convertToDouble()});
  return report;
}

namespace {
/// An index known at compile time or computed at run time.
struct Index {
  std::optional<uint64_t> constant;
  Value value;
  /// A power of two the value is known to be a multiple of.
  uint64_t alignment = 1;
};

/// Builds index arithmetic at one insertion point, folding what is known.
/// Constants are below 2^63 (the caller checks the static bytes), so folding
/// cannot overflow where the run-time code would not.
class IndexBuilder {
public:
  IndexBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  static Index constant(uint64_t c) {
    return {c, Value(),
            c ? uint64_t(1) << llvm::countr_zero(c) : uint64_t(1) << 62};
  }
  static Index value(Value v, uint64_t alignment = 1) {
    return {std::nullopt, v, alignment};
  }
  Value get(Index x) {
    if (x.value)
      return x.value;
    Value &cached = constants[*x.constant];
    if (!cached)
      cached = arith::ConstantIndexOp::create(
          b, loc, static_cast<int64_t>(*x.constant));
    return cached;
  }
  Index add(Index x, Index y) {
    if (x.constant && y.constant)
      return constant(*x.constant + *y.constant);
    if (x.constant == 0u)
      return y;
    if (y.constant == 0u)
      return x;
    return value(arith::AddIOp::create(b, loc, get(x), get(y)),
                 std::min(x.alignment, y.alignment));
  }
  Index max(Index x, Index y) {
    if (x.constant && y.constant)
      return constant(std::max(*x.constant, *y.constant));
    if (x.constant == 0u)
      return y;
    if (y.constant == 0u)
      return x;
    return value(arith::MaxUIOp::create(b, loc, get(x), get(y)),
                 std::min(x.alignment, y.alignment));
  }
  Index alignUp(Index x, uint64_t alignment) {
    if (x.alignment >= alignment)
      return x;
    if (x.constant)
      return constant(llvm::alignTo(*x.constant, alignment));
    Value padded =
        arith::AddIOp::create(b, loc, get(x), get(constant(alignment - 1)));
    Value mask = get(constant(~(alignment - 1)));
    return value(arith::AndIOp::create(b, loc, padded, mask), alignment);
  }
  /// max(x, 0) for a signed x.
  Index clampNonNegative(Index x) {
    if (x.constant)
      return x;
    return value(arith::MaxSIOp::create(b, loc, get(x), get(constant(0))),
                 x.alignment);
  }
  Index select(Value condition, Index x, Index y) {
    if (x.constant && y.constant && *x.constant == *y.constant)
      return x;
    if (x.value && x.value == y.value)
      return x;
    return value(arith::SelectOp::create(b, loc, condition, get(x), get(y)),
                 std::min(x.alignment, y.alignment));
  }

private:
  OpBuilder &b;
  Location loc;
  std::map<uint64_t, Value> constants;
};

/// The offsets and arena size of `plan` as run-time code.
std::pair<SmallVector<Index>, Index> emitPlan(IndexBuilder &ib,
                                              const SymbolicPlan &plan,
                                              ArrayRef<SymbolicItem> items,
                                              ArrayRef<Index> occupied) {
  size_t n = items.size();
  SmallVector<Index> offsets(n), ends(n);
  std::map<std::vector<uint32_t>, Index> bases;
  std::vector<bool> isBelow(n, false);
  for (uint32_t i : plan.order) {
    auto [it, inserted] =
        bases.try_emplace(plan.below[i], IndexBuilder::constant(0));
    if (inserted)
      for (uint32_t j : plan.below[i]) {
        it->second = ib.max(it->second, ends[j]);
        isBelow[j] = true;
      }
    offsets[i] = ib.alignUp(it->second, items[i].alignment);
    ends[i] = ib.add(offsets[i], occupied[i]);
  }
  // Whatever lies below another item ends below that item's end.
  Index arena = IndexBuilder::constant(0);
  for (uint32_t i : plan.order)
    if (!isBelow[i])
      arena = ib.max(arena, ends[i]);
  return {offsets, arena};
}

std::string describePoint(const SymbolicSizes &sizes, ArrayRef<uint64_t> values,
                          ArrayRef<bool> used) {
  std::string text;
  for (auto [k, symbol] : llvm::enumerate(sizes.getSymbols()))
    if (used[k])
      text += (text.empty() ? "" : ",") + symbol.name + "=" +
              std::to_string(values[k]);
  return text.empty() ? std::string("(no symbols)") : text;
}

/// One planned buffer.
struct Buffer {
  size_t root;
  memref::AllocOp alloc;
  AffineExpr bytes;
  uint64_t alignment;
};
} // namespace

LogicalResult mlir::memplan::packSymbolicFunction(
    FunctionOpInterface func, const FunctionLifetimes &lifetimes,
    ArrayRef<Attribute> spaces,
    const DenseMap<Attribute, std::vector<size_t>> &plannedBySpace,
    const SymbolicSizes &sizes, const DenseMap<size_t, AffineExpr> &bytesOfRoot,
    const SymbolicArenaConfig &config, std::vector<ReportFunction> &reports) {
  ArrayRef<Root> roots = lifetimes.getRoots();
  ArrayRef<SizeSymbol> symbols = sizes.getSymbols();
  SmallVector<SmallVector<Buffer>> bySpace;
  for (Attribute space : spaces) {
    bySpace.emplace_back();
    for (size_t i : plannedBySpace.lookup(space)) {
      auto alloc = roots[i].value.getDefiningOp<memref::AllocOp>();
      bySpace.back().push_back({i, alloc, bytesOfRoot.lookup(i),
                                getBufferAlignment(alloc, config.alignment)});
    }
  }

  // The symbols the sizes use, and the points to plan and report at.
  SmallVector<bool> used(symbols.size(), false);
  for (auto &buffers : bySpace)
    for (Buffer &buffer : buffers)
      buffer.bytes.walk([&](AffineExpr e) {
        if (auto s = dyn_cast<AffineSymbolExpr>(e))
          used[s.getPosition()] = true;
      });
  std::string missingBounds;
  for (auto [k, symbol] : llvm::enumerate(symbols))
    if (used[k] && !symbol.bound)
      missingBounds += (missingBounds.empty() ? "" : ", ") + symbol.name;
  if (config.bounded && !missingBounds.empty())
    return func.emitError("memplan-pack-arena: bounded=true needs a bound for "
                          "every symbol of @")
           << func.getName() << "; missing: " << missingBounds
           << " (give `memplan.bounds = {"
           << missingBounds.substr(0, missingBounds.find(','))
           << " = N : i64}` on the function or the option bounds="
           << missingBounds.substr(0, missingBounds.find(',')) << "=N)";
  // Representative: the bound, else the first eval point naming the symbol,
  // else 64.
  SmallVector<uint64_t> representative;
  for (const SizeSymbol &symbol : symbols) {
    uint64_t value = 64;
    if (symbol.bound) {
      value = *symbol.bound;
    } else {
      for (const auto &point : config.evalPoints)
        if (auto it = point.find(symbol.name); it != point.end()) {
          value = it->second;
          break;
        }
    }
    representative.push_back(value);
  }
  struct Point {
    std::string label;
    SmallVector<uint64_t> values;
  };
  SmallVector<Point> points{
      {config.bounded ? "bounds" : "representative", representative}};
  if (!config.bounded && missingBounds.empty() &&
      llvm::any_of(used, [](bool u) { return u; })) {
    SmallVector<uint64_t> bounds;
    for (auto [k, symbol] : llvm::enumerate(symbols))
      bounds.push_back(symbol.bound.value_or(representative[k]));
    if (bounds != representative)
      points.push_back({"bounds", bounds});
  }
  for (const auto &point : config.evalPoints) {
    SmallVector<uint64_t> values(representative);
    bool complete = true;
    for (auto [k, symbol] : llvm::enumerate(symbols)) {
      auto it = point.find(symbol.name);
      if (it != point.end())
        values[k] = it->second;
      else if (used[k])
        complete = false;
    }
    if (complete && llvm::none_of(points, [&](const Point &p) {
          return p.values == values;
        }))
      points.push_back({"eval", values});
  }

  // Ordered plans are packed at the representative point and at points
  // 8 and 64 times smaller (each symbol divided, at least 1): a plan
  // packed for large sizes can place small ones poorly (docs/Packing.md).
  SmallVector<SmallVector<uint64_t>> orderedPoints;
  for (uint64_t divisor : {1, 8, 64}) {
    SmallVector<uint64_t> at;
    for (uint64_t v : points.front().values)
      at.push_back(std::max<uint64_t>(1, v / divisor));
    if (divisor == 1)
      at = points.front().values;
    if (llvm::find(orderedPoints, at) == orderedPoints.end())
      orderedPoints.push_back(at);
  }

  // The occupied bytes of every buffer at a point.
  auto occupiedAt = [&](ArrayRef<Buffer> buffers, ArrayRef<uint64_t> values,
                        bool mustWork) -> std::optional<std::vector<uint64_t>> {
    std::vector<uint64_t> occupied;
    SmallVector<int64_t> signedValues;
    for (uint64_t v : values)
      signedValues.push_back(static_cast<int64_t>(
          std::min<uint64_t>(v, static_cast<uint64_t>(INT64_MAX))));
    for (const Buffer &buffer : buffers) {
      // A negative size belongs to an allocation that does not run at these
      // sizes (under an scf.if): it occupies nothing, as at run time.
      std::optional<int64_t> bytes =
          evaluateAffineSymbols(buffer.bytes, signedValues);
      std::optional<uint64_t> padded =
          bytes ? llvm::checkedAddUnsigned(
                      static_cast<uint64_t>(std::max<int64_t>(*bytes, 0)),
                      buffer.alignment - 1)
                : std::nullopt;
      if (!padded || *padded > kMaxTotalBytes) {
        if (mustWork)
          memref::AllocOp(buffer.alloc)
                  .emitError("memplan-pack-arena: the size of this "
                             "buffer, ")
              << sizes.print(buffer.bytes)
              << " bytes, does not fit an index at "
              << describePoint(sizes, values, used);
        return std::nullopt;
      }
      occupied.push_back(llvm::alignDown(*padded, buffer.alignment));
    }
    return occupied;
  };

  MLIRContext *ctx = func.getContext();
  Block &entry = func.getFunctionBody().front();
  OpBuilder b(ctx);
  b.setInsertionPointToStart(&entry);
  Location loc = func.getLoc();
  IndexBuilder ib(b, loc);
  SmallVector<Value> symbolValues;
  if (!config.bounded)
    symbolValues = sizes.materializeSymbols(b, loc, used);

  for (auto [s, space] : llvm::enumerate(spaces)) {
    ArrayRef<Buffer> buffers = bySpace[s];
    std::vector<SymbolicItem> items;
    uint64_t arenaAlignment = config.alignment;
    uint64_t staticTotal = 0;
    for (const Buffer &buffer : buffers) {
      items.push_back({roots[buffer.root].live, buffer.alignment});
      arenaAlignment = std::max(arenaAlignment, buffer.alignment);
      if (auto c = dyn_cast<AffineConstantExpr>(buffer.bytes)) {
        // (A negative constant size is an allocation that never runs: 0.)
        std::optional<uint64_t> sum = llvm::checkedAddUnsigned(
            staticTotal,
            static_cast<uint64_t>(std::max<int64_t>(c.getValue(), 0)) +
                buffer.alignment);
        if (!sum || *sum > kMaxTotalBytes)
          return memref::AllocOp(buffer.alloc)
              .emitError(
                  "memplan-pack-arena: the static buffers up to this one total "
                  "more than 2^63-1 bytes: the arena's size would not fit an "
                  "index");
        staticTotal = *sum;
      }
    }
    std::optional<std::vector<uint64_t>> repOccupied =
        occupiedAt(buffers, points.front().values, /*mustWork=*/true);
    if (!repOccupied)
      return failure();

    ReportFunction report;
    report.name = qualifiedFunctionName(func);
    if (space)
      report.memorySpace = describeMemorySpace(space);
    report.alignment = arenaAlignment;
    report.algorithm = stringifyPackAlgorithm(config.pack.algorithm).str();
    SymbolicReport symbolic;
    symbolic.mode = config.bounded ? "bounded" : "symbolic";
    symbolic.algorithm = stringifySymbolicAlgorithm(config.algorithm).str();
    for (auto [k, symbol] : llvm::enumerate(symbols)) {
      if (!used[k])
        continue;
      std::string source =
          symbol.dim ? "dim " + std::to_string(*symbol.dim) + " of argument " +
                           std::to_string(symbol.arg.getArgNumber())
                     : "argument " + std::to_string(symbol.arg.getArgNumber());
      symbolic.symbols.push_back(
          {symbol.name, source, symbol.bound, symbol.boundSource});
    }

    // The plans.
    std::vector<uint64_t> finalOffsets;
    uint64_t finalArena = 0;
    // The candidate plans (symbolic mode): ordered plans packed at the
    // representative point and at smaller ones, then tract's partitions;
    // duplicates dropped. The one with the smallest arena runs.
    std::vector<SymbolicPlan> plans;
    size_t numOrdered = 0;
    std::vector<PackItem> boundItems;
    PackResult bounded;
    if (config.bounded) {
      for (auto [k, item] : llvm::enumerate(items))
        boundItems.push_back(
            {item.live, std::max<uint64_t>((*repOccupied)[k], item.alignment),
             item.alignment});
      if (!boundItems.empty())
        bounded = pack(boundItems, config.pack);
      finalOffsets = bounded.offsets;
      finalArena = bounded.arena;
    } else {
      auto add = [&](SymbolicPlan plan) {
        if (llvm::none_of(plans, [&](const SymbolicPlan &p) {
              return p.below == plan.below && p.order == plan.order;
            }))
          plans.push_back(std::move(plan));
      };
      if (config.algorithm != SymbolicAlgorithm::Partitions)
        for (const SmallVector<uint64_t> &at : orderedPoints) {
          std::optional<std::vector<uint64_t>> occupied =
              occupiedAt(buffers, at, /*mustWork=*/false);
          if (occupied)
            add(planOrdered(items, *occupied, config.pack));
        }
      numOrdered = plans.size();
      if (config.algorithm != SymbolicAlgorithm::Ordered)
        add(planPartitions(items, *repOccupied));
    }
    // What the emitted code computes at given occupied sizes (0 on
    // overflow).
    auto arenaOf = [&](const SymbolicPlan &plan,
                       ArrayRef<uint64_t> occupied) -> uint64_t {
      auto placement = evaluateSymbolicPlan(plan, items, occupied);
      return placement ? placement->arena : 0;
    };
    // The plan that runs at these sizes: the first with the smallest arena,
    // as the emitted selection picks it.
    auto chosenAt = [&](ArrayRef<uint64_t> occupied) -> const SymbolicPlan & {
      size_t best = 0;
      for (size_t k = 1; k < plans.size(); ++k)
        if (arenaOf(plans[k], occupied) < arenaOf(plans[best], occupied))
          best = k;
      return plans[best];
    };
    // tract's partitions, for the report's comparison.
    SymbolicPlan tract = planPartitions(items, *repOccupied);
    if (!config.bounded) {
      auto placement =
          evaluateSymbolicPlan(chosenAt(*repOccupied), items, *repOccupied);
      if (!placement)
        return func.emitError("memplan-pack-arena: the arena of @")
               << func.getName() << " overflows 64 bits at "
               << describePoint(sizes, points.front().values, used);
      finalOffsets = placement->offsets;
      finalArena = placement->arena;
    }

    for (const Point &point : points) {
      std::optional<std::vector<uint64_t>> occupied =
          occupiedAt(buffers, point.values, /*mustWork=*/false);
      if (!occupied)
        continue;
      ReportPoint rp;
      rp.label = point.label;
      for (auto [k, symbol] : llvm::enumerate(symbols))
        if (used[k])
          rp.values.push_back({symbol.name, point.values[k]});
      std::vector<PackItem> packItems;
      for (auto [k, item] : llvm::enumerate(items))
        if ((*occupied)[k] > 0)
          packItems.push_back({item.live, (*occupied)[k], item.alignment});
      rp.lowerBoundBytes = packLowerBound(packItems);
      if (!packItems.empty())
        rp.staticBytes = pack(packItems, config.pack).arena;
      if (config.bounded) {
        rp.arenaBytes = finalArena;
      } else {
        rp.partitionsBytes = arenaOf(tract, *occupied);
        for (size_t k = 0; k < numOrdered; ++k) {
          uint64_t bytes = arenaOf(plans[k], *occupied);
          rp.orderedBytes =
              k == 0 ? bytes : std::min<uint64_t>(rp.orderedBytes, bytes);
        }
        rp.arenaBytes = arenaOf(chosenAt(*occupied), *occupied);
      }
      symbolic.points.push_back(std::move(rp));
    }
    report.arenaBytes = finalArena;
    {
      std::vector<PackItem> packItems;
      for (auto [k, item] : llvm::enumerate(items))
        if ((*repOccupied)[k] > 0)
          packItems.push_back({item.live, (*repOccupied)[k], item.alignment});
      report.lowerBoundBytes = packLowerBound(packItems);
    }
    report.provenLowerBoundBytes = report.lowerBoundBytes;
    report.optimal = finalArena == report.lowerBoundBytes;
    // A budget holds at the bounds (memplan-insert-remat sized the step
    // there): say so here rather than leave it to the verifier.
    if (IntegerAttr budget =
            MemplanDialect::BudgetAttrHelper(func.getContext()).getAttr(func);
        budget && missingBounds.empty()) {
      SmallVector<uint64_t> atBounds;
      for (auto [k, symbol] : llvm::enumerate(symbols))
        atBounds.push_back(symbol.bound.value_or(representative[k]));
      std::optional<std::vector<uint64_t>> occupied =
          occupiedAt(buffers, atBounds, /*mustWork=*/false);
      uint64_t arenaAtBounds = config.bounded ? finalArena
                               : occupied
                                   ? arenaOf(chosenAt(*occupied), *occupied)
                                   : 0;
      if (arenaAtBounds > static_cast<uint64_t>(budget.getInt()))
        return func.emitError("memplan-pack-arena: the arena of @")
               << func.getName() << " at the bounds "
               << describePoint(sizes, atBounds, used) << " is "
               << arenaAtBounds << " bytes, over its budget of "
               << budget.getInt() << " bytes";
    }

    if (!buffers.empty()) {
      // The arena and every buffer's offset, at the entry.
      Value arena;
      SmallVector<Value> guardBytes;
      SmallVector<Index> offsets;
      Type i8 = b.getI8Type();
      if (config.bounded) {
        auto arenaType = MemRefType::get(
            {static_cast<int64_t>(std::max<uint64_t>(finalArena, 1))}, i8,
            MemRefLayoutAttrInterface(), space);
        // Every buffer must fit what was planned for it at the bounds:
        // its size is computed here and checked where it is allocated (an
        // allocation that does not run is not checked).
        SmallVector<Value> boundValues = sizes.materializeSymbols(b, loc, used);
        guardBytes.assign(buffers.size(), Value());
        for (auto [k, buffer] : llvm::enumerate(buffers))
          if (!isa<AffineConstantExpr>(buffer.bytes))
            guardBytes[k] = ib.get(ib.clampNonNegative(
                IndexBuilder::value(affine::expandAffineExpr(
                    b, loc, buffer.bytes, ValueRange(), boundValues))));
        arena = ArenaOp::create(b, loc, arenaType,
                                b.getI64IntegerAttr(arenaAlignment), Value());
        for (uint64_t offset : finalOffsets)
          offsets.push_back(IndexBuilder::constant(offset));
      } else {
        SmallVector<Index> occupied;
        for (const Buffer &buffer : buffers) {
          Index bytes;
          if (auto c = dyn_cast<AffineConstantExpr>(buffer.bytes))
            bytes = IndexBuilder::constant(
                static_cast<uint64_t>(std::max<int64_t>(c.getValue(), 0)));
          else
            bytes = ib.clampNonNegative(
                IndexBuilder::value(affine::expandAffineExpr(
                    b, loc, buffer.bytes, ValueRange(), symbolValues)));
          occupied.push_back(ib.alignUp(bytes, buffer.alignment));
        }
        // Every plan, then the smallest arena for the actual sizes (the
        // first on ties).
        Index size;
        for (auto [k, plan] : llvm::enumerate(plans)) {
          auto [planOffsets, planArena] = emitPlan(ib, plan, items, occupied);
          if (k == 0) {
            offsets = planOffsets;
            size = planArena;
            continue;
          }
          if (size.constant && planArena.constant) {
            // Both known (static buffers only): no run-time choice.
            if (*planArena.constant < *size.constant) {
              size = planArena;
              offsets = planOffsets;
            }
            continue;
          }
          Value keep = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                             ib.get(size), ib.get(planArena));
          size = ib.select(keep, size, planArena);
          for (size_t i = 0; i < offsets.size(); ++i)
            offsets[i] = ib.select(keep, offsets[i], planOffsets[i]);
        }
        // Static when every size in it is (a memory space with static
        // buffers only).
        auto arenaType = MemRefType::get(
            {size.constant
                 ? static_cast<int64_t>(std::max<uint64_t>(*size.constant, 1))
                 : ShapedType::kDynamic},
            i8, MemRefLayoutAttrInterface(), space);
        arena = ArenaOp::create(b, loc, arenaType,
                                b.getI64IntegerAttr(arenaAlignment),
                                size.constant ? Value() : ib.get(size));
      }
      // Later entry code goes right before the arena, which stays: the op
      // the builder was anchored before may be an allocation about to be
      // replaced.
      b.setInsertionPoint(arena.getDefiningOp());
      SmallVector<Value> offsetValues;
      for (Index offset : offsets)
        offsetValues.push_back(ib.get(offset));

      for (auto [k, buffer] : llvm::enumerate(buffers)) {
        memref::AllocOp alloc = buffer.alloc;
        uint64_t occupied =
            config.bounded ? boundItems[k].size : (*repOccupied)[k];
        ReportBuffer rb{
            static_cast<int64_t>(k), describeOp(alloc),   occupied,
            finalOffsets[k],         items[k].live.start, items[k].live.end,
            isRecomputed(alloc),     buffer.alignment};
        if (!isa<AffineConstantExpr>(buffer.bytes))
          rb.sizeExpr = sizes.print(buffer.bytes);
        report.buffers.push_back(std::move(rb));
        OpBuilder at(alloc);
        if (config.bounded && guardBytes[k]) {
          Value fits = arith::CmpIOp::create(
              at, alloc.getLoc(), arith::CmpIPredicate::ule, guardBytes[k],
              ib.get(IndexBuilder::constant(occupied)));
          cf::AssertOp::create(
              at, alloc.getLoc(), fits,
              "memplan: a buffer of @" + func.getName().str() + " (" +
                  describeOp(alloc) + ", " + sizes.print(buffer.bytes) +
                  " bytes) needs more than the " + std::to_string(occupied) +
                  " bytes planned at the bounds " +
                  describePoint(sizes, points.front().values, used));
        }
        Value view;
        if (config.bounded && alloc.getType().hasStaticShape())
          view = ViewOp::create(
              at, alloc.getLoc(), alloc.getType(), arena,
              PlacementAttr::get(ctx, static_cast<int64_t>(finalOffsets[k]),
                                 static_cast<int64_t>(occupied),
                                 static_cast<int64_t>(buffer.alignment)));
        else
          view = DynamicViewOp::create(
              at, alloc.getLoc(), alloc.getType(), arena, offsetValues[k],
              alloc.getDynamicSizes(),
              at.getI64IntegerAttr(static_cast<int64_t>(buffer.alignment)));
        alloc.getResult().replaceAllUsesWith(view);
        alloc.erase();
      }
    }
    report.symbolic = std::move(symbolic);
    report.remat = readRematReport(func);
    reports.push_back(std::move(report));
  }
  // Record the bounds the plan used, for memplan-verify-plan.
  SmallVector<NamedAttribute> boundAttrs;
  for (auto [k, symbol] : llvm::enumerate(symbols))
    if (symbol.bound)
      boundAttrs.push_back(b.getNamedAttr(
          symbol.name,
          b.getI64IntegerAttr(static_cast<int64_t>(*symbol.bound))));
  if (!boundAttrs.empty())
    MemplanDialect::BoundsAttrHelper(func.getContext())
        .setAttr(func, b.getDictionaryAttr(boundAttrs));
  return success();
}
