//===- memplan-zoo.cpp - Training steps of common architectures -----------===//
//
// Part of memplan. Emits `func.func @train_step` in linalg-on-tensors —
// forward, loss, backward by hand-derived gradient formulas, SGD update of
// each parameter right after its gradient is computed —
// for an MLP, a GPT-style transformer decoder stack, a CNN with residual
// blocks or a U-Net, built with MLIR's builders. Parameters and the batch are
// arguments; it returns the loss and the updated parameters.
//
//   --main=run        adds @main: deterministic pseudo-random inputs, one
//                     step, every output printed (for mlir-runner)
//   --target=nvvm     a device program (docs/GPU.md): @train_step takes a
//                     rank-0 loss buffer after the parameters and writes the
//                     loss and the new parameters into those arguments
//                     (donated, so a step allocates no results); @main is host
//                     code (memplan.host) that makes the inputs on the host,
//                     copies them to the device, runs --steps steps, copies
//                     the outputs back, prints them and the runtime's
//                     counters
//   --steps=N         --main=run: N steps, each feeding the next its
//                     parameters; the outputs of the last are printed
//   --print=loss      --main=run: print the loss of every step, not the
//                     parameters
//   --freeze=P,...    parameters whose names start with one of the prefixes
//                     are frozen: @train_step returns them unchanged, but
//                     their gradients are still emitted (as a naive autodiff
//                     does) -- dead work that memplan-remove-dead-work erases
//   --main=gradcheck  adds @loss, @loss_and_grads and a @main that checks
//                     every parameter's gradient against central finite
//                     differences of the loss along a pseudo-random direction
//   --dynamic=batch   the batch dimension is dynamic (`tensor<?x...>`, the
//                     symbol `B` of docs/Lifetimes.md); with --main=run,
//                     @main runs the step at each of --run-batches, sizes
//                     chosen at run time (every model); with
//                     MEMPLAN_BATCH=N in its environment, @main runs the
//                     step once at N instead; with --target=nvvm each size
//                     runs --steps device steps and prints the counters
//                     (the device arena grows when a size needs more)
//
//===----------------------------------------------------------------------===//

#include "Models.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace zoo;
namespace cl = llvm::cl;

static cl::OptionCategory category("memplan-zoo options");
static cl::opt<std::string>
    modelName("model", cl::desc("mlp | transformer | cnn | unet"),
              cl::init("mlp"), cl::cat(category));
static cl::opt<std::string>
    mainKind("main", cl::desc("none (default) | run | gradcheck"),
             cl::init("none"), cl::cat(category));
static cl::opt<std::string>
    targetName("target",
               cl::desc("cpu (default) | nvvm: see the tool's description"),
               cl::init("cpu"), cl::cat(category));
static cl::opt<int64_t>
    steps("steps", cl::desc("--main=run: training steps (default 1)"),
          cl::init(1), cl::cat(category));
static cl::opt<std::string> printWhat(
    "print",
    cl::desc("--main=run: what to print: all (default: the loss and every "
             "parameter after the last step) | loss (the loss of every step, "
             "nothing else: for realistic sizes, whose parameters would "
             "print gigabytes)"),
    cl::init("all"), cl::cat(category));
static cl::opt<std::string> dtype("dtype", cl::desc("f32 (default) | f64"),
                                  cl::init("f32"), cl::cat(category));
static cl::opt<double> learningRate("lr", cl::desc("SGD learning rate"),
                                    cl::init(0.1), cl::cat(category));
static cl::opt<double>
    epsilon("epsilon", cl::desc("Finite-difference step of --main=gradcheck"),
            cl::init(1e-5), cl::cat(category));
static cl::opt<double> tolerance(
    "tolerance",
    cl::desc("Largest relative gradient error --main=gradcheck accepts"),
    cl::init(1e-6), cl::cat(category));
static cl::opt<std::string> outputPath("o", cl::desc("Output file"),
                                       cl::init("-"), cl::cat(category));
// Shared knobs.
static cl::opt<int64_t> batch("batch", cl::desc("Batch size"), cl::init(-1),
                              cl::cat(category));
// MLP.
static cl::opt<int64_t> depth("depth", cl::desc("MLP: hidden layers"),
                              cl::init(2), cl::cat(category));
static cl::opt<int64_t> width("width", cl::desc("MLP: hidden width"),
                              cl::init(16), cl::cat(category));
static cl::opt<int64_t> inputs("inputs", cl::desc("MLP: input features"),
                               cl::init(8), cl::cat(category));
static cl::opt<int64_t>
    classes("classes", cl::desc("MLP, CNN: output classes (default 4, 3)"),
            cl::init(-1), cl::cat(category));
// Convolutional models.
static cl::opt<int64_t>
    stages("stages", cl::desc("CNN: stages (resolution halves after each)"),
           cl::init(2), cl::cat(category));
static cl::opt<int64_t> blocks("blocks",
                               cl::desc("CNN: residual blocks per stage"),
                               cl::init(1), cl::cat(category));
static cl::opt<int64_t> levels("levels", cl::desc("U-Net: down/up levels"),
                               cl::init(2), cl::cat(category));
static cl::opt<int64_t> channels(
    "channels",
    cl::desc("CNN, U-Net: channels of the first stage/level (default 4, 2)"),
    cl::init(-1), cl::cat(category));
static cl::opt<int64_t> image("image",
                              cl::desc("CNN, U-Net: image height = width"),
                              cl::init(8), cl::cat(category));
static cl::opt<int64_t>
    inChannels("in-channels",
               cl::desc("CNN, U-Net: input channels (default 3, 1)"),
               cl::init(-1), cl::cat(category));
static cl::opt<int64_t> outChannels("out-channels",
                                    cl::desc("U-Net: output channels"),
                                    cl::init(1), cl::cat(category));
// Transformer.
static cl::opt<int64_t> layers("layers", cl::desc("Transformer: layers"),
                               cl::init(1), cl::cat(category));
static cl::opt<int64_t> dModel("d-model", cl::desc("Transformer: width"),
                               cl::init(8), cl::cat(category));
static cl::opt<int64_t> heads("heads", cl::desc("Transformer: attention heads"),
                              cl::init(2), cl::cat(category));
