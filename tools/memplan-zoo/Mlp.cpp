//===- Mlp.cpp - A multi-layer perceptron with softmax cross-entropy ------===//
//
// Part of memplan. Used by memplan-zoo only.
//
//   h_0 = x;  z_l = h_l W_l + b_l;  h_{l+1} = relu(z_l)   (l < depth)
//   logits = z_depth;  L = mean_b (logsumexp(logits_b) - <y_b, logits_b>)
//
// Backward (derived by hand):
//   dlogits = (softmax(logits) - y) / B
//   dW_l = h_l^T dz_l;  db_l = sum_b dz_l;  dh_l = dz_l W_l^T
//   dz_{l-1} = dh_l * [z_{l-1} > 0]
//
//===----------------------------------------------------------------------===//

#include "Models.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace zoo;

namespace {
class Mlp : public Model {
public:
  explicit Mlp(const MlpKnobs &k) : k(k) {}

  std::string validate() const override {
    if (k.depth < 0 || k.width <= 0 || k.inputs <= 0 || k.classes <= 0 ||
        (k.batch <= 0 && k.batch != ShapedType::kDynamic))
      return "mlp: depth must be >= 0 and width, inputs, classes, batch > 0";
    return "";
  }

  SmallVector<BatchInput> batch() const override {
    return {{BatchInput::Floats, {k.batch, k.inputs}, 0},
            {BatchInput::OneHot, {k.batch, k.classes}, k.classes}};
  }

  SmallVector<Param> params() const override {
    SmallVector<Param> ps;
    int64_t in = k.inputs;
    for (int64_t l = 0; l <= k.depth; ++l) {
      int64_t out = l == k.depth ? k.classes : k.width;
      ps.push_back({"w" + std::to_string(l), {in, out}, 1.0 / std::sqrt(in)});
      ps.push_back({"b" + std::to_string(l), {out}, 0.1});
      in = out;
    }
    return ps;
  }

  Value emit(Emitter &e, ValueRange batch, ValueRange ps,
             SmallVectorImpl<Value> *grads) const override {
    Value x = batch[0], y = batch[1];
    SmallVector<Value> hs{x}, zs;
    for (int64_t l = 0; l <= k.depth; ++l) {
      Value z = e.addRow(e.matmul(hs.back(), ps[2 * l]), ps[2 * l + 1]);
      zs.push_back(z);
      if (l < k.depth)
        hs.push_back(e.map({z}, [&](OpBuilder &nb, Location nl, ValueRange a) {
          return arith::MaximumFOp::create(nb, nl, a[0], e.cst(nb, 0.0));
        }));
    }
    Value dz;
    Value loss = e.crossEntropy(zs.back(), y, grads ? &dz : nullptr);
    if (!grads)
      return loss;
    grads->assign(ps.size(), Value());
    for (int64_t l = k.depth; l >= 0; --l) {
      (*grads)[2 * l] = e.matmul(hs[l], dz, /*ta=*/true);
      (*grads)[2 * l + 1] = e.sumRows(dz);
      if (l == 0)
        break;
      Value dh = e.matmul(dz, ps[2 * l], false, /*tb=*/true);
      dz =
          e.map({dh, zs[l - 1]}, [&](OpBuilder &nb, Location nl, ValueRange a) {
            Value pos = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OGT,
                                              a[1], e.cst(nb, 0.0));
            return arith::SelectOp::create(nb, nl, pos, a[0], e.cst(nb, 0.0));
          });
    }
    return loss;
  }

private:
  MlpKnobs k;
};
} // namespace

std::unique_ptr<Model> zoo::makeMlp(const MlpKnobs &knobs) {
  return std::make_unique<Mlp>(knobs);
}
