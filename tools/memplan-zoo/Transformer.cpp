//===- Transformer.cpp - A GPT-style decoder stack ------------------------===//
//
// Part of memplan. Used by memplan-zoo only.
//
// Tokens ids[B, S] -> x = emb[ids] + pos; per layer (pre-LayerNorm):
//   h = x + Wo . Attention(LN1(x))         causal, H heads of E = D / H
//   x = h + W2 . gelu(W1 . LN2(h) + b1) + b2
// logits = LNf(x) . Wout; L = mean over tokens of softmax cross-entropy.
//
// Backward, derived by hand (n = token, d = feature, rows of D features):
//   LayerNorm y = g * xhat + b, xhat = (x - mean) * rstd:
//     dg = sum_n dy * xhat; db = sum_n dy; dxhat = dy * g
//     dx = rstd * (dxhat - mean_d(dxhat) - xhat * mean_d(dxhat * xhat))
//   gelu (tanh form) u -> 0.5 u (1 + t), t = tanh(c (u + a u^3)):
//     gelu'(u) = 0.5 (1 + t) + 0.5 u (1 - t^2) c (1 + 3 a u^2)
//   Attention S = scale Q K^T (masked), P = softmax_j(S), O = P V:
//     dP = dO V^T; dV = P^T dO; dS = P * (dP - sum_j dP * P)
//     dQ = scale dS K; dK = scale dS^T Q
//   Cross-entropy: dlogits = (softmax(logits) - onehot(target)) / N
//   Embedding: demb[v] = sum over tokens with id v of dx; dpos[s] = sum_b dx
//
//===----------------------------------------------------------------------===//

#include "Models.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace zoo;

namespace {
struct LayerNormCache {
  Value xhat, rstd, gain;
};

class Transformer : public Model {
public:
  explicit Transformer(const TransformerKnobs &k) : k(k) {}

  std::string validate() const override {
    if (k.dynamicSeq && !ShapedType::isDynamic(k.batch))
      return "transformer: a dynamic sequence needs a dynamic batch";
    if (k.layers <= 0 || k.dModel <= 0 || k.heads <= 0 || k.seq <= 0 ||
        (k.batch <= 0 && k.batch != ShapedType::kDynamic) || k.vocab <= 0 ||
        k.ffnMult <= 0)
      return "transformer: layers, d-model, heads, seq, batch, vocab and "
             "ffn-mult must be positive";
    if (k.dModel % k.heads != 0)
      return "transformer: heads (" + std::to_string(k.heads) +
             ") must divide d-model (" + std::to_string(k.dModel) + ")";
    return "";
  }

  SmallVector<BatchInput> batch() const override {
    return {{BatchInput::Tokens, {k.batch, seqDim()}, k.vocab},
            {BatchInput::Tokens, {k.batch, seqDim()}, k.vocab}};
  }

  SmallVector<Param> params() const override {
    int64_t d = k.dModel, f = k.ffnMult * k.dModel;
    double sd = 1.0 / std::sqrt(double(d)), sf = 1.0 / std::sqrt(double(f));
    SmallVector<Param> ps{{"emb", {k.vocab, d}, 0.5}, {"pos", {k.seq, d}, 0.1}};
    for (int64_t l = 0; l < k.layers; ++l) {
      std::string p = "l" + std::to_string(l) + "_";
      ps.push_back({p + "ln1_g", {d}, 0.1, 1.0});
      ps.push_back({p + "ln1_b", {d}, 0.1});
      ps.push_back({p + "wq", {d, d}, sd});
      ps.push_back({p + "wk", {d, d}, sd});
      ps.push_back({p + "wv", {d, d}, sd});
      ps.push_back({p + "wo", {d, d}, sd});
      ps.push_back({p + "ln2_g", {d}, 0.1, 1.0});
      ps.push_back({p + "ln2_b", {d}, 0.1});
      ps.push_back({p + "w1", {d, f}, sd});
      ps.push_back({p + "b1", {f}, 0.1});
      ps.push_back({p + "w2", {f, d}, sf});
      ps.push_back({p + "b2", {d}, 0.1});
    }
    ps.push_back({"lnf_g", {d}, 0.1, 1.0});
    ps.push_back({"lnf_b", {d}, 0.1});
    ps.push_back({"wout", {d, k.vocab}, sd});
    return ps;
  }

