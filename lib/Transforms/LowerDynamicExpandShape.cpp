//===- LowerDynamicExpandShape.cpp - Several dynamic dims per group -------===//
//
// Part of memplan. Works around llvm/llvm-project#186830 (LLVM 22): upstream
// expand-strided-metadata crashes on a memref.expand_shape with more than one
// dynamic output dimension in a reassociation group.
//
//===----------------------------------------------------------------------===//

#include "memplan/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace memplan {
#define GEN_PASS_DEF_LOWERDYNAMICEXPANDSHAPEPASS
#include "memplan/Transforms/Passes.h.inc"
} // namespace memplan
} // namespace mlir

using namespace mlir;
using namespace mlir::memplan;

namespace {
/// Whether some reassociation group of `op` has two dynamic output sizes.
static bool hasSeveralDynamicPerGroup(memref::ExpandShapeOp op) {
  MemRefType result = op.getResultType();
  for (const ReassociationIndices &group : op.getReassociationIndices())
    if (llvm::count_if(group,
                       [&](int64_t d) { return result.isDynamicDim(d); }) > 1)
      return true;
  return false;
}

/// a * b as an index, folded when both are constants (checked: a product
/// that overflows stays a run-time multiplication).
static OpFoldResult multiply(OpBuilder &b, Location loc, OpFoldResult a,
                             OpFoldResult c) {
  std::optional<int64_t> x = getConstantIntValue(a), y = getConstantIntValue(c);
  if (x && y) {
    int64_t product = 0;
    if (!llvm::MulOverflow(*x, *y, product))
      return b.getIndexAttr(product);
  }
  if (x && *x == 1)
    return c;
  if (y && *y == 1)
    return a;
  return arith::MulIOp::create(b, loc,
                               getValueOrCreateConstantIndexOp(b, loc, a),
                               getValueOrCreateConstantIndexOp(b, loc, c))
      .getResult();
}

/// An OpFoldResult matching what `type` says statically: its constant where
/// the type has one, else the value.
static OpFoldResult asTyped(OpBuilder &b, Location loc, int64_t typed,
                            OpFoldResult value) {
  if (!ShapedType::isDynamic(typed))
    return b.getIndexAttr(typed);
  return getValueOrCreateConstantIndexOp(b, loc, value);
}

struct LowerDynamicExpandShapePass
    : public memplan::impl::LowerDynamicExpandShapePassBase<
          LowerDynamicExpandShapePass> {
  void runOnOperation() override {
    SmallVector<memref::ExpandShapeOp> ops;
    getOperation()->walk([&](memref::ExpandShapeOp op) {
      if (hasSeveralDynamicPerGroup(op))
        ops.push_back(op);
    });
    for (memref::ExpandShapeOp op : ops)
      if (failed(lower(op)))
        return signalPassFailure();
  }

  static LogicalResult lower(memref::ExpandShapeOp op) {
    Location loc = op.getLoc();
    MemRefType result = op.getResultType();
    SmallVector<int64_t> resultStrides;
    int64_t resultOffset = 0;
    if (failed(result.getStridesAndOffset(resultStrides, resultOffset)))
      return op.emitError("memplan cannot lower this 'memref.expand_shape': "
                          "its result layout is not strided");
    IRRewriter rewriter(op.getContext());
    rewriter.setInsertionPoint(op);
    auto metadata =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, op.getSrc());
    SmallVector<OpFoldResult> sourceStrides =
        metadata.getConstifiedMixedStrides();
    OpFoldResult sourceOffset = metadata.getConstifiedMixedOffset();
    SmallVector<OpFoldResult> sizes = op.getMixedOutputShape();
    SmallVector<OpFoldResult> strides(result.getRank());
    for (auto [k, group] : llvm::enumerate(op.getReassociationIndices())) {
      // Innermost first: each dimension's stride is the source dimension's
      // times the sizes inner to it in the group.
      OpFoldResult stride = sourceStrides[k];
      for (int64_t d : llvm::reverse(group)) {
        strides[d] = stride;
        if (d != group.front())
          stride = multiply(rewriter, loc, stride, sizes[d]);
      }
    }
    // What the result type states statically must be what the source
    // gives; the rest is passed as values.
    for (auto [d, stride] : llvm::enumerate(strides)) {
      std::optional<int64_t> known = getConstantIntValue(stride);
      if (!ShapedType::isDynamic(resultStrides[d]) && known != resultStrides[d])
        return op.emitError("memplan cannot lower this 'memref.expand_shape': "
                            "its result layout has strides or an offset "
                            "other than the source's give");
      stride = asTyped(rewriter, loc, resultStrides[d], stride);
    }
    std::optional<int64_t> knownOffset = getConstantIntValue(sourceOffset);
    if (!ShapedType::isDynamic(resultOffset) && knownOffset != resultOffset)
      return op.emitError("memplan cannot lower this 'memref.expand_shape': "
                          "its result layout has strides or an offset other "
                          "than the source's give");
    OpFoldResult offset = asTyped(rewriter, loc, resultOffset, sourceOffset);
    for (auto [d, size] : llvm::enumerate(sizes))
      size = asTyped(rewriter, loc, result.getDimSize(d), size);
    rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(
        op, result, metadata.getBaseBuffer(), offset, sizes, strides);
    return success();
  }
};
} // namespace
