//===- MemplanDialect.cpp - The memplan dialect ---------------------------===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#include "memplan/IR/MemplanDialect.h"
#include "memplan/IR/MemplanAttrs.h"
#include "memplan/IR/MemplanOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdlib>

using namespace mlir;
using namespace mlir::memplan;

#include "memplan/IR/MemplanOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "memplan/IR/MemplanAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "memplan/IR/MemplanOps.cpp.inc"

void MemplanDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "memplan/IR/MemplanAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "memplan/IR/MemplanOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Storage sizes
//===----------------------------------------------------------------------===//

std::optional<uint64_t>
mlir::memplan::getElementStorageBytes(Type type, const DataLayout &layout) {
  if (auto complex = dyn_cast<ComplexType>(type)) {
    std::optional<uint64_t> part =
        getElementStorageBytes(complex.getElementType(), layout);
    if (!part || *part > UINT64_MAX / 2)
      return std::nullopt;
    return 2 * *part;
  }
  // Only ask the layout about types it can size: it aborts on others.
  if (auto vector = dyn_cast<VectorType>(type)) {
    if (vector.isScalable() ||
        !isa<IntegerType, FloatType, IndexType>(vector.getElementType()))
      return std::nullopt;
  } else if (!isa<IntegerType, FloatType, IndexType, DataLayoutTypeInterface>(
                 type)) {
    return std::nullopt;
  }
  llvm::TypeSize size = layout.getTypeSize(type);
  if (size.isScalable() || size.getFixedValue() == 0)
    return std::nullopt;
  uint64_t alignment = std::max<uint64_t>(layout.getTypeABIAlignment(type), 1);
  uint64_t bytes = llvm::alignTo(size.getFixedValue(), alignment);
  if (type.isIntOrFloat())
    bytes = std::max<uint64_t>(bytes, llvm::PowerOf2Ceil(llvm::divideCeil(
                                          type.getIntOrFloatBitWidth(), 8)));
  return bytes;
}

std::string mlir::memplan::describeMemorySpace(Attribute space) {
  if (!space)
    return "default";
  if (auto number = dyn_cast<IntegerAttr>(space))
    return std::to_string(number.getInt());
  std::string text;
  llvm::raw_string_ostream os(text);
  space.print(os);
  return text;
}

std::optional<uint64_t>
mlir::memplan::getStaticStorageBytes(ShapedType type,
                                     const DataLayout &layout) {
  if (!type.hasRank() || !type.hasStaticShape())
    return std::nullopt;
  std::optional<uint64_t> bytes =
      getElementStorageBytes(type.getElementType(), layout);
  if (!bytes)
    return std::nullopt;
  uint64_t total = *bytes;
  for (int64_t dim : type.getShape()) {
    if (dim < 0)
      return std::nullopt;
    if (dim != 0 && total > UINT64_MAX / static_cast<uint64_t>(dim))
      return std::nullopt;
    total *= static_cast<uint64_t>(dim);
  }
  return total;
}

//===----------------------------------------------------------------------===//
// Discardable attributes
//===----------------------------------------------------------------------===//

static LogicalResult
verifyLifetimeAnnotation(Attribute value,
                         function_ref<InFlightDiagnostic()> emitError,
                         bool allowArray) {
  if (isa<LifetimeAttr>(value))
    return success();
  if (auto array = dyn_cast<ArrayAttr>(value); array && allowArray) {
    for (Attribute entry : array)
      if (!isa<LifetimeAttr, UnitAttr>(entry))
        return emitError()
               << "'" << MemplanDialect::LifetimeAttrHelper::getNameStr()
               << "' array entries must be #memplan.lifetime or unit";
    return success();
  }
  return emitError() << "'" << MemplanDialect::LifetimeAttrHelper::getNameStr()
                     << "' must be a #memplan.lifetime"
                     << (allowArray ? " or an array of them" : "");
}