  Value emit(Emitter &e, ValueRange batch, ValueRange ps,
             SmallVectorImpl<Value> *grads) const override;

private:
  static constexpr unsigned kPerLayer = 12;
  /// The sequence dimension of tensor types: dynamic with --dynamic=...,seq.
  int64_t seqDim() const { return k.dynamicSeq ? ShapedType::kDynamic : k.seq; }
  /// The run-time sequence length S (dimension 1 of the tokens) while a
  /// dynamic-sequence step is emitted.
  mutable Value seqSize;
  /// What a block's backward pass reads of its forward pass.
  struct BlockCache {
    LayerNormCache ln1, ln2;
    Value z1, q4, k4, v4, p, o, z2, u, gu;
  };
  /// What the loss's backward pass reads of the head.
  struct HeadCache {
    LayerNormCache lnf;
    Value zf, logits;
    Emitter::SoftmaxParts sm;
    /// 1 / N computed at run time (dynamic batch), or null.
    Value invRows;
  };

  /// x[b, s, :] = emb[ids[b, s], :] + pos[s, :], as token rows [N, D].
  Value embed(Emitter &e, Value ids, Value emb, Value pos) const;
  /// One pre-LayerNorm block: attention, then the MLP, each with its
  /// residual. `lp` holds the block's kPerLayer parameters.
  Value blockForward(Emitter &e, Value x, ValueRange lp, BlockCache &c) const;
  /// h = x + Wo . Attention(LN1(x)).
  Value attentionForward(Emitter &e, Value x, ValueRange lp,
                         BlockCache &c) const;
  /// h + W2 . gelu(W1 . LN2(h) + b1) + b2.
  Value mlpForward(Emitter &e, Value h, ValueRange lp, BlockCache &c) const;
  /// The mean softmax cross-entropy of LNf(x) . Wout against the targets.
  Value lossForward(Emitter &e, Value x, ValueRange tail, Value targetsFlat,
                    HeadCache &c) const;
  /// d loss / d x at the head; the head's gradients into `tailGrads`.
  Value lossBackward(Emitter &e, ValueRange tail, Value targetsFlat,
                     const HeadCache &c, Value *tailGrads) const;
  /// v / N in a body: a constant, or (dynamic batch) `invRows`.
  Value timesInvN(Emitter &e, OpBuilder &nb, Location nl, Value v,
                  Value invRows) const;
  /// A block's backward pass: from dx at its output to dx at its input,
  /// its parameters' gradients into `lg`.
  Value blockBackward(Emitter &e, Value dx, ValueRange lp, Value *lg,
                      const BlockCache &c) const;
  /// The MLP's backward pass: dx at the block's output to dh.
  Value mlpBackward(Emitter &e, Value dx, ValueRange lp, Value *lg,
                    const BlockCache &c) const;
  /// The attention's backward pass: dh to dx at the block's input.
  Value attentionBackward(Emitter &e, Value dh, ValueRange lp, Value *lg,
                          const BlockCache &c) const;
  /// The gradients of the embedding and the positions, from dx at the
  /// first block's input.
  void embedBackward(Emitter &e, Value dx, Value idsFlat, Value &demb,
                     Value &dpos) const;
  double attentionScale() const {
    return 1.0 / std::sqrt(double(k.dModel / k.heads));
  }
  Value layerNorm(Emitter &e, Value x, Value g, Value b,
                  LayerNormCache &cache) const;
  Value layerNormGrad(Emitter &e, Value dy, const LayerNormCache &cache,
                      Value &dg, Value &db) const;
  Value toHeads(Emitter &e, Value x) const; // [N, D] -> [B, S, H, E]
  /// [N, ...] -> [B, S, ...]: `x` expanded to `shape`, its first
  /// dimension split into batch and sequence (a dynamic batch is
  /// e.dynamicSize).
  Value splitTokens(Emitter &e, Value x, ArrayRef<int64_t> shape,
                    ArrayRef<ReassociationIndices> groups) const;
  Value fromHeads(Emitter &e, Value x) const; // [B, S, H, E] -> [N, D]