static cl::opt<int64_t> seq("seq", cl::desc("Transformer: sequence length"),
                            cl::init(4), cl::cat(category));
static cl::opt<int64_t> vocab("vocab", cl::desc("Transformer: vocabulary"),
                              cl::init(11), cl::cat(category));
static cl::opt<int64_t> ffnMult("ffn-mult",
                                cl::desc("Transformer: FFN width / d-model"),
                                cl::init(4), cl::cat(category));

static cl::opt<std::string> dynamicDims(
    "dynamic",
    cl::desc("batch: the batch dimension is dynamic, named B (every "
             "model); batch,seq: the transformer's sequence length too, "
             "named S (at most --seq); @train_step then works for every "
             "size"),
    cl::init(""), cl::cat(category));
static cl::list<int64_t>
    runBatches("run-batches",
               cl::desc("--dynamic=batch with --main: the batch sizes @main "
                        "runs at, in order (default: --batch); with "
                        "--main=run, MEMPLAN_BATCH=N (and MEMPLAN_SEQ=L with "
                        "--dynamic=batch,seq) in the environment at run time "
                        "runs the step once at that size instead"),
               cl::CommaSeparated, cl::cat(category));

static cl::list<std::string>
    freeze("freeze",
           cl::desc("Freeze the parameters whose names start with one of "
                    "these comma-separated prefixes (e.g. w0,b0: the MLP's "
                    "first layer; l0_: a transformer's first block): "
                    "@train_step returns them unchanged; their gradients are "
                    "still computed, and nobody uses them"),
           cl::CommaSeparated, cl::cat(category));

namespace {
bool isFrozen(const std::string &name) {
  return llvm::any_of(freeze, [&](const std::string &prefix) {
    return llvm::StringRef(name).starts_with(prefix);
  });
}

[[noreturn]] void fail(const llvm::Twine &message) {
  llvm::errs() << "memplan-zoo: error: " << message << "\n";
  exit(2);
}

struct ModuleBuilder {
  MLIRContext &ctx;
  ModuleOp module;
  const Model &model;
  FloatType ft;
  Location loc;
  bool device = false;
  /// The batch @main runs at when --run-batches is not given.
  int64_t defaultBatch = 4;

  bool dynamicBatch() const {
    return dynamicDims == "batch" || dynamicDims == "batch,seq";
  }
  /// The transformer's sequence length is dynamic too (S, dimension 1 of
  /// the tokens, bounded by --seq).
  bool dynamicSeq() const { return dynamicDims == "batch,seq"; }

  SmallVector<Type> batchTypes() {
    SmallVector<Type> types;
    for (const BatchInput &in : model.batch())
      types.push_back(
          RankedTensorType::get(in.shape, in.kind == BatchInput::Tokens
                                              ? Type(IntegerType::get(&ctx, 32))
                                              : Type(ft)));
    return types;
  }
  SmallVector<Type> paramTypes() {
    SmallVector<Type> types;
    for (const Param &p : model.params())
      types.push_back(RankedTensorType::get(p.shape, ft));
    return types;
  }
  Type lossType() { return RankedTensorType::get({}, ft); }

  /// A function taking (batch..., params...) whose body `fill` emits and
  /// returns.
  func::FuncOp function(
      StringRef name, TypeRange results,
      function_ref<SmallVector<Value>(Emitter &, ValueRange, ValueRange)> fill,
      TypeRange extraArgs = {}) {
    SmallVector<Type> args = batchTypes();
    llvm::append_range(args, paramTypes());
    llvm::append_range(args, extraArgs);
    OpBuilder b(&ctx);
    b.setInsertionPointToEnd(module.getBody());
    auto func =
        func::FuncOp::create(b, loc, name, b.getFunctionType(args, results));
    Block *entry = func.addEntryBlock();
    b.setInsertionPointToStart(entry);
    Emitter e(b, loc, ft);
    size_t nb = model.batch().size();
    if (dynamicBatch()) {
      // Every dynamic dimension is the batch: dimension 0 of the first
      // batch input, named B for memplan (memplan.symbols).
      auto first = cast<RankedTensorType>(args.front());
      SmallVector<Attribute> names(first.getRank(), b.getStringAttr(""));
      names[0] = b.getStringAttr("B");
      // The sequence: at most the positional table's --seq rows, which
      // memplan derives from the table's slice (no memplan.bounds needed).
      if (dynamicSeq())
        names[1] = b.getStringAttr("S");
      func.setArgAttr(0, "memplan.symbols", b.getArrayAttr(names));
      e.dynamicSize = tensor::DimOp::create(b, loc, entry->getArgument(0), 0);
    }
    SmallVector<Value> ret =
        fill(e, entry->getArguments().take_front(nb),
             entry->getArguments().drop_front(nb).drop_back(extraArgs.size()));
    func::ReturnOp::create(b, loc, ret);
    return func;
  }

  void trainStep() {
    SmallVector<Type> extra;
    if (device)
      extra.push_back(lossType());
    SmallVector<Type> results{lossType()};
    llvm::append_range(results, paramTypes());
    double lr = learningRate;
    function(
        "train_step", results,
        [&](Emitter &e, ValueRange bt, ValueRange ps) {
          SmallVector<Value> grads;
          Value loss = model.emit(e, bt, ps, &grads);
          SmallVector<Value> ret{loss};
          Block *entry = e.b.getInsertionBlock();
          if (device) {
            // Donation: the loss goes into the last argument as soon as it
            // exists; each parameter is updated in place (its buffer is the
            // update's init) after the last op that reads the old value.
            Operation *copy = linalg::CopyOp::create(
                e.b, loc, loss, entry->getArguments().back());
            if (Operation *def = loss.getDefiningOp())
              copy->moveAfter(def);
            ret[0] = copy->getResult(0);
          }
          for (auto [p, g, param] : llvm::zip(ps, grads, model.params())) {
            if (isFrozen(param.name)) {
              ret.push_back(p); // not trained: its gradient is dead
              continue;
            }
            if (device) {
              ret.push_back(updateInPlace(e, entry, p, g, lr));
              continue;
            }
            Value updated = e.map(
                {p, g}, [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                  Value s = arith::MulFOp::create(nb, nl, a[1], e.cst(nb, lr));
                  return arith::SubFOp::create(nb, nl, a[0], s);
                });
            // Apply the update as soon as the gradient exists (as optimizers
            // fused into the backward pass do), so gradients do not pile up.
            Operation *update = updated.getDefiningOp();
            Operation *init = update->getOperand(2).getDefiningOp();
            if (Operation *def = g.getDefiningOp()) {
              init->moveAfter(def);
              update->moveAfter(init);
            }
            ret.push_back(updated);
          }
          return ret;
        },
        extra);
  }

