//===- ConvNets.cpp - A residual CNN and a U-Net --------------------------===//
//
// Part of memplan. Used by memplan-zoo only. Images are NHWC.
//
// Building blocks and their hand-derived gradients (K x K kernel, stride 1,
// same padding p = (K - 1) / 2, Xp = X padded by p):
//   conv:      Y[n,h,w,f] = sum_{a,b,c} Xp[n,h+a,w+b,c] W[a,b,c,f] + bias[f]
//              (linalg.conv_2d_nhwc_hwcf on the padded input)
//     dW[a,b,c,f] = sum_{n,h,w} Xp[n,h+a,w+b,c] dY[n,h,w,f]; dbias = sum dY
//     dXp[n,i,j,c] = sum_{a,b,f} dYp[n,i+a,j+b,f] W[K-1-a,K-1-b,c,f]
//                    (dYp = dY padded by K - 1); dX = dXp[p : p + H]
//   avgpool 2x2: Y[n,i,j,c] = 1/4 sum_{a,b} X[n,2i+a,2j+b,c];
//     dX[n,h,w,c] = 1/4 dY[n, h/2, w/2, c]
//   nearest upsample 2x: Y[n,i,j,c] = X[n,i/2,j/2,c];
//     dX[n,h,w,c] = sum_{a,b} dY[n,2h+a,2w+b,c]
//   channel concat: the gradient of each part is its slice of dY
//   global average pool: Y[n,c] = mean_{h,w} X; dX[n,h,w,c] = dY[n,c] / HW
//
// CNN:  stem conv -> relu; per stage: [avgpool -> 1x1 conv (x2 channels)]
//       then `blocks` residual blocks y = relu(x + conv(relu(conv(x))));
//       global average pool -> linear -> softmax cross-entropy.
// U-Net: per level conv-relu-conv-relu (channels double per level), a skip
//        kept, avgpool; bottleneck; per level back: upsample, concat with
//        the skip, conv-relu-conv-relu; 1x1 conv; mean squared error.
//
//===----------------------------------------------------------------------===//

#include "Models.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace zoo;

namespace {
/// What the backward pass of a convolution needs.
struct ConvCache {
  Value xp, w;
  int64_t k;
  SmallVector<int64_t> inShape;
};

class ConvOps {
public:
  explicit ConvOps(Emitter &e) : e(e), b(e.b), loc(e.loc) {}

