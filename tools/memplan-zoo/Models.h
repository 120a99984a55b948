//===- Models.h - The memplan-zoo models ------------------------*- C++ -*-===//
//
// Part of memplan. Used by memplan-zoo only.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_TOOLS_ZOO_MODELS_H
#define MEMPLAN_TOOLS_ZOO_MODELS_H

#include "Emitter.h"

#include <memory>
#include <string>

namespace zoo {

/// A parameter: its name and shape; `init` scales its pseudo-random start
/// values and `offset` shifts them (LayerNorm gains start near 1).
struct Param {
  std::string name;
  SmallVector<int64_t> shape;
  double init = 0.5;
  double offset = 0.0;
};

/// A batch input: float values, class labels as one-hot rows, or token ids.
struct BatchInput {
  enum Kind { Floats, OneHot, Tokens } kind;
  SmallVector<int64_t> shape;
  int64_t classes = 0; // OneHot: rows of this width; Tokens: id range
};

class Model {
public:
  virtual ~Model() = default;
  /// An error message for invalid knobs, or empty.
  virtual std::string validate() const = 0;
  virtual SmallVector<BatchInput> batch() const = 0;
  virtual SmallVector<Param> params() const = 0;
  /// Emits the forward pass and the loss (a rank-0 tensor) at the emitter's
  /// insertion point; with `grads`, also the backward pass: one gradient per
  /// parameter, in order.
  virtual Value emit(Emitter &e, ValueRange batch, ValueRange params,
                     SmallVectorImpl<Value> *grads) const = 0;
};

struct MlpKnobs {
  int64_t depth = 2, width = 16, inputs = 8, classes = 4, batch = 4;
};
struct TransformerKnobs {
  int64_t layers = 1, dModel = 8, heads = 2, seq = 4, batch = 2, vocab = 11,
          ffnMult = 4;
  /// The sequence length is dynamic (the symbol S, at most `seq`: the
  /// positional table's rows); needs a dynamic batch.
  bool dynamicSeq = false;
};

struct CnnKnobs {
  int64_t stages = 2, blocks = 1, channels = 4, image = 8, classes = 3,
          batch = 2, inChannels = 3;
};
struct UnetKnobs {
  int64_t levels = 2, channels = 2, image = 8, batch = 1, inChannels = 1,
          outChannels = 1;
};

std::unique_ptr<Model> makeMlp(const MlpKnobs &knobs);
std::unique_ptr<Model> makeCnn(const CnnKnobs &knobs);
std::unique_ptr<Model> makeUnet(const UnetKnobs &knobs);
std::unique_ptr<Model> makeTransformer(const TransformerKnobs &knobs);

} // namespace zoo

#endif // MEMPLAN_TOOLS_ZOO_MODELS_H