  /// p - lr * g written into p's own buffer, placed after the gradient and
  /// after every op of `entry` that reads p.
  Value updateInPlace(Emitter &e, Block *entry, Value p, Value g, double lr) {
    unsigned rank = cast<RankedTensorType>(p.getType()).getRank();
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, &ctx);
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    auto update = linalg::GenericOp::create(
        e.b, loc, TypeRange{p.getType()}, ValueRange{g}, ValueRange{p},
        SmallVector<AffineMap>{id, id}, iters,
        [&](OpBuilder &nb, Location nl, ValueRange a) {
          Value s = arith::MulFOp::create(nb, nl, a[0], e.cst(nb, lr));
          linalg::YieldOp::create(
              nb, nl, arith::SubFOp::create(nb, nl, a[1], s).getResult());
        });
    Operation *after = g.getDefiningOp();
    for (Operation *user : p.getUsers()) {
      Operation *top = entry->findAncestorOpInBlock(*user);
      if (!top || top == update.getOperation())
        continue;
      if (!after || after->isBeforeInBlock(top))
        after = top;
    }
    if (after)
      update->moveAfter(after);
    return update.getResult(0);
  }

  void lossFunctions() {
    function("loss", {lossType()},
             [&](Emitter &e, ValueRange bt, ValueRange ps) {
               return SmallVector<Value>{model.emit(e, bt, ps, nullptr)};
             });
    SmallVector<Type> results{lossType()};
    llvm::append_range(results, paramTypes());
    function("loss_and_grads", results,
             [&](Emitter &e, ValueRange bt, ValueRange ps) {
               SmallVector<Value> grads;
               SmallVector<Value> ret{model.emit(e, bt, ps, &grads)};
               llvm::append_range(ret, grads);
               return ret;
             });
  }

  // ----- @main -----

  /// @pseudo(lin, salt) = ((lin * 7919 + salt * 104729 + 13) mod 1009) / 1009 -
  /// 0.5
  void pseudo() {
    OpBuilder b(&ctx);
    b.setInsertionPointToEnd(module.getBody());
    Type idx = b.getIndexType();
    auto func = func::FuncOp::create(b, loc, "pseudo",
                                     b.getFunctionType({idx, idx}, {ft}));
    func.setPrivate();
    if (device)
      func->setAttr("memplan.host", b.getUnitAttr());
    Block *entry = func.addEntryBlock();
    b.setInsertionPointToStart(entry);
    auto c = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value t0 = arith::MulIOp::create(b, loc, entry->getArgument(0), c(7919));
    Value t1 = arith::MulIOp::create(b, loc, entry->getArgument(1), c(104729));
    Value s = arith::AddIOp::create(
        b, loc, arith::AddIOp::create(b, loc, t0, t1), c(13));
    Value r = arith::RemUIOp::create(b, loc, s, c(1009));
    Value i = arith::IndexCastOp::create(b, loc, b.getI64Type(), r);
    Value f = arith::SIToFPOp::create(b, loc, ft, i);
    Value q = arith::DivFOp::create(
        b, loc, f,
        arith::ConstantOp::create(b, loc, ft, b.getFloatAttr(ft, 1009.0)));
    Value v = arith::SubFOp::create(
        b, loc, q,
        arith::ConstantOp::create(b, loc, ft, b.getFloatAttr(ft, 0.5)));
    func::ReturnOp::create(b, loc, v);
  }

  /// The linear index of the current element of a generic over `shape`
  /// (dimension 0's size does not enter; a later dynamic dimension is the
  /// sequence, `runSeq`).
  Value linearIndex(OpBuilder &b, Location l, ArrayRef<int64_t> shape) {
    Value lin = arith::ConstantIndexOp::create(b, l, 0);
    for (unsigned d = 0; d < shape.size(); ++d) {
      Value size;
      if (!ShapedType::isDynamic(shape[d]))
        size = arith::ConstantIndexOp::create(b, l, shape[d]);
      else if (d == 0)
        size = arith::ConstantIndexOp::create(b, l, 1);
      else
        size = runSeq;
      Value scaled = arith::MulIOp::create(b, l, lin, size);
      lin =
          arith::AddIOp::create(b, l, scaled, linalg::IndexOp::create(b, l, d));
    }
    return lin;
  }

  /// The batch size @main runs the step at (--dynamic=batch).
  Value runBatch;
  /// The sequence length @main runs the step at (--dynamic=batch,seq).
  Value runSeq;

  /// A tensor of `elem` produced element by element by `body(lin, idx...)`;
  /// dynamic dimensions are `runBatch`.
  Value generate(OpBuilder &b, ArrayRef<int64_t> shape, Type elem,
                 function_ref<Value(OpBuilder &, Location, Value)> body) {
    SmallVector<Value> sizes;
    for (auto [d, size] : llvm::enumerate(shape))
      if (ShapedType::isDynamic(size))
        sizes.push_back(d == 0 ? runBatch : runSeq);
    Value out = tensor::EmptyOp::create(b, loc, shape, elem, sizes);
    unsigned n = shape.size();
    SmallVector<utils::IteratorType> iters(n, utils::IteratorType::parallel);
    return linalg::GenericOp::create(
               b, loc, TypeRange{out.getType()}, ValueRange{}, ValueRange{out},
               SmallVector<AffineMap>{
                   AffineMap::getMultiDimIdentityMap(n, &ctx)},
               iters,
               [&](OpBuilder &nb, Location nl, ValueRange) {
                 linalg::YieldOp::create(
                     nb, nl, body(nb, nl, linearIndex(nb, nl, shape)));
               })
        .getResult(0);
  }