  Value pad(Value x, int64_t p) {
    ArrayRef<int64_t> s = Emitter::shapeOf(x);
    if (p == 0)
      return x;
    Value out = e.full({s[0], s[1] + 2 * p, s[2] + 2 * p, s[3]}, 0.0);
    SmallVector<OpFoldResult> offsets{b.getIndexAttr(0), b.getIndexAttr(p),
                                      b.getIndexAttr(p), b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes, strides;
    for (int64_t d : s) {
      sizes.push_back(e.sizeOf(d));
      strides.push_back(b.getIndexAttr(1));
    }
    return tensor::InsertSliceOp::create(b, loc, x, out, offsets, sizes,
                                         strides);
  }

  Value slice(Value x, ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes) {
    SmallVector<OpFoldResult> o, s, st;
    for (auto [off, size] : llvm::zip(offsets, sizes)) {
      o.push_back(b.getIndexAttr(off));
      s.push_back(e.sizeOf(size));
      st.push_back(b.getIndexAttr(1));
    }
    auto type = RankedTensorType::get(sizes, e.ft);
    return tensor::ExtractSliceOp::create(b, loc, type, x, o, s, st);
  }

  Value conv(Value x, Value w, Value bias, ConvCache &cache) {
    ArrayRef<int64_t> xs = Emitter::shapeOf(x), ws = Emitter::shapeOf(w);
    int64_t k = ws[0];
    cache = {pad(x, (k - 1) / 2), w, k, SmallVector<int64_t>(xs)};
    Value init = e.full({xs[0], xs[1], xs[2], ws[3]}, 0.0);
    auto ones = b.getI64TensorAttr({1, 1});
    Value y = linalg::Conv2DNhwcHwcfOp::create(
                  b, loc, TypeRange{init.getType()}, ValueRange{cache.xp, w},
                  ValueRange{init}, ones, ones)
                  .getResult(0);
    return e.generic({y, bias}, {e.idMap(4), e.dimsMap(4, {3})},
                     Emitter::shapeOf(y), e.idMap(4), e.iters(4, 4),
                     [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                       return arith::AddFOp::create(nb, nl, a[0], a[1]);
                     });
  }

  /// Returns dX; sets dW and dBias.
  Value convGrad(Value dy, const ConvCache &c, Value &dw, Value &dbias) {
    ArrayRef<int64_t> ws = Emitter::shapeOf(c.w);
    ArrayRef<int64_t> ys = Emitter::shapeOf(dy);
    auto fma = [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
      Value p = arith::MulFOp::create(nb, nl, a[0], a[1]);
      return arith::AddFOp::create(nb, nl, a[2], p);
    };
    MLIRContext *ctx = b.getContext();
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    // dW: loops (a, b, c, f, n, h, w).
    dw = e.generic(
        {c.xp, dy},
        {AffineMap::get(7, 0, {d(4), d(5) + d(0), d(6) + d(1), d(2)}, ctx),
         AffineMap::get(7, 0, {d(4), d(5), d(6), d(3)}, ctx)},
        ws, e.dimsMap(7, {0, 1, 2, 3}), e.iters(7, 4), fma, 0.0);
    // dbias: loops (f, n, h, w).
    dbias = e.generic(
        {dy}, {e.dimsMap(4, {1, 2, 3, 0})}, {ys[3]}, e.dimsMap(4, {0}),
        e.iters(4, 1),
        [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
          return arith::AddFOp::create(nb, nl, a[1], a[0]);
        },
        0.0);
    // dXp: loops (n, i, j, c, a, b, f) over the padded input.
    int64_t k = c.k;
    Value dyp = pad(dy, k - 1);
    ArrayRef<int64_t> ps = Emitter::shapeOf(c.xp);
    Value dxp = e.generic(
        {dyp, c.w, window(k)},
        {AffineMap::get(7, 0, {d(0), d(1) + d(4), d(2) + d(5), d(6)}, ctx),
         AffineMap::get(7, 0, {-d(4) + (k - 1), -d(5) + (k - 1), d(3), d(6)},
                        ctx),
         e.dimsMap(7, {4, 5})},
        ps, e.dimsMap(7, {0, 1, 2, 3}), e.iters(7, 4),
        [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
          Value p = arith::MulFOp::create(nb, nl, a[0], a[1]);
          return arith::AddFOp::create(nb, nl, a[3], p);
        },
        0.0);
    int64_t p = (k - 1) / 2;
    return p == 0 ? dxp : slice(dxp, {0, p, p, 0}, c.inShape);
  }

  /// A K x K constant whose only use is to give window loops their range
  /// (as the named pooling ops do).
  Value window(int64_t k) {
    auto type = RankedTensorType::get({k, k}, e.ft);
    return arith::ConstantOp::create(
        b, loc, type, DenseElementsAttr::get(type, b.getFloatAttr(e.ft, 0.0)));
  }

  Value relu(Value x) {
    return e.map({x}, [&](OpBuilder &nb, Location nl, ValueRange a) {
      return arith::MaximumFOp::create(nb, nl, a[0], e.cst(nb, 0.0));
    });
  }
  /// dX = dY where the relu's output y is positive.
  Value reluGrad(Value dy, Value y) {
    return e.map(
        {dy, y}, [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
          Value pos = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OGT,
                                            a[1], e.cst(nb, 0.0));
          return arith::SelectOp::create(nb, nl, pos, a[0], e.cst(nb, 0.0));
        });
  }