  TransformerKnobs k;
};

Value Transformer::splitTokens(Emitter &e, Value x, ArrayRef<int64_t> shape,
                               ArrayRef<ReassociationIndices> groups) const {
  auto type = RankedTensorType::get(shape, e.ft);
  if (!ShapedType::isDynamic(k.batch))
    return tensor::ExpandShapeOp::create(e.b, e.loc, type, x, groups);
  // Dynamic sizes: the batch first, then the sequence.
  SmallVector<OpFoldResult> sizes;
  for (auto [d, size] : llvm::enumerate(shape))
    sizes.push_back(!ShapedType::isDynamic(size)
                        ? OpFoldResult(e.b.getIndexAttr(size))
                    : d == 0 ? OpFoldResult(e.dynamicSize)
                             : OpFoldResult(seqSize));
  return tensor::ExpandShapeOp::create(e.b, e.loc, type, x, groups, sizes);
}

Value Transformer::toHeads(Emitter &e, Value x) const {
  int64_t hd = k.dModel / k.heads;
  return splitTokens(e, x, {k.batch, seqDim(), k.heads, hd}, {{0, 1}, {2, 3}});
}

Value Transformer::fromHeads(Emitter &e, Value x) const {
  return tensor::CollapseShapeOp::create(
      e.b, e.loc, x, SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
}

Value Transformer::layerNorm(Emitter &e, Value x, Value g, Value b,
                             LayerNormCache &cache) const {
  double invD = 1.0 / k.dModel;
  Value mean = e.scale(e.reduceLast(x, false), invD);
  Value xc = e.withLast(x, mean, [](OpBuilder &nb, Location nl, ValueRange a) {
    return arith::SubFOp::create(nb, nl, a[0], a[1]);
  });
  Value var = e.scale(
      e.reduceLast(e.map({xc},
                         [](OpBuilder &nb, Location nl, ValueRange a) {
                           return arith::MulFOp::create(nb, nl, a[0], a[0]);
                         }),
                   false),
      invD);
  Value rstd = e.map({var}, [&](OpBuilder &nb, Location nl, ValueRange a) {
    Value v = arith::AddFOp::create(nb, nl, a[0], e.cst(nb, 1e-5));
    return math::RsqrtOp::create(nb, nl, v);
  });
  Value xhat =
      e.withLast(xc, rstd, [](OpBuilder &nb, Location nl, ValueRange a) {
        return arith::MulFOp::create(nb, nl, a[0], a[1]);
      });
  cache = {xhat, rstd, g};
  return e.generic({xhat, g, b},
                   {e.idMap(2), e.dimsMap(2, {1}), e.dimsMap(2, {1})},
                   e.shapeOf(x), e.idMap(2), e.iters(2, 2),
                   [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                     Value m = arith::MulFOp::create(nb, nl, a[0], a[1]);
                     return arith::AddFOp::create(nb, nl, m, a[2]);
                   });
}

Value Transformer::layerNormGrad(Emitter &e, Value dy, const LayerNormCache &c,
                                 Value &dg, Value &db) const {
  double invD = 1.0 / k.dModel;
  auto mul = [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
    return arith::MulFOp::create(nb, nl, a[0], a[1]);
  };
  dg = e.sumRows(e.map({dy, c.xhat}, mul));
  db = e.sumRows(dy);
  Value dxhat = e.generic({dy, c.gain}, {e.idMap(2), e.dimsMap(2, {1})},
                          e.shapeOf(dy), e.idMap(2), e.iters(2, 2), mul);
  Value m1 = e.scale(e.reduceLast(dxhat, false), invD);
  Value m2 = e.scale(e.reduceLast(e.map({dxhat, c.xhat}, mul), false), invD);
  AffineMap row = e.dimsMap(2, {0});
  return e.generic({dxhat, c.xhat, m1, m2, c.rstd},
                   {e.idMap(2), e.idMap(2), row, row, row}, e.shapeOf(dy),
                   e.idMap(2), e.iters(2, 2),
                   [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                     Value t = arith::SubFOp::create(nb, nl, a[0], a[2]);
                     Value u = arith::MulFOp::create(nb, nl, a[1], a[3]);
                     Value v = arith::SubFOp::create(nb, nl, t, u);
                     return arith::MulFOp::create(nb, nl, v, a[4]);
                   });
}

/// sum += a * b, the body of the attention's contractions.
static Value fma(OpBuilder &nb, Location nl, ValueRange a) {
  Value p = arith::MulFOp::create(nb, nl, a[0], a[1]);
  return arith::AddFOp::create(nb, nl, a[2], p);
}

Value Transformer::embed(Emitter &e, Value ids, Value emb, Value pos) const {
  Value x3 = e.generic(
      {ids, pos}, {e.dimsMap(3, {0, 1}), e.dimsMap(3, {1, 2})},
      {k.batch, seqDim(), k.dModel}, e.idMap(3), e.iters(3, 3),
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value row = arith::IndexCastOp::create(nb, nl, nb.getIndexType(), a[0]);
        Value col = linalg::IndexOp::create(nb, nl, 2);
        Value v = tensor::ExtractOp::create(nb, nl, emb, ValueRange{row, col});
        return arith::AddFOp::create(nb, nl, v, a[1]);
      });
  return tensor::CollapseShapeOp::create(
      e.b, e.loc, x3, SmallVector<ReassociationIndices>{{0, 1}, {2}});
}

Value Transformer::attentionForward(Emitter &e, Value x, ValueRange lp,
                                    BlockCache &c) const {
  double scale = attentionScale();
  c.z1 = layerNorm(e, x, lp[0], lp[1], c.ln1);
  c.q4 = toHeads(e, e.matmul(c.z1, lp[2]));
  c.k4 = toHeads(e, e.matmul(c.z1, lp[3]));
  c.v4 = toHeads(e, e.matmul(c.z1, lp[4]));
  // Scores over loops (b, h, i, j, e).
  Value scores = e.generic(
      {c.q4, c.k4}, {e.dimsMap(5, {0, 2, 1, 4}), e.dimsMap(5, {0, 3, 1, 4})},
      {k.batch, k.heads, seqDim(), seqDim()}, e.dimsMap(5, {0, 1, 2, 3}),
      e.iters(5, 4), fma, 0.0);
  Value masked =
      e.map({scores}, [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value i = linalg::IndexOp::create(nb, nl, 2);
        Value j = linalg::IndexOp::create(nb, nl, 3);
        Value future =
            arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ugt, j, i);
        Value s = arith::MulFOp::create(nb, nl, a[0], e.cst(nb, scale));
        return arith::SelectOp::create(nb, nl, future, e.cst(nb, -1e9), s);
      });
  Emitter::SoftmaxParts sm = e.softmaxParts(masked);
  c.p =
      e.withLast(sm.exp, sm.sum, [](OpBuilder &nb, Location nl, ValueRange a) {
        return arith::DivFOp::create(nb, nl, a[0], a[1]);
      });
  // O[b, i, h, e] = sum_j P[b, h, i, j] V[b, j, h, e], loops (b, i, h, e, j).
  Value o4 = e.generic(
      {c.p, c.v4}, {e.dimsMap(5, {0, 2, 1, 4}), e.dimsMap(5, {0, 4, 2, 3})},
      e.shapeOf(c.q4), e.dimsMap(5, {0, 1, 2, 3}), e.iters(5, 4), fma, 0.0);
  c.o = fromHeads(e, o4);
  return e.add(x, e.matmul(c.o, lp[5]));
}

