//===- Emitter.cpp - Building blocks for linalg-on-tensors models ---------===//
//
// Part of memplan. Used by memplan-zoo only.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace zoo;

Value Emitter::cst(double v) { return cst(b, v); }

Value Emitter::cst(OpBuilder &ib, double v) {
  return arith::ConstantOp::create(ib, loc, ft, ib.getFloatAttr(ft, v));
}

Value Emitter::empty(ArrayRef<int64_t> shape) {
  SmallVector<Value> sizes(llvm::count(shape, ShapedType::kDynamic),
                           dynamicSize);
  return tensor::EmptyOp::create(b, loc, shape, ft, sizes);
}

Value Emitter::inverseRows(Value x) {
  int64_t n = shapeOf(x)[0];
  if (n != ShapedType::kDynamic)
    return cst(1.0 / n);
  Value size = sizesFromInputs ? tensor::DimOp::create(b, loc, x, 0).getResult()
                               : dynamicSize;
  Value count = arith::IndexCastOp::create(b, loc, b.getI64Type(), size);
  Value rows = arith::SIToFPOp::create(b, loc, ft, count);
  return arith::DivFOp::create(b, loc, cst(1.0), rows);
}

Value Emitter::inverseCount(Value x, double numerator) {
  ArrayRef<int64_t> shape = shapeOf(x);
  int64_t rest = 1;
  for (int64_t d : shape.drop_front())
    rest *= d;
  if (!ShapedType::isDynamic(shape[0]))
    return cst(numerator / double(shape[0] * rest));
  Value size = sizesFromInputs ? tensor::DimOp::create(b, loc, x, 0).getResult()
                               : dynamicSize;
  Value elements = arith::MulIOp::create(
      b, loc, size, arith::ConstantIndexOp::create(b, loc, rest));
  Value count = arith::IndexCastOp::create(b, loc, b.getI64Type(), elements);
  Value total = arith::SIToFPOp::create(b, loc, ft, count);
  return arith::DivFOp::create(b, loc, cst(numerator), total);
}

Value Emitter::full(ArrayRef<int64_t> shape, double value) {
  return linalg::FillOp::create(b, loc, cst(value), empty(shape)).getResult(0);
}

AffineMap Emitter::idMap(unsigned n) const {
  return AffineMap::getMultiDimIdentityMap(n, b.getContext());
}

AffineMap Emitter::dimsMap(unsigned n, ArrayRef<unsigned> dims) const {
  SmallVector<AffineExpr> exprs;
  for (unsigned d : dims)
    exprs.push_back(b.getAffineDimExpr(d));
  return AffineMap::get(n, 0, exprs, b.getContext());
}

SmallVector<utils::IteratorType> Emitter::iters(unsigned n,
                                                unsigned reduceFrom) const {
  SmallVector<utils::IteratorType> result;
  for (unsigned i = 0; i < n; ++i)
    result.push_back(i < reduceFrom ? utils::IteratorType::parallel
                                    : utils::IteratorType::reduction);
  return result;
}

Value Emitter::generic(ArrayRef<Value> ins, ArrayRef<AffineMap> inMaps,
                       ArrayRef<int64_t> outShape, AffineMap outMap,
                       ArrayRef<utils::IteratorType> iterTypes, BodyFn body,
                       std::optional<double> init) {
  Value out;
  if (sizesFromInputs) {
    out = tensor::EmptyOp::create(b, loc, outShape, ft,
                                  outputSizes(ins, inMaps, outShape, outMap));
    if (init)
      out = linalg::FillOp::create(b, loc, cst(*init), out).getResult(0);
  } else {
    out = init ? full(outShape, *init) : empty(outShape);
  }
  SmallVector<AffineMap> maps(inMaps.begin(), inMaps.end());
  maps.push_back(outMap);
  auto op = linalg::GenericOp::create(
      b, loc, TypeRange{type(outShape)}, ins, ValueRange{out}, maps, iterTypes,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl, body(nb, nl, args));
      });
  return op.getResult(0);
}