  /// Y[n,i,j,c] = scale * sum_{a,b} X[n,2i+a,2j+b,c]: the 2x2 average pool
  /// (scale 1/4) and the gradient of nearest upsampling (scale 1).
  Value windowSum(Value x, double scale) {
    ArrayRef<int64_t> s = Emitter::shapeOf(x);
    MLIRContext *ctx = b.getContext();
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    // loops (n, i, j, c, a, b)
    return e.generic(
        {x, window(2)},
        {AffineMap::get(6, 0, {d(0), d(1) * 2 + d(4), d(2) * 2 + d(5), d(3)},
                        ctx),
         e.dimsMap(6, {4, 5})},
        {s[0], s[1] / 2, s[2] / 2, s[3]}, e.dimsMap(6, {0, 1, 2, 3}),
        e.iters(6, 4),
        [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
          Value q = arith::MulFOp::create(nb, nl, a[0], e.cst(nb, scale));
          return arith::AddFOp::create(nb, nl, a[2], q);
        },
        0.0);
  }
  /// Y[n,h,w,c] = scale * X[n,h/2,w/2,c] over `outShape`: nearest upsampling
  /// (scale 1) and the gradient of the 2x2 average pool (scale 1/4).
  Value spread(Value x, ArrayRef<int64_t> outShape, double scale) {
    MLIRContext *ctx = b.getContext();
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    return e.generic(
        {x},
        {AffineMap::get(4, 0, {d(0), d(1).floorDiv(2), d(2).floorDiv(2), d(3)},
                        ctx)},
        outShape, e.idMap(4), e.iters(4, 4),
        [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
          return arith::MulFOp::create(nb, nl, a[0], e.cst(nb, scale));
        });
  }
  Value avgPool(Value x) { return windowSum(x, 0.25); }
  Value avgPoolGrad(Value dy, ArrayRef<int64_t> inShape) {
    return spread(dy, inShape, 0.25);
  }
  Value upsample(Value x) {
    ArrayRef<int64_t> s = Emitter::shapeOf(x);
    return spread(x, {s[0], s[1] * 2, s[2] * 2, s[3]}, 1.0);
  }
  Value upsampleGrad(Value dy) { return windowSum(dy, 1.0); }

  /// Concatenates along channels (destination-style inserts).
  Value concat(Value x, Value y) {
    ArrayRef<int64_t> xs = Emitter::shapeOf(x), ys = Emitter::shapeOf(y);
    Value out = e.empty({xs[0], xs[1], xs[2], xs[3] + ys[3]});
    auto insert = [&](Value part, Value into, int64_t at) -> Value {
      ArrayRef<int64_t> s = Emitter::shapeOf(part);
      SmallVector<OpFoldResult> o{b.getIndexAttr(0), b.getIndexAttr(0),
                                  b.getIndexAttr(0), b.getIndexAttr(at)};
      SmallVector<OpFoldResult> sz, st;
      for (int64_t dsz : s) {
        sz.push_back(e.sizeOf(dsz));
        st.push_back(b.getIndexAttr(1));
      }
      return tensor::InsertSliceOp::create(b, loc, part, into, o, sz, st);
    };
    return insert(y, insert(x, out, 0), xs[3]);
  }

  Emitter &e;
  OpBuilder &b;
  Location loc;
};

/// A K x K convolution's weight (scaled by 1/sqrt(fan-in)) and bias.
void addConvParams(SmallVector<Param> &ps, const std::string &name, int64_t k,
                   int64_t cin, int64_t cout) {
  ps.push_back(
      {name + "_w", {k, k, cin, cout}, 1.0 / std::sqrt(double(k * k * cin))});
  ps.push_back({name + "_b", {cout}, 0.1});
}

class Cnn : public Model {
public:
  explicit Cnn(const CnnKnobs &k) : k(k) {}

