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

#include <cmath>

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
               << "'" << MemplanDialect::getLifetimeAttrName()
               << "' array entries must be #memplan.lifetime or unit";
    return success();
  }
  return emitError() << "'" << MemplanDialect::getLifetimeAttrName()
                     << "' must be a #memplan.lifetime"
                     << (allowArray ? " or an array of them" : "");
}

LogicalResult MemplanDialect::verifyOperationAttribute(Operation *op,
                                                       NamedAttribute attr) {
  if (attr.getName() == getBudgetAttrName()) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || value.getInt() <= 0)
      return op->emitError()
             << "'" << getBudgetAttrName() << "' must be a positive integer";
    return success();
  }
  if (attr.getName() == getHostAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << getHostAttrName()
                             << "' must be a unit attribute on a function";
    return success();
  }
  if (attr.getName() == getUnplannedAttrName()) {
    if (!isa<StringAttr>(attr.getValue()) || !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << getUnplannedAttrName()
                             << "' must be a string attribute on a function";
    return success();
  }
  if (attr.getName() == getCostAttrName()) {
    double cost = -1;
    if (auto f = dyn_cast<FloatAttr>(attr.getValue()))
      cost = f.getValueAsDouble();
    else if (auto i = dyn_cast<IntegerAttr>(attr.getValue());
             i && i.getType().isSignlessInteger())
      cost = static_cast<double>(i.getInt());
    if (!(cost >= 0) || std::isinf(cost))
      return op->emitError() << "'" << getCostAttrName()
                             << "' must be a finite, non-negative number";
    return success();
  }
  if (attr.getName() == getBoundsAttrName()) {
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!dict || !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << getBoundsAttrName()
                             << "' must be a dictionary on a function";
    for (NamedAttribute bound : dict) {
      auto value = dyn_cast<IntegerAttr>(bound.getValue());
      if (!value || !value.getType().isSignlessInteger() || value.getInt() < 0)
        return op->emitError() << "'" << getBoundsAttrName() << "' bound of '"
                               << bound.getName().getValue()
                               << "' must be a non-negative integer";
    }
    return success();
  }
  if (attr.getName() == getRematAttrName()) {
    if (!isa<DictionaryAttr>(attr.getValue()))
      return op->emitError()
             << "'" << getRematAttrName() << "' must be a dictionary";
    return success();
  }
  if (attr.getName() != getLifetimeAttrName())
    return op->emitError() << "unknown memplan attribute '"
                           << attr.getName().getValue() << "'";
  if (failed(verifyLifetimeAnnotation(
          attr.getValue(), [&] { return op->emitError(); }, true)))
    return failure();
  if (auto array = dyn_cast<ArrayAttr>(attr.getValue());
      array && array.size() != op->getNumResults())
    return op->emitError() << "'" << getLifetimeAttrName() << "' has "
                           << array.size() << " entries for "
                           << op->getNumResults() << " results";
  return success();
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
  if (attr.getName() != getLifetimeAttrName())
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