LogicalResult MemplanDialect::verifyOperationAttribute(Operation *op,
                                                       NamedAttribute attr) {
  if (attr.getName() == BudgetAttrHelper::getNameStr()) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || !value.getType().isSignlessInteger() ||
        !value.getValue().isSignedIntN(64) || value.getInt() <= 0 ||
        !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << BudgetAttrHelper::getNameStr()
                             << "' must be a positive integer on a function";
    return success();
  }
  if (attr.getName() == HostAttrHelper::getNameStr()) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << HostAttrHelper::getNameStr()
                             << "' must be a unit attribute on a function";
    return success();
  }
  if (attr.getName() == UnplannedAttrHelper::getNameStr()) {
    if (!isa<StringAttr>(attr.getValue()) || !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << UnplannedAttrHelper::getNameStr()
                             << "' must be a string attribute on a function";
    return success();
  }
  if (attr.getName() == CostAttrHelper::getNameStr()) {
    double cost = -1;
    if (auto f = dyn_cast<FloatAttr>(attr.getValue()))
      cost = f.getValueAsDouble();
    else if (auto i = dyn_cast<IntegerAttr>(attr.getValue());
             i && i.getType().isSignlessInteger())
      cost = static_cast<double>(i.getInt());
    if (!(cost >= 0) || std::isinf(cost))
      return op->emitError() << "'" << CostAttrHelper::getNameStr()
                             << "' must be a finite, non-negative number";
    return success();
  }
  if (attr.getName() == BoundsAttrHelper::getNameStr()) {
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!dict || !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << BoundsAttrHelper::getNameStr()
                             << "' must be a dictionary on a function";
    for (NamedAttribute bound : dict) {
      auto value = dyn_cast<IntegerAttr>(bound.getValue());
      if (!value || !value.getType().isSignlessInteger() ||
          !value.getValue().isSignedIntN(64) || value.getInt() < 0)
        return op->emitError() << "'" << BoundsAttrHelper::getNameStr()
                               << "' bound of '" << bound.getName().getValue()
                               << "' must be a non-negative integer";
    }
    return success();
  }
  if (attr.getName() == RematAttrHelper::getNameStr()) {
    if (!isa<RematAttr>(attr.getValue()) || !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << RematAttrHelper::getNameStr()
                             << "' must be a #memplan.remat on a function";
    return success();
  }
  if (attr.getName() != LifetimeAttrHelper::getNameStr())
    return op->emitError() << "unknown memplan attribute '"
                           << attr.getName().getValue() << "'";
  if (failed(verifyLifetimeAnnotation(
          attr.getValue(), [&] { return op->emitError(); }, true)))
    return failure();
  if (auto array = dyn_cast<ArrayAttr>(attr.getValue());
      array && array.size() != op->getNumResults())
    return op->emitError() << "'" << LifetimeAttrHelper::getNameStr()
                           << "' has " << array.size() << " entries for "
                           << op->getNumResults() << " results";
  return success();
}

LogicalResult MemplanDialect::verifyRegionResultAttribute(Operation *op,
                                                          unsigned regionIndex,
                                                          unsigned resultIndex,
                                                          NamedAttribute attr) {
  return op->emitError() << "unknown memplan result attribute '"
                         << attr.getName().getValue() << "'";
}

LogicalResult MemplanDialect::verifyRegionArgAttribute(Operation *op,
                                                       unsigned regionIndex,
                                                       unsigned argIndex,
                                                       NamedAttribute attr) {
  if (attr.getName() == getSymbolsAttrName()) {
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (!func || regionIndex != 0 || func.isExternal() ||
        argIndex >= func.getNumArguments())
      return op->emitError() << "'" << getSymbolsAttrName()
                             << "' must be on an argument of a function";
    Type type = func.getArgument(argIndex).getType();
    auto isName = [](Attribute a) { return isa<StringAttr>(a); };
    auto names = dyn_cast<ArrayAttr>(attr.getValue());
    if (type.isIndex() && !isName(attr.getValue()))
      return op->emitError() << "'" << getSymbolsAttrName()
                             << "' of an index argument must be a string";
    auto shaped = dyn_cast<ShapedType>(type);
    if (shaped && shaped.hasRank() &&
        (!names || static_cast<int64_t>(names.size()) != shaped.getRank() ||
         !llvm::all_of(names, isName)))
      return op->emitError()
             << "'" << getSymbolsAttrName()
             << "' of a ranked shaped argument must be an array of one "
                "string per dimension";
    // Other types (what the lowering to LLVM makes of an index or a
    // memref): a name or names, no longer read.
    if (!isName(attr.getValue()) && !(names && llvm::all_of(names, isName)))
      return op->emitError() << "'" << getSymbolsAttrName()
                             << "' must be a string or an array of strings";
    return success();
  }
  if (attr.getName() != LifetimeAttrHelper::getNameStr())
    return op->emitError() << "unknown memplan argument attribute '"
                           << attr.getName().getValue() << "'";
  return verifyLifetimeAnnotation(
      attr.getValue(), [&] { return op->emitError(); }, false);
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

LogicalResult LifetimeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   int64_t start, int64_t end) {
  if (start < 0)
    return emitError() << "lifetime start must be non-negative, got " << start;
  if (start >= end)
    return emitError() << "lifetime must be non-empty: start (" << start
                       << ") must be less than end (" << end << ")";
  return success();
}

LogicalResult
PlacementAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      int64_t offset, int64_t size, int64_t alignment) {
  if (offset < 0)
    return emitError() << "placement offset must be non-negative, got "
                       << offset;
  if (size <= 0)
    return emitError() << "placement size must be positive, got " << size;
  if (alignment <= 0 || !llvm::isPowerOf2_64(alignment))
    return emitError() << "placement alignment must be a power of two, got "
                       << alignment;
  if (offset % alignment != 0)
    return emitError() << "placement offset " << offset
                       << " is not a multiple of its alignment " << alignment;
  if (offset > INT64_MAX - size)
    return emitError() << "placement end overflows 64 bits";
  return success();
}