  std::string validate() const override {
    if (k.stages <= 0 || k.blocks < 0 || k.channels <= 0 || k.image <= 0 ||
        k.classes <= 0 || (k.batch <= 0 && k.batch != ShapedType::kDynamic) ||
        k.inChannels <= 0)
      return "cnn: stages, channels, image, classes, batch, in-channels must "
             "be positive and blocks >= 0";
    if (k.image % (int64_t(1) << (k.stages - 1)) != 0)
      return "cnn: image (" + std::to_string(k.image) +
             ") must be divisible by 2^(stages - 1) = " +
             std::to_string(int64_t(1) << (k.stages - 1));
    return "";
  }

  SmallVector<BatchInput> batch() const override {
    return {{BatchInput::Floats, {k.batch, k.image, k.image, k.inChannels}, 0},
            {BatchInput::OneHot, {k.batch, k.classes}, k.classes}};
  }

  SmallVector<Param> params() const override {
    SmallVector<Param> ps;
    auto conv = [&](std::string name, int64_t kk, int64_t cin, int64_t cout) {
      addConvParams(ps, name, kk, cin, cout);
    };
    conv("stem", 3, k.inChannels, k.channels);
    int64_t c = k.channels;
    for (int64_t s = 0; s < k.stages; ++s) {
      std::string st = "s" + std::to_string(s);
      if (s > 0) {
        conv(st + "_proj", 1, c, 2 * c);
        c *= 2;
      }
      for (int64_t bl = 0; bl < k.blocks; ++bl) {
        conv(st + "b" + std::to_string(bl) + "_c1", 3, c, c);
        conv(st + "b" + std::to_string(bl) + "_c2", 3, c, c);
      }
    }
    ps.push_back({"fc_w", {c, k.classes}, 1.0 / std::sqrt(double(c))});
    ps.push_back({"fc_b", {k.classes}, 0.1});
    return ps;
  }

  Value emit(Emitter &e, ValueRange batch, ValueRange ps,
             SmallVectorImpl<Value> *grads) const override {
    ConvOps ops(e);
    struct Step {
      enum Kind { Conv, Relu, Pool, Residual } kind;
      ConvCache cache;
      size_t param = 0;
      Value out;               // relu output, for its gradient
      SmallVector<int64_t> in; // pool input shape
    };
    SmallVector<Step> tape;
    size_t next = 0;
    auto conv = [&](Value x) {
      Step s{Step::Conv, {}, next, {}, {}};
      Value y = ops.conv(x, ps[next], ps[next + 1], s.cache);
      next += 2;
      tape.push_back(s);
      return y;
    };
    auto relu = [&](Value x) {
      Value y = ops.relu(x);
      tape.push_back({Step::Relu, {}, 0, y, {}});
      return y;
    };
    Value x = relu(conv(batch[0]));
    for (int64_t s = 0; s < k.stages; ++s) {
      if (s > 0) {
        tape.push_back(
            {Step::Pool, {}, 0, {}, SmallVector<int64_t>(Emitter::shapeOf(x))});
        x = conv(ops.avgPool(x));
      }
      for (int64_t bl = 0; bl < k.blocks; ++bl) {
        tape.push_back(
            {Step::Residual, {}, 0, {}, {}}); // marks the block start
        Value y = conv(relu(conv(x)));
        x = relu(e.add(x, y));
      }
    }
    ArrayRef<int64_t> fs = Emitter::shapeOf(x);
    double invHW = 1.0 / double(fs[1] * fs[2]);
    // Global average pool, loops (n, c, h, w).
    Value pooled = e.generic(
        {x}, {e.dimsMap(4, {0, 2, 3, 1})}, {fs[0], fs[3]}, e.dimsMap(4, {0, 1}),
        e.iters(4, 2),
        [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
          Value q = arith::MulFOp::create(nb, nl, a[0], e.cst(nb, invHW));
          return arith::AddFOp::create(nb, nl, a[1], q);
        },
        0.0);
    Value logits = e.addRow(e.matmul(pooled, ps[next]), ps[next + 1]);
    Value dlogits;
    Value loss = e.crossEntropy(logits, batch[1], grads ? &dlogits : nullptr);
    if (!grads)
      return loss;
    grads->assign(ps.size(), Value());
    (*grads)[next] = e.matmul(pooled, dlogits, true);
    (*grads)[next + 1] = e.sumRows(dlogits);
    Value dpooled = e.matmul(dlogits, ps[next], false, true);
    Value dx = e.generic(
        {dpooled}, {e.dimsMap(4, {0, 3})}, fs, e.idMap(4), e.iters(4, 4),
        [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
          return arith::MulFOp::create(nb, nl, a[0], e.cst(nb, invHW));
        });
    // Walk the tape backwards. A residual block is [Residual, Conv, Relu,
    // Conv, Relu]: the final relu's gradient flows to the block input twice.
    SmallVector<Value> blockGrad; // gradient at each open block's output relu
    for (size_t i = tape.size(); i-- > 0;) {
      Step &s = tape[i];
      switch (s.kind) {
      case Step::Relu:
        dx = ops.reluGrad(dx, s.out);
        // The relu ending a block: remember the gradient of x + y.
        if (i >= 4 && tape[i - 4].kind == Step::Residual)
          blockGrad.push_back(dx);
        break;
      case Step::Conv:
        dx =
            ops.convGrad(dx, s.cache, (*grads)[s.param], (*grads)[s.param + 1]);
        break;
      case Step::Pool:
        dx = ops.avgPoolGrad(dx, s.in);
        break;
      case Step::Residual:
        dx = e.add(dx, blockGrad.pop_back_val());
        break;
      }
    }
    return loss;
  }

private:
  CnnKnobs k;
};

class Unet : public Model {
public:
  explicit Unet(const UnetKnobs &k) : k(k) {}