SmallVector<Value> Emitter::outputSizes(ArrayRef<Value> ins,
                                        ArrayRef<AffineMap> inMaps,
                                        ArrayRef<int64_t> outShape,
                                        AffineMap outMap) {
  SmallVector<Value> sizes;
  for (auto [j, extent] : llvm::enumerate(outShape)) {
    if (!ShapedType::isDynamic(extent))
      continue;
    Value found;
    AffineExpr loop = outMap.getResult(j);
    for (auto [in, inMap] : llvm::zip(ins, inMaps)) {
      auto t = dyn_cast<RankedTensorType>(in.getType());
      for (unsigned p = 0; t && !found && p < inMap.getNumResults(); ++p)
        if (inMap.getResult(p) == loop && t.isDynamicDim(p))
          found = tensor::DimOp::create(b, loc, in, p);
      if (found)
        break;
    }
    // Every dynamic output dimension of the models that set
    // sizesFromInputs is indexed by some input; a generic without one would
    // get the batch size where it may need another (B * S).
    if (!found)
      llvm::report_fatal_error("memplan-zoo internal error: no input gives "
                               "the size of a dynamic output dimension");
    sizes.push_back(found);
  }
  return sizes;
}

Value Emitter::map(ArrayRef<Value> ins, BodyFn body) {
  ArrayRef<int64_t> shape = shapeOf(ins.front());
  unsigned n = shape.size();
  SmallVector<AffineMap> maps(ins.size(), idMap(n));
  return generic(ins, maps, shape, idMap(n), iters(n, n), body);
}

Value Emitter::matmul(Value a, Value bm, bool ta, bool tb) {
  // Loops (i, j, k): C[i, j] += A[i, k] * B[k, j].
  ArrayRef<int64_t> as = shapeOf(a), bs = shapeOf(bm);
  int64_t m = ta ? as[1] : as[0];
  int64_t n = tb ? bs[0] : bs[1];
  AffineMap am = ta ? dimsMap(3, {2, 0}) : dimsMap(3, {0, 2});
  AffineMap bmap = tb ? dimsMap(3, {1, 2}) : dimsMap(3, {2, 1});
  return generic(
      {a, bm}, {am, bmap}, {m, n}, dimsMap(3, {0, 1}), iters(3, 2),
      [](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        Value p = arith::MulFOp::create(nb, nl, args[0], args[1]);
        return arith::AddFOp::create(nb, nl, args[2], p);
      },
      0.0);
}

Value Emitter::addRow(Value x, Value row) {
  ArrayRef<int64_t> shape = shapeOf(x);
  return generic({x, row}, {idMap(2), dimsMap(2, {1})}, shape, idMap(2),
                 iters(2, 2), [](OpBuilder &nb, Location nl, ValueRange args) {
                   return arith::AddFOp::create(nb, nl, args[0], args[1]);
                 });
}

Value Emitter::sumRows(Value x) {
  ArrayRef<int64_t> shape = shapeOf(x);
  // Loops (j, i): out[j] += x[i, j].
  return generic(
      {x}, {dimsMap(2, {1, 0})}, {shape[1]}, dimsMap(2, {0}), iters(2, 1),
      [](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        return arith::AddFOp::create(nb, nl, args[1], args[0]);
      },
      0.0);
}

Value Emitter::reduceLast(Value x, bool max) {
  ArrayRef<int64_t> shape = shapeOf(x);
  unsigned n = shape.size();
  SmallVector<unsigned> lead;
  for (unsigned i = 0; i + 1 < n; ++i)
    lead.push_back(i);
  return generic(
      {x}, {idMap(n)}, shape.drop_back(), dimsMap(n, lead), iters(n, n - 1),
      [max](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        if (max)
          return arith::MaximumFOp::create(nb, nl, args[0], args[1]);
        return arith::AddFOp::create(nb, nl, args[1], args[0]);
      },
      max ? -1e30 : 0.0);
}