/// A finite, non-negative cost; `what` names it in the error.
static LogicalResult verifyCost(function_ref<InFlightDiagnostic()> emitError,
                                const APFloat &cost, StringRef what) {
  double value = cost.convertToDouble();
  if (!(value >= 0) || std::isinf(value))
    return emitError() << what << " must be finite and non-negative, got "
                       << value;
  return success();
}

LogicalResult
RematDecisionAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          StringRef value, bool recompute, int64_t bytes,
                          APFloat cost) {
  if (bytes < 0)
    return emitError() << "remat decision bytes must be non-negative, got "
                       << bytes;
  if (&cost.getSemantics() != &APFloat::IEEEdouble())
    return emitError() << "remat decision cost must be a double";
  return verifyCost(emitError, cost, "remat decision cost");
}

/// Prints a finite double in the fewest significant digits that read back
/// exactly, always with a point (`10.0`, `0.25`, `1.0e+300`).
static void printExactDouble(AsmPrinter &printer, const APFloat &value) {
  double v = value.convertToDouble();
  std::string text;
  for (int digits = 1; digits <= 17; ++digits) {
    text = llvm::formatv("{0}", llvm::format("%.*g", digits, v)).str();
    if (std::strtod(text.c_str(), nullptr) == v)
      break;
  }
  // MLIR's float literals need a point before any exponent.
  if (text.find('.') == std::string::npos) {
    size_t e = text.find('e');
    text.insert(e == std::string::npos ? text.size() : e, ".0");
  }
  printer << text;
}

/// Parses `<name> = <float>` into a double APFloat.
static ParseResult parseNamedFloat(AsmParser &parser, StringRef name,
                                   APFloat &result) {
  double value = 0;
  if (parser.parseKeyword(name) || parser.parseEqual() ||
      parser.parseFloat(value))
    return failure();
  result = APFloat(value);
  return success();
}