Value Transformer::mlpForward(Emitter &e, Value h, ValueRange lp,
                              BlockCache &c) const {
  c.z2 = layerNorm(e, h, lp[6], lp[7], c.ln2);
  c.u = e.addRow(e.matmul(c.z2, lp[8]), lp[9]);
  c.gu = e.map({c.u}, [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
    Value u = a[0];
    Value u3 =
        arith::MulFOp::create(nb, nl, u, arith::MulFOp::create(nb, nl, u, u));
    Value inner = arith::AddFOp::create(
        nb, nl, u, arith::MulFOp::create(nb, nl, u3, e.cst(nb, 0.044715)));
    Value t = math::TanhOp::create(
        nb, nl,
        arith::MulFOp::create(nb, nl, inner, e.cst(nb, std::sqrt(2.0 / M_PI))));
    Value onePlus = arith::AddFOp::create(nb, nl, t, e.cst(nb, 1.0));
    return arith::MulFOp::create(
        nb, nl, arith::MulFOp::create(nb, nl, u, onePlus), e.cst(nb, 0.5));
  });
  return e.add(h, e.addRow(e.matmul(c.gu, lp[10]), lp[11]));
}

Value Transformer::blockForward(Emitter &e, Value x, ValueRange lp,
                                BlockCache &c) const {
  return mlpForward(e, attentionForward(e, x, lp, c), lp, c);
}