Value Emitter::withLast(Value x, Value r, BodyFn body) {
  ArrayRef<int64_t> shape = shapeOf(x);
  unsigned n = shape.size();
  SmallVector<unsigned> lead;
  for (unsigned i = 0; i + 1 < n; ++i)
    lead.push_back(i);
  return generic({x, r}, {idMap(n), dimsMap(n, lead)}, shape, idMap(n),
                 iters(n, n), body);
}

Value Emitter::sumAll(Value x) {
  unsigned n = shapeOf(x).size();
  return generic(
      {x}, {idMap(n)}, {}, AffineMap::get(n, 0, {}, b.getContext()),
      iters(n, 0),
      [](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        return arith::AddFOp::create(nb, nl, args[1], args[0]);
      },
      0.0);
}

Value Emitter::add(Value x, Value y) {
  return map({x, y}, [](OpBuilder &nb, Location nl, ValueRange args) {
    return arith::AddFOp::create(nb, nl, args[0], args[1]);
  });
}

Value Emitter::scale(Value x, double s) {
  return map({x}, [this, s](OpBuilder &nb, Location nl, ValueRange args) {
    return arith::MulFOp::create(nb, nl, args[0], cst(nb, s));
  });
}

Value Emitter::scaleBy(Value x, Value s) {
  return map({x}, [s](OpBuilder &nb, Location nl, ValueRange args) -> Value {
    return arith::MulFOp::create(nb, nl, args[0], s);
  });
}

Emitter::SoftmaxParts Emitter::softmaxParts(Value x) {
  Value mx = reduceLast(x, /*max=*/true);
  Value ex = withLast(x, mx, [](OpBuilder &nb, Location nl, ValueRange a) {
    Value d = arith::SubFOp::create(nb, nl, a[0], a[1]);
    return math::ExpOp::create(nb, nl, d);
  });
  return {mx, ex, reduceLast(ex, /*max=*/false)};
}

Value Emitter::crossEntropy(Value logits, Value oneHot, Value *dlogits) {
  Value inverseN = inverseRows(logits);
  SoftmaxParts sm = softmaxParts(logits);
  // Per row: log(sum) + max - <onehot, logits>.
  Value picked =
      reduceLast(map({oneHot, logits},
                     [](OpBuilder &nb, Location nl, ValueRange a) {
                       return arith::MulFOp::create(nb, nl, a[0], a[1]);
                     }),
                 false);
  Value rows = map({sm.sum, sm.max, picked},
                   [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                     Value lg = math::LogOp::create(nb, nl, a[0]);
                     Value t = arith::AddFOp::create(nb, nl, lg, a[1]);
                     return arith::SubFOp::create(nb, nl, t, a[2]);
                   });
  Value loss = map({sumAll(rows)},
                   [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                     return arith::MulFOp::create(nb, nl, a[0], inverseN);
                   });
  if (dlogits)
    *dlogits =
        generic({sm.exp, sm.sum, oneHot}, {idMap(2), dimsMap(2, {0}), idMap(2)},
                shapeOf(logits), idMap(2), iters(2, 2),
                [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                  Value p = arith::DivFOp::create(nb, nl, a[0], a[1]);
                  Value d = arith::SubFOp::create(nb, nl, p, a[2]);
                  return arith::MulFOp::create(nb, nl, d, inverseN);
                });
  return loss;
}

Value Emitter::addWhereIndexIs(OpBuilder &nb, Location nl, unsigned dim,
                               Value id, Value value, Value acc) {
  Value index = linalg::IndexOp::create(nb, nl, dim);
  Value target = arith::IndexCastOp::create(nb, nl, nb.getIndexType(), id);
  Value hit =
      arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, index, target);
  Value sum = arith::AddFOp::create(nb, nl, acc, value);
  return arith::SelectOp::create(nb, nl, hit, sum, acc);
}