/// `<keep|recompute, "value", bytes = N, cost = F>`
Attribute RematDecisionAttr::parse(AsmParser &parser, Type) {
  StringRef kind;
  std::string value;
  int64_t bytes = 0;
  APFloat cost(0.0);
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword(&kind) || parser.parseComma() ||
      parser.parseString(&value) || parser.parseComma() ||
      parser.parseKeyword("bytes") || parser.parseEqual() ||
      parser.parseInteger(bytes) || parser.parseComma() ||
      parseNamedFloat(parser, "cost", cost) || parser.parseGreater())
    return {};
  if (kind != "keep" && kind != "recompute") {
    parser.emitError(loc, "expected 'keep' or 'recompute', got '")
        << kind << "'";
    return {};
  }
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    value, kind == "recompute", bytes, cost);
}

void RematDecisionAttr::print(AsmPrinter &printer) const {
  printer << "<" << (getRecompute() ? "recompute" : "keep") << ", ";
  printer.printString(getValue());
  printer << ", bytes = " << getBytes() << ", cost = ";
  printExactDouble(printer, getCost());
  printer << ">";
}

LogicalResult RematAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                int64_t budget, APFloat recomputeCost,
                                APFloat baselineCost,
                                ArrayRef<RematDecisionAttr> decisions) {
  if (budget < 0)
    return emitError() << "remat budget must be non-negative, got " << budget;
  if (&recomputeCost.getSemantics() != &APFloat::IEEEdouble() ||
      &baselineCost.getSemantics() != &APFloat::IEEEdouble())
    return emitError() << "remat costs must be doubles";
  if (failed(verifyCost(emitError, recomputeCost, "remat recompute_cost")) ||
      failed(verifyCost(emitError, baselineCost, "remat baseline_cost")))
    return failure();
  if (llvm::any_of(decisions, [](RematDecisionAttr d) { return !d; }))
    return emitError() << "remat decisions must be #memplan.remat_decision";
  return success();
}

/// `<budget = N, recompute_cost = F, baseline_cost = F, decisions = [...]>`
Attribute RematAttr::parse(AsmParser &parser, Type) {
  int64_t budget = 0;
  APFloat recomputeCost(0.0), baselineCost(0.0);
  SmallVector<RematDecisionAttr> decisions;
  SMLoc loc = parser.getCurrentLocation();
  auto parseDecision = [&]() -> ParseResult {
    SMLoc at = parser.getCurrentLocation();
    Attribute entry;
    if (parser.parseAttribute(entry))
      return failure();
    auto decision = dyn_cast<RematDecisionAttr>(entry);
    if (!decision)
      return parser.emitError(at, "expected #memplan.remat_decision");
    decisions.push_back(decision);
    return success();
  };
  if (parser.parseLess() || parser.parseKeyword("budget") ||
      parser.parseEqual() || parser.parseInteger(budget) ||
      parser.parseComma() ||
      parseNamedFloat(parser, "recompute_cost", recomputeCost) ||
      parser.parseComma() ||
      parseNamedFloat(parser, "baseline_cost", baselineCost) ||
      parser.parseComma() || parser.parseKeyword("decisions") ||
      parser.parseEqual() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                     parseDecision) ||
      parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    budget, recomputeCost, baselineCost, decisions);
}

void RematAttr::print(AsmPrinter &printer) const {
  printer << "<budget = " << getBudget() << ", recompute_cost = ";
  printExactDouble(printer, getRecomputeCost());
  printer << ", baseline_cost = ";
  printExactDouble(printer, getBaselineCost());
  printer << ", decisions = [";
  llvm::interleaveComma(getDecisions(), printer, [&](RematDecisionAttr d) {
    printer.printAttribute(d);
  });
  printer << "]>";
}

//===----------------------------------------------------------------------===//
// ArenaOp
//===----------------------------------------------------------------------===//

LogicalResult ArenaOp::verify() {
  MemRefType type = getType();
  if (isDynamic()) {
    if (type.hasStaticShape())
      return emitOpError("an arena with a run-time size must have type "
                         "memref<?xi8>, got ")
             << type;
  } else if (!type.hasStaticShape() || type.getDimSize(0) <= 0) {
    return emitOpError("arena must have a static, positive size (or a "
                       "run-time `size` operand), got ")
           << type;
  }
  if (!type.getLayout().isIdentity())
    return emitOpError("arena must have the identity layout");
  int64_t alignment = getAlignment();
  if (alignment <= 0 || !llvm::isPowerOf2_64(alignment))
    return emitOpError("alignment must be a power of two, got ") << alignment;
  return success();
}