Value Transformer::timesInvN(Emitter &e, OpBuilder &nb, Location nl, Value v,
                             Value invRows) const {
  Value inv = invRows ? invRows : e.cst(nb, 1.0 / double(k.batch * k.seq));
  return arith::MulFOp::create(nb, nl, v, inv);
}

Value Transformer::lossForward(Emitter &e, Value x, ValueRange tail,
                               Value targetsFlat, HeadCache &c) const {
  bool dynamic = ShapedType::isDynamic(k.batch);
  int64_t n = dynamic ? ShapedType::kDynamic : k.batch * k.seq;
  c.zf = layerNorm(e, x, tail[0], tail[1], c.lnf);
  c.logits = e.matmul(c.zf, tail[2]);
  c.sm = e.softmaxParts(c.logits);
  // picked[n] = logits[n, target[n]], loops (n, v).
  Value picked = e.generic(
      {c.logits, targetsFlat}, {e.idMap(2), e.dimsMap(2, {0})}, {n},
      e.dimsMap(2, {0}), e.iters(2, 1),
      [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        return Emitter::addWhereIndexIs(nb, nl, 1, a[1], a[0], a[2]);
      },
      0.0);
  Value rows = e.map({c.sm.sum, c.sm.max, picked},
                     [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                       Value lg = math::LogOp::create(nb, nl, a[0]);
                       Value t = arith::AddFOp::create(nb, nl, lg, a[1]);
                       return arith::SubFOp::create(nb, nl, t, a[2]);
                     });
  // 1 / N: a constant in the bodies, or (dynamic batch) computed from the
  // logits' rows at run time.
  c.invRows = dynamic ? e.inverseRows(c.logits) : Value();
  return e.map({e.sumAll(rows)}, [&](OpBuilder &nb, Location nl, ValueRange a) {
    return timesInvN(e, nb, nl, a[0], c.invRows);
  });
}

Value Transformer::lossBackward(Emitter &e, ValueRange tail, Value targetsFlat,
                                const HeadCache &c, Value *tailGrads) const {
  Value dlogits = e.generic(
      {c.sm.exp, c.sm.sum, targetsFlat},
      {e.idMap(2), e.dimsMap(2, {0}), e.dimsMap(2, {0})}, e.shapeOf(c.logits),
      e.idMap(2), e.iters(2, 2),
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value p = arith::DivFOp::create(nb, nl, a[0], a[1]);
        Value v = linalg::IndexOp::create(nb, nl, 1);
        Value t = arith::IndexCastOp::create(nb, nl, nb.getIndexType(), a[2]);
        Value hit =
            arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, v, t);
        Value one = arith::SelectOp::create(nb, nl, hit, e.cst(nb, 1.0),
                                            e.cst(nb, 0.0));
        Value diff = arith::SubFOp::create(nb, nl, p, one);
        return timesInvN(e, nb, nl, diff, c.invRows);
      });
  tailGrads[2] = e.matmul(c.zf, dlogits, true);
  return layerNormGrad(e, e.matmul(dlogits, tail[2], false, true), c.lnf,
                       tailGrads[0], tailGrads[1]);
}

Value Transformer::mlpBackward(Emitter &e, Value dx, ValueRange lp, Value *lg,
                               const BlockCache &c) const {
  // x' = h + (gelu(z2 W1 + b1) W2 + b2)
  Value dgu = e.matmul(dx, lp[10], false, true);
  lg[10] = e.matmul(c.gu, dx, true);
  lg[11] = e.sumRows(dx);
  Value du =
      e.map({dgu, c.u}, [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value u = a[1];
        Value u2 = arith::MulFOp::create(nb, nl, u, u);
        Value inner = arith::AddFOp::create(
            nb, nl, u,
            arith::MulFOp::create(nb, nl, arith::MulFOp::create(nb, nl, u2, u),
                                  e.cst(nb, 0.044715)));
        double c0 = std::sqrt(2.0 / M_PI);
        Value t = math::TanhOp::create(
            nb, nl, arith::MulFOp::create(nb, nl, inner, e.cst(nb, c0)));
        Value half1 = arith::MulFOp::create(
            nb, nl, arith::AddFOp::create(nb, nl, t, e.cst(nb, 1.0)),
            e.cst(nb, 0.5));
        Value sech2 = arith::SubFOp::create(
            nb, nl, e.cst(nb, 1.0), arith::MulFOp::create(nb, nl, t, t));
        Value dInner = arith::AddFOp::create(
            nb, nl, e.cst(nb, 1.0),
            arith::MulFOp::create(nb, nl, u2, e.cst(nb, 3 * 0.044715)));
        Value half2 = arith::MulFOp::create(
            nb, nl,
            arith::MulFOp::create(
                nb, nl, arith::MulFOp::create(nb, nl, u, sech2), dInner),
            e.cst(nb, 0.5 * c0));
        return arith::MulFOp::create(
            nb, nl, a[0], arith::AddFOp::create(nb, nl, half1, half2));
      });
  lg[8] = e.matmul(c.z2, du, true);
  lg[9] = e.sumRows(du);
  return e.add(dx, layerNormGrad(e, e.matmul(du, lp[8], false, true), c.ln2,
                                 lg[6], lg[7]));
}