  Value floats(OpBuilder &b, ArrayRef<int64_t> shape, int64_t salt,
               double scale, double offset) {
    return generate(
        b, shape, ft, [&](OpBuilder &nb, Location nl, Value lin) -> Value {
          Value s = arith::ConstantIndexOp::create(nb, nl, salt);
          Value r = func::CallOp::create(nb, nl, "pseudo", TypeRange{ft},
                                         ValueRange{lin, s})
                        .getResult(0);
          Value m = arith::MulFOp::create(
              nb, nl, r,
              arith::ConstantOp::create(nb, nl, ft,
                                        nb.getFloatAttr(ft, scale)));
          return arith::AddFOp::create(
              nb, nl, m,
              arith::ConstantOp::create(nb, nl, ft,
                                        nb.getFloatAttr(ft, offset)));
        });
  }

  SmallVector<Value> makeBatch(OpBuilder &b) {
    SmallVector<Value> values;
    int64_t salt = 1;
    for (const BatchInput &in : model.batch()) {
      ++salt;
      if (in.kind == BatchInput::Floats) {
        values.push_back(floats(b, in.shape, salt, 2.0, 0.0));
        continue;
      }
      int64_t classes = in.classes;
      int64_t s = salt;
      if (in.kind == BatchInput::Tokens) {
        values.push_back(generate(
            b, in.shape, b.getI32Type(),
            [&](OpBuilder &nb, Location nl, Value lin) -> Value {
              Value t = arith::MulIOp::create(
                  nb, nl, lin, arith::ConstantIndexOp::create(nb, nl, 31));
              Value u = arith::AddIOp::create(
                  nb, nl, t, arith::ConstantIndexOp::create(nb, nl, 17 * s));
              Value r = arith::RemUIOp::create(
                  nb, nl, u, arith::ConstantIndexOp::create(nb, nl, classes));
              return arith::IndexCastOp::create(nb, nl, nb.getI32Type(), r);
            }));
        continue;
      }
      // One-hot rows: row r has its 1 at (3 r + salt) mod classes.
      values.push_back(generate(
          b, in.shape, ft, [&](OpBuilder &nb, Location nl, Value) -> Value {
            Value row = linalg::IndexOp::create(nb, nl, 0);
            Value col = linalg::IndexOp::create(nb, nl, 1);
            Value t = arith::MulIOp::create(
                nb, nl, row, arith::ConstantIndexOp::create(nb, nl, 3));
            Value u = arith::AddIOp::create(
                nb, nl, t, arith::ConstantIndexOp::create(nb, nl, s));
            Value cls = arith::RemUIOp::create(
                nb, nl, u, arith::ConstantIndexOp::create(nb, nl, classes));
            Value hit = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq,
                                              col, cls);
            return arith::SelectOp::create(
                nb, nl, hit,
                arith::ConstantOp::create(nb, nl, ft, nb.getFloatAttr(ft, 1.0)),
                arith::ConstantOp::create(nb, nl, ft,
                                          nb.getFloatAttr(ft, 0.0)));
          }));
    }
    return values;
  }

  SmallVector<Value> makeParams(OpBuilder &b) {
    SmallVector<Value> values;
    int64_t salt = 100;
    for (const Param &p : model.params())
      values.push_back(floats(b, p.shape, ++salt, 2.0 * p.init, p.offset));
    return values;
  }

  StringRef printer() {
    if (device)
      return ft.isF64() ? "memplan_print_f64" : "memplan_print_f32";
    return ft.isF64() ? "printMemrefF64" : "printMemrefF32";
  }

  void print(OpBuilder &b, Value tensor) {
    auto type = cast<RankedTensorType>(tensor.getType());
    auto memType = MemRefType::get(type.getShape(), type.getElementType());
    Value m = bufferization::ToBufferOp::create(b, loc, memType, tensor);
    Value u = memref::CastOp::create(b, loc, UnrankedMemRefType::get(ft, 0), m);
    func::CallOp::create(b, loc, printer(), TypeRange{}, ValueRange{u});
  }

  /// --print=loss: each step's loss is printed in the loop, nothing after.
  bool lossEachStep() const { return printWhat == "loss"; }

  Value index(OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }

  /// --steps steps on the host: parameters flow from step to step.
  void runOnHost(OpBuilder &b, ArrayRef<Value> args, size_t nb) {
    SmallVector<Type> stepResults{lossType()};
    llvm::append_range(stepResults, paramTypes());
    if (steps == 1) {
      auto call = func::CallOp::create(b, loc, "train_step", stepResults, args);
      for (Value r : call.getResults().take_front(
               lossEachStep() ? 1 : call.getNumResults()))
        print(b, r);
      return;
    }
    SmallVector<Value> carried(args.begin() + nb, args.end());
    carried.insert(carried.begin(),
                   tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, ft));
    auto loop = scf::ForOp::create(
        b, loc, index(b, 0), index(b, steps), index(b, 1), carried,
        [&](OpBuilder &lb, Location ll, Value, ValueRange iter) {
          SmallVector<Value> in(args.begin(), args.begin() + nb);
          llvm::append_range(in, iter.drop_front());
          auto call =
              func::CallOp::create(lb, ll, "train_step", stepResults, in);
          if (lossEachStep())
            print(lb, call.getResult(0));
          // The step returns new buffers: copy them into the loop's own, so
          // the loop carries the same buffers from iteration to iteration.
          SmallVector<Value> next;
          for (auto [r, into] : llvm::zip(call.getResults(), iter))
            next.push_back(
                linalg::CopyOp::create(lb, ll, r, into).getResult(0));
          scf::YieldOp::create(lb, ll, next);
        });
    if (!lossEachStep())
      for (Value r : loop.getResults())
        print(b, r);
  }

  /// Copies a device tensor to a host buffer, prints it, frees the buffer.
  /// The device buffer is only read (`read_only`): without that, inside the
  /// steps loop one-shot-bufferize copies it first with a host memref.copy,
  /// which reads device memory from the host (a segfault on a GPU; the
  /// values are fine on the CPU and under test/Utils/fake-libcuda.c).
  void printFromDevice(OpBuilder &b, Value r) {
    auto type = cast<RankedTensorType>(r.getType());
    auto memType = MemRefType::get(type.getShape(), type.getElementType());
    Value d = bufferization::ToBufferOp::create(b, loc, memType, r,
                                                /*read_only=*/true);
    Value h = memref::AllocOp::create(b, loc, memType);
    gpu::MemcpyOp::create(b, loc, TypeRange(), ValueRange(), h, d);
    Value u = memref::CastOp::create(b, loc, UnrankedMemRefType::get(ft, 0), h);
    func::CallOp::create(b, loc, printer(), TypeRange{}, ValueRange{u});
    memref::DeallocOp::create(b, loc, h);
  }

  /// The device driver: host inputs copied to device buffers, --steps steps
  /// with the parameters and the loss in those buffers (train_step writes
  /// them in place), the outputs copied back and printed, then the runtime's
  /// counters.
  void runOnDevice(OpBuilder &b, ArrayRef<Value> args, size_t nb) {
    SmallVector<Value> deviceBuffers;
    auto toDevice = [&](Value host) -> Value {
      auto type = cast<RankedTensorType>(host.getType());
      auto memType = MemRefType::get(type.getShape(), type.getElementType());
      Value h = bufferization::ToBufferOp::create(b, loc, memType, host);
      // A dynamic batch (or sequence) dimension: the host tensor's size.
      SmallVector<Value> sizes;
      for (auto [d, size] : llvm::enumerate(type.getShape()))
        if (ShapedType::isDynamic(size))
          sizes.push_back(tensor::DimOp::create(b, loc, host, d));
      Value d = gpu::AllocOp::create(b, loc, memType, Type(), ValueRange(),
                                     sizes, ValueRange(), false)
                    .getMemref();
      deviceBuffers.push_back(d);
      gpu::MemcpyOp::create(b, loc, TypeRange(), ValueRange(), d, h);
      return bufferization::ToTensorOp::create(b, loc, type, d,
                                               /*restrict=*/true,
                                               /*writable=*/true);
    };
    SmallVector<Value> onDevice;
    for (Value a : args)
      onDevice.push_back(toDevice(a));
    // The loss buffer starts at 0.
    Value zeroLoss =
        linalg::FillOp::create(b, loc,
                               ValueRange{arith::ConstantOp::create(
                                   b, loc, ft, b.getFloatAttr(ft, 0.0))},
                               ValueRange{tensor::EmptyOp::create(
                                   b, loc, ArrayRef<int64_t>{}, ft)})
            .getResult(0);
    SmallVector<Value> carried{toDevice(zeroLoss)};
    llvm::append_range(carried, ArrayRef<Value>(onDevice).drop_front(nb));
    SmallVector<Type> stepResults{lossType()};
    llvm::append_range(stepResults, paramTypes());
    func::CallOp::create(b, loc, "memplan_steps_begin", TypeRange{},
                         ValueRange{});
    auto loop = scf::ForOp::create(
        b, loc, index(b, 0), index(b, steps), index(b, 1), carried,
        [&](OpBuilder &lb, Location ll, Value iv, ValueRange iter) {
          SmallVector<Value> in(onDevice.begin(), onDevice.begin() + nb);
          llvm::append_range(in, iter.drop_front());
          in.push_back(iter.front());
          auto call =
              func::CallOp::create(lb, ll, "train_step", stepResults, in);
          Value next = arith::AddIOp::create(
              lb, ll, iv, arith::ConstantIndexOp::create(lb, ll, 1));
          Value step =
              arith::IndexCastOp::create(lb, ll, lb.getI64Type(), next);
          func::CallOp::create(lb, ll, "memplan_step_done", TypeRange{},
                               ValueRange{step});
          // After the step's mark: the copy and the print are not timed.
          if (lossEachStep())
            printFromDevice(lb, call.getResult(0));
          scf::YieldOp::create(lb, ll, call.getResults());
        });
    if (!lossEachStep())
      for (Value r : loop.getResults())
        printFromDevice(b, r);
    // @run_at (a dynamic batch) runs once per size: its device buffers go
    // before the next size makes its own. The step wrote the parameters
    // and the loss in place, so the loop's results are these buffers.
    if (dynamicBatch())
      for (Value d : deviceBuffers)
        gpu::DeallocOp::create(b, loc, TypeRange(), ValueRange(), d);
    func::CallOp::create(b, loc, "memplan_print_counters", TypeRange{},
                         ValueRange{});
  }

  static constexpr int64_t kMaxRunBatch = int64_t(1) << 20;
  /// The environment variable `var` (MEMPLAN_BATCH, MEMPLAN_SEQ) as an
  /// index: 0 when unset; a value that is not an integer from 1 to `max`
  /// stops the program with a message on stderr and exit status 2.
  Value sizeFromEnvironment(OpBuilder &b, StringRef var, int64_t max) {
    MLIRContext *c = b.getContext();
    auto ptr = LLVM::LLVMPointerType::get(c);
    std::string nameSymbol = ("__memplan_" + var + "_name").str();
    std::string errorSymbol = ("__memplan_" + var + "_error").str();
    std::string error = ("error: " + var + " must be an integer from 1 to " +
                         std::to_string(max) + "\n")
                            .str();
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      auto string = [&](StringRef symbol, StringRef text) {
        auto type = LLVM::LLVMArrayType::get(b.getI8Type(), text.size());
        LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                               LLVM::Linkage::Internal, symbol,
                               b.getStringAttr(text));
      };
      std::string withNul = var.str();
      withNul.push_back('\0');
      string(nameSymbol, withNul);
      string(errorSymbol, error);
      // The C library functions, declared once.
      if (!module.lookupSymbol("getenv")) {
        func::FuncOp::create(
            b, loc, "write",
            b.getFunctionType({b.getI32Type(), ptr, b.getI64Type()},
                              {b.getI64Type()}))
            .setPrivate();
        func::FuncOp::create(b, loc, "exit",
                             b.getFunctionType({b.getI32Type()}, {}))
            .setPrivate();
        func::FuncOp::create(b, loc, "getenv", b.getFunctionType({ptr}, {ptr}))
            .setPrivate();
        func::FuncOp::create(
            b, loc, "strtoll",
            b.getFunctionType({ptr, ptr, b.getI32Type()}, {b.getI64Type()}))
            .setPrivate();
      }
    }
    Value name = LLVM::AddressOfOp::create(b, loc, ptr, nameSymbol);
    Value text = func::CallOp::create(b, loc, "getenv", TypeRange{ptr}, name)
                     .getResult(0);
    Value null = LLVM::ZeroOp::create(b, loc, ptr);
    Value unset =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, text, null);
    auto ifOp = scf::IfOp::create(b, loc, b.getIndexType(), unset,
                                  /*withElseRegion=*/true);
    {
      OpBuilder tb = ifOp.getThenBodyBuilder();
      scf::YieldOp::create(tb, loc, index(tb, 0));
      OpBuilder eb = ifOp.getElseBodyBuilder();
      // strtoll(text, &end, 10); the whole text must be read.
      Value one = LLVM::ConstantOp::create(eb, loc, eb.getI64Type(), 1);
      Value endSlot = LLVM::AllocaOp::create(eb, loc, ptr, ptr, one);
      Value ten = LLVM::ConstantOp::create(eb, loc, eb.getI32Type(), 10);
      Value value =
          func::CallOp::create(eb, loc, "strtoll", TypeRange{eb.getI64Type()},
                               ValueRange{text, endSlot, ten})
              .getResult(0);
      Value end = LLVM::LoadOp::create(eb, loc, ptr, endSlot);
      Value last = LLVM::LoadOp::create(eb, loc, eb.getI8Type(), end);
      Value zero8 = LLVM::ConstantOp::create(eb, loc, eb.getI8Type(), 0);
      Value readAll =
          LLVM::ICmpOp::create(eb, loc, LLVM::ICmpPredicate::eq, last, zero8);
      Value nonEmpty =
          LLVM::ICmpOp::create(eb, loc, LLVM::ICmpPredicate::ne, end, text);
      // Digits only: strtoll would also skip blanks and take a sign.
      Value first = LLVM::LoadOp::create(eb, loc, eb.getI8Type(), text);
      Value digit = LLVM::ICmpOp::create(
          eb, loc, LLVM::ICmpPredicate::ult,
          LLVM::SubOp::create(
              eb, loc, first,
              LLVM::ConstantOp::create(eb, loc, eb.getI8Type(), '0')),
          LLVM::ConstantOp::create(eb, loc, eb.getI8Type(), 10));
      nonEmpty = arith::AndIOp::create(eb, loc, nonEmpty, digit);
      Value positive = arith::CmpIOp::create(
          eb, loc, arith::CmpIPredicate::sgt, value,
          arith::ConstantIntOp::create(eb, loc, eb.getI64Type(), 0));
      Value small = arith::CmpIOp::create(
          eb, loc, arith::CmpIPredicate::sle, value,
          arith::ConstantIntOp::create(eb, loc, eb.getI64Type(), max));
      Value ok = arith::AndIOp::create(
          eb, loc, arith::AndIOp::create(eb, loc, readAll, nonEmpty),
          arith::AndIOp::create(eb, loc, positive, small));
      // Otherwise: the message on stderr and exit status 2.
      Value bad = arith::XOrIOp::create(
          eb, loc, ok, arith::ConstantIntOp::create(eb, loc, 1, 1));
      auto fail = scf::IfOp::create(eb, loc, bad, /*withElseRegion=*/false);
      {
        OpBuilder fb = fail.getThenBodyBuilder();
        Value message = LLVM::AddressOfOp::create(fb, loc, ptr, errorSymbol);
        func::CallOp::create(
            fb, loc, "write", TypeRange{fb.getI64Type()},
            ValueRange{
                arith::ConstantIntOp::create(fb, loc, fb.getI32Type(), 2),
                message,
                arith::ConstantIntOp::create(fb, loc, fb.getI64Type(),
                                             error.size())});
        func::CallOp::create(fb, loc, "exit", TypeRange{},
                             ValueRange{arith::ConstantIntOp::create(
                                 fb, loc, fb.getI32Type(), 2)});
      }
      scf::YieldOp::create(
          eb, loc,
          arith::IndexCastOp::create(eb, loc, eb.getIndexType(), value)
              .getResult());
    }
    return ifOp.getResult(0);
  }

  /// @run_at(%B: index [, %S: index]): the step on a batch of that size
  /// (and sequence length), its outputs printed. Straight-line: the
  /// planner sizes its tensors from the arguments (memplan.symbols).
  func::FuncOp runAtFunction() {
    OpBuilder b(&ctx);
    b.setInsertionPointToEnd(module.getBody());
    SmallVector<Type> args{b.getIndexType()};
    if (dynamicSeq())
      args.push_back(b.getIndexType());
    auto func =
        func::FuncOp::create(b, loc, "run_at", b.getFunctionType(args, {}));
    func.setPrivate();
    if (device)
      func->setAttr("memplan.host", b.getUnitAttr());
    func.setArgAttr(0, "memplan.symbols", b.getStringAttr("B"));
    if (dynamicSeq()) {
      func.setArgAttr(1, "memplan.symbols", b.getStringAttr("S"));
      // @main passes at most --seq (MEMPLAN_SEQ is checked): say so, for
      // budgets and bounded plans (@train_step derives it from its table).
      func->setAttr("memplan.bounds", b.getDictionaryAttr(b.getNamedAttr(
                                          "S", b.getI64IntegerAttr(seq))));
    }
    Block *entry = func.addEntryBlock();
    b.setInsertionPointToStart(entry);
    // The batch is made at the arguments' sizes; @main's are kept.
    Value mainBatch = runBatch, mainSeq = runSeq;
    runBatch = entry->getArgument(0);
    runSeq = dynamicSeq() ? entry->getArgument(1) : Value();
    runSteps(b);
    func::ReturnOp::create(b, loc);
    runBatch = mainBatch;
    runSeq = mainSeq;
    return func;
  }

  /// The inputs at `runBatch` (and `runSeq`), then --steps steps on the
  /// device or the host.
  void runSteps(OpBuilder &b) {
    size_t nb = 0;
    SmallVector<Value> args = batchAndParams(b, nb);
    if (device)
      runOnDevice(b, args, nb);
    else
      runOnHost(b, args, nb);
  }

  /// A batch at `runBatch` (and `runSeq`), then the parameters: the step's
  /// arguments; `nb` gets the number of batch inputs.
  SmallVector<Value> batchAndParams(OpBuilder &b, size_t &nb) {
    SmallVector<Value> args = makeBatch(b);
    nb = args.size();
    llvm::append_range(args, makeParams(b));
    return args;
  }

  void mainFunction(bool gradcheck) {
    pseudo();
    OpBuilder b(&ctx);
    b.setInsertionPointToEnd(module.getBody());
    auto printDecl = func::FuncOp::create(
        b, loc, printer(),
        b.getFunctionType({UnrankedMemRefType::get(ft, 0)}, {}));
    printDecl.setPrivate();
    if (device) {
      // memplan's runtime: printers take memrefs through the C interface.
      printDecl->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                         b.getUnitAttr());
      for (StringRef name : {"memplan_steps_begin", "memplan_print_counters"})
        func::FuncOp::create(b, loc, name, b.getFunctionType({}, {}))
            .setPrivate();
      func::FuncOp::create(b, loc, "memplan_step_done",
                           b.getFunctionType({b.getI64Type()}, {}))
          .setPrivate();
    }
    auto func = func::FuncOp::create(b, loc, "main", b.getFunctionType({}, {}));
    if (device)
      func->setAttr("memplan.host", b.getUnitAttr());
    b.setInsertionPointToStart(func.addEntryBlock());
    SmallVector<int64_t> sizes(runBatches.begin(), runBatches.end());
    if (sizes.empty())
      sizes.push_back(defaultBatch);
    // A dynamic step run by --main=run takes its batch size from the
    // environment when MEMPLAN_BATCH is set: one compiled program, any size.
    // So does MEMPLAN_SEQ a dynamic sequence length (at most --seq).
    Value fromEnvironment, seqFromEnvironment;
    if (dynamicBatch() && !gradcheck) {
      fromEnvironment = sizeFromEnvironment(b, "MEMPLAN_BATCH", kMaxRunBatch);
      if (dynamicSeq())
        seqFromEnvironment = sizeFromEnvironment(b, "MEMPLAN_SEQ", seq);
    }
    if (dynamicBatch())
      runBatch = index(b, sizes.front());
    if (dynamicSeq())
      runSeq = index(b, seq);
    SmallVector<Type> stepResults{lossType()};
    llvm::append_range(stepResults, paramTypes());
    if (!gradcheck) {
      if (!fromEnvironment) {
        runSteps(b);
      } else {
        func::FuncOp runAt = runAtFunction();
        auto isSet = [&](Value v) {
          return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, v,
                                       index(b, 0));
        };
        Value batchSet = isSet(fromEnvironment);
        Value given = batchSet;
        Value seqSet;
        if (seqFromEnvironment) {
          seqSet = isSet(seqFromEnvironment);
          given = arith::OrIOp::create(b, loc, batchSet, seqSet);
        }
        // @main creates no tensor: @run_at, straight-line, runs each step.
        auto call = [&](OpBuilder &cb, Value batchSize, Value seqSize) {
          SmallVector<Value> operands{batchSize};
          if (dynamicSeq())
            operands.push_back(seqSize);
          func::CallOp::create(cb, loc, runAt, operands);
        };
        auto choice = scf::IfOp::create(b, loc, given, /*withElse=*/true);
        // MEMPLAN_BATCH=N (and MEMPLAN_SEQ=L): the step once at that size,
        // the other size at its default.
        OpBuilder tb = choice.getThenBodyBuilder();
        Value atBatch = arith::SelectOp::create(tb, loc, batchSet,
                                                fromEnvironment, runBatch);
        Value atSeq = runSeq;
        if (seqFromEnvironment)
          atSeq = arith::SelectOp::create(tb, loc, seqSet, seqFromEnvironment,
                                          runSeq);
        call(tb, atBatch, atSeq);
        // Otherwise the step at each of --run-batches in turn, compiled once.
        OpBuilder eb = choice.getElseBodyBuilder();
        for (int64_t size : sizes)
          call(eb, index(eb, size), runSeq);
      }
      func::ReturnOp::create(b, loc);
      return;
    }
    size_t nb = 0;
    SmallVector<Value> args = batchAndParams(b, nb);
    Emitter e(b, loc, ft);
    auto grads =
        func::CallOp::create(b, loc, "loss_and_grads", stepResults, args);
    double eps = epsilon, tol = tolerance;
    for (auto [k, p] : llvm::enumerate(model.params())) {
      Value param = args[nb + k];
      Value dir = floats(b, p.shape, 1000 + k, 2.0, 0.0);
      // The directional derivative the backward pass claims: <grad, dir>.
      Value claimed =
          e.sumAll(e.map({grads.getResult(1 + k), dir},
                         [](OpBuilder &nb2, Location nl, ValueRange a) {
                           return arith::MulFOp::create(nb2, nl, a[0], a[1]);
                         }));
      auto shifted = [&](double sign) {
        SmallVector<Value> moved(args);
        moved[nb + k] =
            e.map({param, dir},
                  [&](OpBuilder &nb2, Location nl, ValueRange a) -> Value {
                    Value s = arith::MulFOp::create(nb2, nl, a[1],
                                                    e.cst(nb2, sign * eps));
                    return arith::AddFOp::create(nb2, nl, a[0], s);
                  });
        Value l =
            func::CallOp::create(b, loc, "loss", TypeRange{lossType()}, moved)
                .getResult(0);
        return tensor::ExtractOp::create(b, loc, l, ValueRange{}).getResult();
      };
      Value lp = shifted(1.0), lm = shifted(-1.0);
      Value fd = arith::DivFOp::create(
          b, loc, arith::SubFOp::create(b, loc, lp, lm), e.cst(2 * eps));
      Value dd = tensor::ExtractOp::create(b, loc, claimed, ValueRange{});
      Value diff =
          math::AbsFOp::create(b, loc, arith::SubFOp::create(b, loc, fd, dd));
      Value mag =
          arith::MaximumFOp::create(b, loc, math::AbsFOp::create(b, loc, fd),
                                    math::AbsFOp::create(b, loc, dd));
      // Below 1e-4 the finite difference's rounding noise (about
      // machine-epsilon * |L| / eps) dominates: judge such derivatives on
      // their absolute error instead (tolerance * 1e-4).
      Value denom = arith::MaximumFOp::create(b, loc, mag, e.cst(1e-4));
      Value rel = arith::DivFOp::create(b, loc, diff, denom);
      Value ok = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, rel,
                                       e.cst(tol));
      Value okf = arith::SelectOp::create(b, loc, ok, e.cst(1.0), e.cst(0.0));
      Value line = tensor::FromElementsOp::create(
          b, loc, RankedTensorType::get({5}, ft),
          ValueRange{e.cst(double(k)), dd, fd, rel, okf});
      print(b, line);
    }
    func::ReturnOp::create(b, loc);
  }
};
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "memplan-zoo: training steps of common architectures in "
      "linalg-on-tensors\n\n"
      "  Emits func.func @train_step(batch..., params...) -> (loss, new "
      "params...):\n"
      "  forward, softmax cross-entropy loss, backward by hand-derived "
      "gradients,\n  SGD update. Models: mlp (--depth --width --inputs "
      "--classes --batch),\n  transformer (--layers --d-model --heads --seq "
      "--batch --vocab --ffn-mult),\n  cnn (--stages --blocks --channels "
      "--image --classes --batch --in-channels),\n  unet (--levels --channels "
      "--image --batch --in-channels --out-channels).\n");
  std::unique_ptr<Model> model;
  auto orDefault = [](int64_t value, int64_t fallback) {
    return value < 0 ? fallback : value;
  };
  if (!dynamicDims.empty() && dynamicDims != "batch" &&
      dynamicDims != "batch,seq")
    fail("unknown --dynamic '" + dynamicDims +
         "' (expected batch, or batch,seq for the transformer)");
  bool dynamic = !dynamicDims.empty();
  bool dynamicSequence = dynamicDims == "batch,seq";
  if (dynamicSequence && modelName != "transformer")
    fail("--dynamic=batch,seq needs --model=transformer (the only model "
         "with a sequence)");
  if (!runBatches.empty() && !dynamic)
    fail("--run-batches needs --dynamic=batch");
  if (!runBatches.empty() && mainKind == "none")
    fail("--run-batches needs --main=run or --main=gradcheck");
  for (int64_t size : runBatches)
    if (size <= 0)
      fail("--run-batches sizes must be positive");
  if (runBatches.size() > 1 && mainKind == "gradcheck")
    fail("--main=gradcheck checks one batch size: give one --run-batches");
  if (dynamic && batch == 0)
    fail("--batch must be positive");
  int64_t defaultBatch = 4;
  if (modelName == "mlp") {
    defaultBatch = orDefault(batch, 4);
    MlpKnobs k{depth, width, inputs, orDefault(classes, 4),
               dynamic ? ShapedType::kDynamic : defaultBatch};
    model = makeMlp(k);
  } else if (modelName == "cnn") {
    defaultBatch = orDefault(batch, 2);
    CnnKnobs k{stages,
               blocks,
               orDefault(channels, 4),
               image,
               orDefault(classes, 3),
               dynamic ? ShapedType::kDynamic : defaultBatch,
               orDefault(inChannels, 3)};
    model = makeCnn(k);
  } else if (modelName == "unet") {
    defaultBatch = orDefault(batch, 1);
    UnetKnobs k{levels,
                orDefault(channels, 2),
                image,
                dynamic ? ShapedType::kDynamic : defaultBatch,
                orDefault(inChannels, 1),
                outChannels};
    model = makeUnet(k);
  } else if (modelName == "transformer") {
    defaultBatch = orDefault(batch, 2);
    TransformerKnobs k{layers,
                       dModel,
                       heads,
                       seq,
                       dynamic ? ShapedType::kDynamic : defaultBatch,
                       vocab,
                       ffnMult,
                       dynamicSequence};
    model = makeTransformer(k);
  } else {
    fail("unknown model '" + modelName +
         "' (expected mlp, transformer, cnn or unet)");
  }
  if (std::string error = model->validate(); !error.empty())
    fail(error);
  if (mainKind != "none" && mainKind != "run" && mainKind != "gradcheck")
    fail("unknown --main '" + mainKind + "' (expected none, run or gradcheck)");
  if (targetName != "cpu" && targetName != "nvvm")
    fail("unknown --target '" + targetName + "' (expected cpu or nvvm)");
  if (steps < 1)
    fail("--steps must be at least 1");
  if (steps != 1 && mainKind != "run")
    fail("--steps needs --main=run");
  if (printWhat != "all" && printWhat != "loss")
    fail("unknown --print '" + printWhat + "' (expected all or loss)");
  if (printWhat.getNumOccurrences() && mainKind != "run")
    fail("--print needs --main=run");
  if (targetName == "nvvm" && mainKind == "gradcheck")
    fail("--main=gradcheck runs on the host only (--target=cpu)");
  if (dtype != "f32" && dtype != "f64")
    fail("unknown --dtype '" + dtype + "' (expected f32 or f64)");
  for (const std::string &prefix : freeze) {
    SmallVector<Param> params = model->params();
    if (!prefix.empty() && llvm::any_of(params, [&](const Param &p) {
          return llvm::StringRef(p.name).starts_with(prefix);
        }))
      continue;
    std::string names;
    for (const Param &p : params)
      names += (names.empty() ? "" : ", ") + p.name;
    fail("--freeze='" + prefix + "' matches no parameter of this " + modelName +
         " (its parameters: " + names + ")");
  }

  MLIRContext ctx;
  ctx.loadDialect<arith::ArithDialect, bufferization::BufferizationDialect,
                  func::FuncDialect, linalg::LinalgDialect, math::MathDialect,
                  memref::MemRefDialect, tensor::TensorDialect, gpu::GPUDialect,
                  LLVM::LLVMDialect, scf::SCFDialect>();
  Location loc = UnknownLoc::get(&ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  FloatType ft = dtype == "f64" ? FloatType(Float64Type::get(&ctx))
                                : FloatType(Float32Type::get(&ctx));
  ModuleBuilder builder{ctx, *module, *model, ft, loc, targetName == "nvvm"};
  builder.defaultBatch = defaultBatch;
  builder.trainStep();
  if (mainKind == "gradcheck")
    builder.lossFunctions();
  if (mainKind != "none")
    builder.mainFunction(mainKind == "gradcheck");
  if (failed(verify(*module)))
    fail("internal error: the generated module does not verify");

  std::string error;
  auto output = mlir::openOutputFile(outputPath, &error);
  if (!output)
    fail(error);
  module->print(output->os());
  output->keep();
  return 0;
}