//===----------------------------------------------------------------------===//
// ViewOp
//===----------------------------------------------------------------------===//

/// What every view's result needs, whatever its offset: the identity
/// layout, an element type the data layout can size, the arena's memory
/// space. Returns the element's storage bytes.
static FailureOr<uint64_t> verifyViewResult(Operation *op, MemRefType type,
                                            MemRefType arenaType) {
  if (!type.getLayout().isIdentity())
    return op->emitOpError("result must have the identity layout, got ")
           << type;
  std::optional<uint64_t> elementBytes =
      getElementStorageBytes(type.getElementType(), DataLayout::closest(op));
  if (!elementBytes)
    return op->emitOpError("element type ")
           << type.getElementType() << " has no storage size";
  if (arenaType.getMemorySpace() != type.getMemorySpace())
    return op->emitOpError("result memory space ")
           << describeMemorySpace(type.getMemorySpace())
           << " differs from its arena's ("
           << describeMemorySpace(arenaType.getMemorySpace()) << ")";
  return *elementBytes;
}

LogicalResult ViewOp::verify() {
  MemRefType type = getType();
  MemRefType arenaType = getArena().getType();
  FailureOr<uint64_t> elementBytes =
      verifyViewResult(getOperation(), type, arenaType);
  if (failed(elementBytes))
    return failure();
  std::optional<uint64_t> bytes =
      getStaticStorageBytes(type, DataLayout::closest(*this));
  if (!bytes)
    return emitOpError("result size overflows 64 bits");
  PlacementAttr placement = getPlacement();
  uint64_t offset = placement.getOffset();
  uint64_t size = placement.getSize();
  if (offset % *elementBytes != 0)
    return emitOpError("offset ")
           << offset << " is not aligned for element type "
           << type.getElementType() << " (" << *elementBytes << " bytes)";
  if (size < *bytes)
    return emitOpError("placement reserves ")
           << size << " bytes but the view needs " << *bytes;
  if (arenaType.hasStaticShape() &&
      offset + size > static_cast<uint64_t>(arenaType.getDimSize(0)))
    return emitOpError("placed bytes [")
           << offset << ", " << offset + size << ") exceed the arena of "
           << arenaType.getDimSize(0) << " bytes";
  return success();
}

//===----------------------------------------------------------------------===//
// DynamicViewOp
//===----------------------------------------------------------------------===//

LogicalResult DynamicViewOp::verify() {
  MemRefType type = getType();
  FailureOr<uint64_t> elementBytes =
      verifyViewResult(getOperation(), type, getArena().getType());
  if (failed(elementBytes))
    return failure();
  if (getSizes().size() != static_cast<size_t>(type.getNumDynamicDims()))
    return emitOpError("expected ") << type.getNumDynamicDims() << " sizes for "
                                    << type << ", got " << getSizes().size();
  int64_t alignment = getAlignment();
  if (alignment <= 0 || !llvm::isPowerOf2_64(alignment) ||
      static_cast<uint64_t>(alignment) < *elementBytes)
    return emitOpError("alignment must be a power of two of at least the "
                       "element's ")
           << *elementBytes << " bytes, got " << alignment;
  return success();
}

//===----------------------------------------------------------------------===//
// RecomputeOp
//===----------------------------------------------------------------------===//

void RecomputeOp::getSuccessorRegions(
    RegionBranchPoint point, SmallVectorImpl<RegionSuccessor> &regions) {
  if (point.isParent()) {
    regions.push_back(RegionSuccessor(&getBody(), getBody().getArguments()));
    return;
  }
  regions.push_back(RegionSuccessor(getOperation(), getResults()));
}

OperandRange RecomputeOp::getEntrySuccessorOperands(RegionSuccessor successor) {
  return getInputs();
}