  std::string validate() const override {
    if (k.levels <= 0 || k.channels <= 0 || k.image <= 0 ||
        (k.batch <= 0 && k.batch != ShapedType::kDynamic) ||
        k.inChannels <= 0 || k.outChannels <= 0)
      return "unet: levels, channels, image, batch, in-channels and "
             "out-channels must be positive";
    if (k.image % (int64_t(1) << k.levels) != 0)
      return "unet: image (" + std::to_string(k.image) +
             ") must be divisible by 2^levels = " +
             std::to_string(int64_t(1) << k.levels);
    return "";
  }

  SmallVector<BatchInput> batch() const override {
    return {
        {BatchInput::Floats, {k.batch, k.image, k.image, k.inChannels}, 0},
        {BatchInput::Floats, {k.batch, k.image, k.image, k.outChannels}, 0}};
  }

  SmallVector<Param> params() const override {
    SmallVector<Param> ps;
    auto conv = [&](std::string name, int64_t kk, int64_t cin, int64_t cout) {
      addConvParams(ps, name, kk, cin, cout);
    };
    int64_t cin = k.inChannels;
    for (int64_t l = 0; l <= k.levels; ++l) { // encoder levels + bottleneck
      int64_t c = k.channels << l;
      conv("e" + std::to_string(l) + "_c1", 3, cin, c);
      conv("e" + std::to_string(l) + "_c2", 3, c, c);
      cin = c;
    }
    for (int64_t l = k.levels - 1; l >= 0; --l) {
      int64_t c = k.channels << l;
      conv("d" + std::to_string(l) + "_c1", 3, cin + c, c);
      conv("d" + std::to_string(l) + "_c2", 3, c, c);
      cin = c;
    }
    conv("out", 1, cin, k.outChannels);
    return ps;
  }