Value Transformer::attentionBackward(Emitter &e, Value dh, ValueRange lp,
                                     Value *lg, const BlockCache &c) const {
  double scale = attentionScale();
  auto mul2 = [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
    return arith::MulFOp::create(nb, nl, a[0], a[1]);
  };
  // h = x + O Wo
  lg[5] = e.matmul(c.o, dh, true);
  Value do4 = toHeads(e, e.matmul(dh, lp[5], false, true));
  // dP[b, h, i, j] = sum_e dO[b, i, h, e] V[b, j, h, e], loops (b, h, i, j,
  // e)
  Value dp = e.generic(
      {do4, c.v4}, {e.dimsMap(5, {0, 2, 1, 4}), e.dimsMap(5, {0, 3, 1, 4})},
      e.shapeOf(c.p), e.dimsMap(5, {0, 1, 2, 3}), e.iters(5, 4), fma, 0.0);
  // dV[b, j, h, e] = sum_i P[b, h, i, j] dO[b, i, h, e], loops (b, j, h, e,
  // i)
  Value dv4 = e.generic(
      {c.p, do4}, {e.dimsMap(5, {0, 2, 4, 1}), e.dimsMap(5, {0, 4, 2, 3})},
      e.shapeOf(c.v4), e.dimsMap(5, {0, 1, 2, 3}), e.iters(5, 4), fma, 0.0);
  Value rs = e.reduceLast(e.map({dp, c.p}, mul2), false);
  Value ds = e.generic(
      {c.p, dp, rs}, {e.idMap(4), e.idMap(4), e.dimsMap(4, {0, 1, 2})},
      e.shapeOf(c.p), e.idMap(4), e.iters(4, 4),
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value t = arith::SubFOp::create(nb, nl, a[1], a[2]);
        Value u = arith::MulFOp::create(nb, nl, a[0], t);
        return arith::MulFOp::create(nb, nl, u, e.cst(nb, scale));
      });
  // dQ[b, i, h, e] = sum_j dS[b, h, i, j] K[b, j, h, e], loops (b, i, h, e,
  // j)
  Value dq4 = e.generic(
      {ds, c.k4}, {e.dimsMap(5, {0, 2, 1, 4}), e.dimsMap(5, {0, 4, 2, 3})},
      e.shapeOf(c.q4), e.dimsMap(5, {0, 1, 2, 3}), e.iters(5, 4), fma, 0.0);
  // dK[b, j, h, e] = sum_i dS[b, h, i, j] Q[b, i, h, e], loops (b, j, h, e,
  // i)
  Value dk4 = e.generic(
      {ds, c.q4}, {e.dimsMap(5, {0, 2, 4, 1}), e.dimsMap(5, {0, 4, 2, 3})},
      e.shapeOf(c.k4), e.dimsMap(5, {0, 1, 2, 3}), e.iters(5, 4), fma, 0.0);
  Value dq = fromHeads(e, dq4), dk = fromHeads(e, dk4), dv = fromHeads(e, dv4);
  lg[2] = e.matmul(c.z1, dq, true);
  lg[3] = e.matmul(c.z1, dk, true);
  lg[4] = e.matmul(c.z1, dv, true);
  Value dz1 = e.add(
      e.add(e.matmul(dq, lp[2], false, true), e.matmul(dk, lp[3], false, true)),
      e.matmul(dv, lp[4], false, true));
  return e.add(dh, layerNormGrad(e, dz1, c.ln1, lg[0], lg[1]));
}

