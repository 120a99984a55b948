//===- Emitter.h - Building blocks for linalg-on-tensors models -*- C++ -*-===//
//
// Part of memplan. Used by memplan-zoo only.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_TOOLS_ZOO_EMITTER_H
#define MEMPLAN_TOOLS_ZOO_EMITTER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

#include <functional>

namespace zoo {
using namespace mlir;

using BodyFn = std::function<Value(OpBuilder &, Location, ValueRange)>;

/// Emits linalg-on-tensors at one insertion point, in one float type.
class Emitter {
public:
  Emitter(OpBuilder &b, Location loc, FloatType ft) : b(b), loc(loc), ft(ft) {}

  OpBuilder &b;
  Location loc;
  FloatType ft;
  /// The run-time size of every dynamic dimension (memplan-zoo --dynamic):
  /// the batch, an index value of the function being emitted.
  Value dynamicSize;
  /// When set, a generic's dynamic output dimensions take their size from
  /// an input that the same loop indexes (tensor.dim), and `inverseRows`
  /// from the tensor itself: for models with several dynamic sizes (the
  /// transformer's batch B and its B * S token rows); a generic with a
  /// dynamic output dimension no input indexes is an internal error.
  bool sizesFromInputs = false;

  RankedTensorType type(ArrayRef<int64_t> shape) const {
    return RankedTensorType::get(shape, ft);
  }
  static ArrayRef<int64_t> shapeOf(Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  }
  Value cst(double v);
  Value cst(OpBuilder &ib, double v);
  /// A new tensor; its dynamic dimensions are `dynamicSize`.
  Value empty(ArrayRef<int64_t> shape);
  /// A slice size: `d`, or `dynamicSize` for a dynamic dimension.
  OpFoldResult sizeOf(int64_t d) const {
    if (ShapedType::isDynamic(d))
      return dynamicSize;
    return b.getIndexAttr(d);
  }
  /// 1 / (dimension 0 of `x`), as a float: a constant for a static size,
  /// computed at run time for a dynamic one (from `dynamicSize`, or from
  /// `x` itself with sizesFromInputs).
  Value inverseRows(Value x);
  /// numerator / (the number of elements of `x`), as a float: a constant
  /// for a static shape, computed at run time when dimension 0 is dynamic
  /// (from `dynamicSize`; the other dimensions must be static).
  Value inverseCount(Value x, double numerator);
  Value full(ArrayRef<int64_t> shape, double value);
  /// The sizes of a generic's dynamic output dimensions (see
  /// sizesFromInputs).
  SmallVector<Value> outputSizes(ArrayRef<Value> ins,
                                 ArrayRef<AffineMap> inMaps,
                                 ArrayRef<int64_t> outShape, AffineMap outMap);

  /// A linalg.generic over `dims` loops producing `outShape` through `outMap`.
  /// When `reduce` is set, the output starts at `init` and the body's last
  /// argument is the accumulator.
  Value generic(ArrayRef<Value> ins, ArrayRef<AffineMap> inMaps,
                ArrayRef<int64_t> outShape, AffineMap outMap,
                ArrayRef<utils::IteratorType> iters, BodyFn body,
                std::optional<double> init = std::nullopt);

  /// Elementwise over operands of one shape.
  Value map(ArrayRef<Value> ins, BodyFn body);
  /// C = op(A) x op(B), 2-D, with optional transposes.
  Value matmul(Value a, Value bm, bool ta = false, bool tb = false);
  /// Adds a row vector to every row of a 2-D tensor.
  Value addRow(Value x, Value row);
  /// Sums a 2-D tensor over its rows: [N, D] -> [D].
  Value sumRows(Value x);
  /// Reduces the last dimension with sum or max: [..., D] -> [...].
  Value reduceLast(Value x, bool max);
  /// x[..., j] op r[...] for every j.
  Value withLast(Value x, Value r, BodyFn body);
  /// Sums every element: -> tensor<ft> (rank 0).
  Value sumAll(Value x);
  Value add(Value x, Value y);

  /// The pieces of a softmax over the last dimension: the row maximum, the
  /// shifted exponentials exp(x - max) and their row sums.
  struct SoftmaxParts {
    Value max, exp, sum;
  };
  SoftmaxParts softmaxParts(Value x);
  /// Softmax cross-entropy of logits [N, C] against one-hot rows, averaged
  /// over rows; with `dlogits`, also its gradient (softmax - onehot) / N.
  Value crossEntropy(Value logits, Value oneHot, Value *dlogits);
  /// In a generic body: acc + value when linalg.index(dim) equals the
  /// integer `id`, else acc.
  static Value addWhereIndexIs(OpBuilder &nb, Location nl, unsigned dim,
                               Value id, Value value, Value acc);
  Value scale(Value x, double s);
  /// x * s elementwise, `s` a float scalar value.
  Value scaleBy(Value x, Value s);

  AffineMap idMap(unsigned n) const;
  AffineMap dimsMap(unsigned n, ArrayRef<unsigned> dims) const;
  SmallVector<utils::IteratorType> iters(unsigned n, unsigned reduceFrom) const;
};
} // namespace zoo

#endif // MEMPLAN_TOOLS_ZOO_EMITTER_H