  Value emit(Emitter &e, ValueRange batch, ValueRange ps,
             SmallVectorImpl<Value> *grads) const override {
    ConvOps ops(e);
    struct Block {
      ConvCache c1, c2;
      Value r1, r2;
      size_t param;
    };
    size_t next = 0;
    auto block = [&](Value x, Block &bl) {
      bl.param = next;
      bl.r1 = ops.relu(ops.conv(x, ps[next], ps[next + 1], bl.c1));
      bl.r2 = ops.relu(ops.conv(bl.r1, ps[next + 2], ps[next + 3], bl.c2));
      next += 4;
      return bl.r2;
    };
    auto blockGrad = [&](Value dy, const Block &bl) {
      Value d = ops.reluGrad(dy, bl.r2);
      d = ops.convGrad(d, bl.c2, (*grads)[bl.param + 2],
                       (*grads)[bl.param + 3]);
      d = ops.reluGrad(d, bl.r1);
      return ops.convGrad(d, bl.c1, (*grads)[bl.param], (*grads)[bl.param + 1]);
    };
    SmallVector<Block> enc(k.levels + 1), dec(k.levels);
    SmallVector<Value> skips;
    SmallVector<SmallVector<int64_t>> poolIn;
    Value x = batch[0];
    for (int64_t l = 0; l < k.levels; ++l) {
      x = block(x, enc[l]);
      skips.push_back(x);
      poolIn.push_back(SmallVector<int64_t>(Emitter::shapeOf(x)));
      x = ops.avgPool(x);
    }
    x = block(x, enc[k.levels]);
    SmallVector<int64_t> upChannels;
    for (int64_t l = k.levels - 1; l >= 0; --l) {
      Value up = ops.upsample(x);
      upChannels.push_back(Emitter::shapeOf(up)[3]);
      x = block(ops.concat(up, skips[l]), dec[l]);
    }
    ConvCache outCache;
    Value out = ops.conv(x, ps[next], ps[next + 1], outCache);
    // The mean over N * H * W * C elements: 1 / count and 2 / count are
    // constants, or (dynamic batch) computed at run time.
    bool dynamic = ShapedType::isDynamic(k.batch);
    auto perElement = [&](Value x, double numerator) {
      if (dynamic)
        return e.scaleBy(x, e.inverseCount(out, numerator));
      ArrayRef<int64_t> os = Emitter::shapeOf(out);
      double count = double(os[0] * os[1] * os[2] * os[3]);
      return e.scale(x, numerator / count);
    };
    Value diff =
        e.map({out, batch[1]}, [](OpBuilder &nb, Location nl, ValueRange a) {
          return arith::SubFOp::create(nb, nl, a[0], a[1]);
        });
    Value loss = perElement(
        e.sumAll(e.map({diff},
                       [](OpBuilder &nb, Location nl, ValueRange a) {
                         return arith::MulFOp::create(nb, nl, a[0], a[0]);
                       })),
        1.0);
    if (!grads)
      return loss;
    grads->assign(ps.size(), Value());
    Value dx = ops.convGrad(perElement(diff, 2.0), outCache, (*grads)[next],
                            (*grads)[next + 1]);
    SmallVector<Value> dskips(k.levels);
    for (int64_t l = 0; l < k.levels; ++l) {
      Value dcat = blockGrad(dx, dec[l]);
      ArrayRef<int64_t> cs = Emitter::shapeOf(dcat);
      int64_t cu = upChannels[k.levels - 1 - l];
      Value dup = ops.slice(dcat, {0, 0, 0, 0}, {cs[0], cs[1], cs[2], cu});
      dskips[l] =
          ops.slice(dcat, {0, 0, 0, cu}, {cs[0], cs[1], cs[2], cs[3] - cu});
      dx = ops.upsampleGrad(dup);
    }
    dx = blockGrad(dx, enc[k.levels]);
    for (int64_t l = k.levels - 1; l >= 0; --l) {
      dx = e.add(ops.avgPoolGrad(dx, poolIn[l]), dskips[l]);
      dx = blockGrad(dx, enc[l]);
    }
    return loss;
  }

private:
  UnetKnobs k;
};
} // namespace

std::unique_ptr<Model> zoo::makeCnn(const CnnKnobs &knobs) {
  return std::make_unique<Cnn>(knobs);
}
std::unique_ptr<Model> zoo::makeUnet(const UnetKnobs &knobs) {
  return std::make_unique<Unet>(knobs);
}