Value Transformer::blockBackward(Emitter &e, Value dx, ValueRange lp, Value *lg,
                                 const BlockCache &c) const {
  return attentionBackward(e, mlpBackward(e, dx, lp, lg, c), lp, lg, c);
}

void Transformer::embedBackward(Emitter &e, Value dx, Value idsFlat,
                                Value &demb, Value &dpos) const {
  int64_t d = k.dModel;
  Value dx3 = splitTokens(e, dx, {k.batch, seqDim(), d}, {{0, 1}, {2}});
  dpos = e.generic(
      {dx3}, {e.dimsMap(3, {2, 0, 1})}, {seqDim(), d}, e.dimsMap(3, {0, 1}),
      e.iters(3, 2),
      [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        return arith::AddFOp::create(nb, nl, a[1], a[0]);
      },
      0.0);
  // A dynamic sequence used the table's first S rows: the others get 0.
  if (k.dynamicSeq) {
    Value zeros = e.full({k.seq, d}, 0.0);
    SmallVector<OpFoldResult> offsets(2, e.b.getIndexAttr(0)),
        strides(2, e.b.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes{seqSize, e.b.getIndexAttr(d)};
    dpos = tensor::InsertSliceOp::create(e.b, e.loc, dpos, zeros, offsets,
                                         sizes, strides);
  }
  // demb[v, d] = sum_n [ids[n] == v] dx[n, d], loops (v, d, n).
  demb = e.generic(
      {idsFlat, dx}, {e.dimsMap(3, {2}), e.dimsMap(3, {2, 1})}, {k.vocab, d},
      e.dimsMap(3, {0, 1}), e.iters(3, 2),
      [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        return Emitter::addWhereIndexIs(nb, nl, 0, a[0], a[1], a[2]);
      },
      0.0);
}

Value Transformer::emit(Emitter &e, ValueRange batch, ValueRange ps,
                        SmallVectorImpl<Value> *grads) const {
  bool dynamic = ShapedType::isDynamic(k.batch);
  // With a dynamic batch the token rows N = B * S are dynamic too: output
  // sizes come from the inputs (and 1 / N from the logits' rows).
  e.sizesFromInputs = dynamic;
  Value ids = batch[0], targets = batch[1];
  auto collapse2 = [&](Value v) {
    return tensor::CollapseShapeOp::create(
        e.b, e.loc, v, SmallVector<ReassociationIndices>{{0, 1}});
  };
  Value idsFlat = collapse2(ids), targetsFlat = collapse2(targets);

  Value pos = ps[1];
  if (k.dynamicSeq) {
    // The first S rows of the positional table: S <= its rows, which
    // memplan derives from this slice.
    seqSize = tensor::DimOp::create(e.b, e.loc, ids, 1);
    SmallVector<OpFoldResult> offsets(2, e.b.getIndexAttr(0)),
        strides(2, e.b.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes{seqSize, e.b.getIndexAttr(k.dModel)};
    pos = tensor::ExtractSliceOp::create(
        e.b, e.loc,
        RankedTensorType::get({ShapedType::kDynamic, k.dModel}, e.ft), pos,
        offsets, sizes, strides);
  }
  Value x = embed(e, ids, ps[0], pos);
  SmallVector<BlockCache> caches(k.layers);
  for (int64_t l = 0; l < k.layers; ++l)
    x = blockForward(e, x, ps.slice(2 + l * kPerLayer, kPerLayer), caches[l]);

  size_t tail = 2 + k.layers * kPerLayer;
  ValueRange tailParams = ps.slice(tail, 3);
  HeadCache head;
  Value loss = lossForward(e, x, tailParams, targetsFlat, head);
  if (!grads)
    return loss;

  grads->assign(ps.size(), Value());
  Value dx =
      lossBackward(e, tailParams, targetsFlat, head, grads->data() + tail);
  for (int64_t l = k.layers - 1; l >= 0; --l)
    dx = blockBackward(e, dx, ps.slice(2 + l * kPerLayer, kPerLayer),
                       grads->data() + 2 + l * kPerLayer, caches[l]);
  embedBackward(e, dx, idsFlat, (*grads)[0], (*grads)[1]);
  return loss;
}
} // namespace

std::unique_ptr<Model> zoo::makeTransformer(const TransformerKnobs &knobs) {
  return std::make_unique<Transformer>(knobs);
}
