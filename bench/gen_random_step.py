#!/usr/bin/env python3
"""gen_random_step.py --seed N [--max-ops K]

Prints a random small training step in upstream linalg/tensor/arith/math on
static f32 tensors, shaped like what memplan-zoo emits: a `func.func
@train_step` whose first result is a scalar loss (`tensor<f32>`) and whose
other results are updated parameters, and a `func.func @main` that fills the
inputs deterministically, calls the step and prints every result twice with
the runner's printers: as values (printMemrefF32) and as raw bits
(printMemrefI32 of an arith.bitcast), so two runs can be compared bit for bit
with `diff`.

The step is a random DAG. The forward pass draws ops from matmul (named and
generic), bias add (row or column broadcast), elementwise add/sub/mul/max
(generic or linalg.map, sometimes written in place into an operand), tanh,
relu, scaling, squaring, sum and max reductions over an axis, linalg.broadcast,
linalg.transpose, tensor.extract_slice, collapse/expand_shape, tensor.concat
and tensor.pad, over shapes with every dimension in 1..12; operands are picked
among all earlier values (biased towards recent ones), so values fan out. Every
value nobody reads feeds the loss (sum, sum of squares or squared error against
an extra input), accumulated in place into one scalar. The backward pass is
reverse-mode differentiation of that DAG: it reads the forward values again in
reverse order, accumulates gradients at fan-out points (sometimes in place),
and updates every parameter as p - lr * dp, in place into the argument
(`outs(%param)`) or into a new tensor, either as soon as the gradient is
complete or at the end.

Deterministic: only random.Random(seed) is used. Python 3 standard library.
"""
import argparse
import math
import random
import sys

LR = 0.05


def tensor_type(shape, elem="f32"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


def fmt_f32(c):
    return "%.8e" % c


class Val:
    """One tensor value of the step: an argument or an op result."""

    def __init__(self, name, shape, bound, kind, needs_grad):
        self.name = name
        self.shape = tuple(shape)
        self.bound = bound  # a loose bound on |element|, to keep values finite
        self.kind = kind  # "input", "target", "param" or "fwd"
        self.needs_grad = needs_grad
        self.uses = 0

    @property
    def type(self):
        return tensor_type(self.shape)

    @property
    def rank(self):
        return len(self.shape)


class Emitter:
    """Straight-line MLIR text with fresh SSA names and affine map aliases."""

    def __init__(self, maps):
        self.lines = []
        self.maps = maps  # shared between functions: text -> alias
        self.count = 0

    def fresh(self, prefix="v"):
        self.count += 1
        return f"%{prefix}{self.count}"

    def amap(self, ndims, results):
        dims = ", ".join(f"d{i}" for i in range(ndims))
        text = f"affine_map<({dims}) -> ({', '.join(results)})>"
        if text not in self.maps:
            self.maps[text] = f"#map{len(self.maps)}"
        return self.maps[text]

    def emit(self, line):
        self.lines.append("    " + line)

    def empty(self, shape, elem="f32"):
        name = self.fresh("e")
        self.emit(f"{name} = tensor.empty() : {tensor_type(shape, elem)}")
        return name

    def const_f32(self, c):
        name = self.fresh("c")
        self.emit(f"{name} = arith.constant {fmt_f32(c)} : f32")
        return name

    def fill(self, shape, c):
        init = self.empty(shape)
        cst = self.const_f32(c)
        name = self.fresh()
        ty = tensor_type(shape)
        self.emit(f"{name} = linalg.fill ins({cst} : f32) outs({init} : {ty}) -> {ty}")
        return name

    def generic(self, ndims, iters, ins, out, body, out_elem="f32"):
        """ins: [(ssa, shape, map results)]; out: (ssa, shape, map results).
        body(b, args) gets a Body and the block argument names (ins then out)
        and returns the yielded value."""
        maps = [self.amap(ndims, r) for (_, _, r) in ins] + [self.amap(ndims, out[2])]
        its = ", ".join(f'"{it}"' for it in iters)
        name = self.fresh()
        head = f"{name} = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = [{its}]}}"
        if ins:
            head += " ins(" + ", ".join(v for (v, _, _) in ins) + " : " + \
                ", ".join(tensor_type(s) for (_, s, _) in ins) + ")"
        out_ty = tensor_type(out[1], out_elem)
        head += f" outs({out[0]} : {out_ty}) {{"
        self.emit(head)
        args = [self.fresh("a") for _ in range(len(ins) + 1)]
        arg_types = ["f32"] * len(ins) + [out_elem]
        self.lines.append("    ^bb0(" + ", ".join(f"{a}: {t}" for a, t in zip(args, arg_types)) + "):")
        b = Body(self)
        result = body(b, args)
        self.emit(f"  linalg.yield {result} : {out_elem}")
        self.emit(f"}} -> {out_ty}")
        return name


class Body:
    """Payload ops of a linalg.generic (indented one level more)."""

    def __init__(self, em):
        self.em = em

    def op(self, text, ty="f32"):
        name = self.em.fresh("s")
        self.em.emit(f"  {name} = {text} : {ty}")
        return name

    def raw(self, text):
        name = self.em.fresh("s")
        self.em.emit(f"  {name} = {text}")
        return name

    def const(self, c):
        return self.op(f"arith.constant {fmt_f32(c)}", "f32")

    def bin(self, op, x, y):
        return self.op(f"arith.{op} {x}, {y}")

    def select(self, pred_lhs, pred_rhs, pred, if_true, if_false):
        cmp = self.em.fresh("s")
        self.em.emit(f"  {cmp} = arith.cmpf {pred}, {pred_lhs}, {pred_rhs} : f32")
        return self.op(f"arith.select {cmp}, {if_true}, {if_false}")


def ident(rank):
    return [f"d{i}" for i in range(rank)]


def par(rank):
    return ["parallel"] * rank


class StepGenerator:
    def __init__(self, seed, max_ops):
        self.rng = random.Random(seed)
        self.seed = seed
        self.max_ops = max_ops
        self.maps = {}
        self.em = Emitter(self.maps)
        self.args = []  # Vals, in argument order
        self.values = []  # every forward-visible Val (args included)
        self.fwd_ops = []  # (kind, out Val, operand Vals, info dict)
        self.grads = {}  # id(Val) -> gradient ssa name

    # ---------------------------------------------------------------- helpers
    def dim(self, lo=1, hi=12):
        return self.rng.randint(lo, hi)

    def new_arg(self, shape, kind):
        name = f"%arg{len(self.args)}"
        bound = 1.0 if kind != "param" else 0.5
        v = Val(name, shape, bound, kind, needs_grad=(kind == "param"))
        self.args.append(v)
        if kind != "target":
            self.values.append(v)
        return v

    def new_param(self, shape):
        return self.new_arg(shape, "param")

    def pick(self, pred, allow_params=True):
        cands = [(i, v) for i, v in enumerate(self.values)
                 if pred(v) and (allow_params or v.kind != "param")]
        if not cands:
            return None
        n = len(self.values)
        weights = []
        for i, v in cands:
            w = 0.15 + 2.0 ** (-(n - 1 - i) / 2.5)
            if v.kind == "param":
                w *= 0.3
            weights.append(w)
        return self.rng.choices([v for _, v in cands], weights=weights)[0]

    def add_fwd(self, kind, shape, bound, operands, info=None):
        out = Val(None, shape, bound, "fwd", any(o.needs_grad for o in operands))
        for o in operands:
            o.uses += 1
        self.values.append(out)
        self.fwd_ops.append((kind, out, list(operands), info or {}))
        return out

    # ------------------------------------------------------------ forward ops
    def op_matmul(self, a):
        m, k = a.shape
        b = None
        if self.rng.random() < 0.3:
            b = self.pick(lambda v: v.rank == 2 and v.shape[0] == k)
        if b is None:
            b = self.new_param((k, self.dim()))
        n = b.shape[1]
        init = self.em.fill((m, n), 0.0)
        out = self.add_fwd("matmul", (m, n), k * a.bound * b.bound, [a, b])
        if self.rng.random() < 0.5:
            out.name = self.em.fresh()
            ty = tensor_type((m, n))
            self.em.emit(f"{out.name} = linalg.matmul ins({a.name}, {b.name} : {a.type}, {b.type}) "
                         f"outs({init} : {ty}) -> {ty}")
        else:
            out.name = self.em.generic(
                3, ["parallel", "parallel", "reduction"],
                [(a.name, a.shape, ["d0", "d2"]), (b.name, b.shape, ["d2", "d1"])],
                (init, (m, n), ["d0", "d1"]),
                lambda bd, x: bd.bin("addf", x[2], bd.bin("mulf", x[0], x[1])))
        return out

    def op_bias(self, a):
        m, n = a.shape
        axis = self.rng.choice([0, 1])  # 1: b indexed by d1 (size n); 0: by d0 (size m)
        size = n if axis == 1 else m
        b = None
        if self.rng.random() < 0.3:
            b = self.pick(lambda v: v.shape == (size,))
        if b is None:
            b = self.new_param((size,))
        init = self.em.empty((m, n))
        out = self.add_fwd("bias", (m, n), a.bound + b.bound, [a, b], {"axis": axis})
        out.name = self.em.generic(
            2, par(2),
            [(a.name, a.shape, ["d0", "d1"]), (b.name, b.shape, ["d1" if axis == 1 else "d0"])],
            (init, a.shape, ["d0", "d1"]),
            lambda bd, x: bd.bin("addf", x[0], x[1]))
        return out

    def op_ewise(self, a):
        kind = self.rng.choice(["addf", "subf", "mulf", "maximumf"])
        r = self.rng.random()
        if r < 0.1:
            b = a
        elif r < 0.25:
            b = self.new_param(a.shape)
        else:
            b = self.pick(lambda v: v.shape == a.shape) or self.new_param(a.shape)
        bound = {"addf": a.bound + b.bound, "subf": a.bound + b.bound,
                 "mulf": a.bound * b.bound, "maximumf": max(a.bound, b.bound)}[kind]
        out = self.add_fwd("ewise", a.shape, bound, [a, b], {"op": kind})
        style = self.rng.random()
        rank = a.rank
        if style < 0.25:
            # In place: the result is written into a's tensor (outs(a)).
            out.name = self.em.generic(
                rank, par(rank), [(b.name, b.shape, ident(rank))], (a.name, a.shape, ident(rank)),
                lambda bd, x: bd.bin(kind, x[1], x[0]))
        elif style < 0.45:
            init = self.em.empty(a.shape)
            out.name = self.em.fresh()
            self.em.emit(f"{out.name} = linalg.map {{ arith.{kind} }} ins({a.name}, {b.name} : "
                         f"{a.type}, {b.type}) outs({init} : {a.type})")
        else:
            init = self.em.empty(a.shape)
            out.name = self.em.generic(
                rank, par(rank), [(a.name, a.shape, ident(rank)), (b.name, b.shape, ident(rank))],
                (init, a.shape, ident(rank)), lambda bd, x: bd.bin(kind, x[0], x[1]))
        return out

    def op_unary(self, a, kind=None):
        if kind is None:
            kind = self.rng.choice(["tanh", "relu", "scale", "square"])
            if kind == "square" and a.bound > 4:
                kind = "tanh"
        info = {"op": kind}
        if kind == "scale":
            info["c"] = self.rng.choice([0.5, -0.75, 1.5, 0.25, -1.25])
        bound = {"tanh": 1.0, "relu": a.bound, "square": a.bound * a.bound,
                 "scale": a.bound * abs(info.get("c", 1.0))}[kind]
        out = self.add_fwd("unary", a.shape, bound, [a], info)
        rank = a.rank
        init = self.em.empty(a.shape)

        def body(bd, x):
            if kind == "tanh":
                return bd.op(f"math.tanh {x[0]}")
            if kind == "relu":
                return bd.bin("maximumf", x[0], bd.const(0.0))
            if kind == "square":
                return bd.bin("mulf", x[0], x[0])
            return bd.bin("mulf", x[0], bd.const(info["c"]))

        out.name = self.em.generic(rank, par(rank), [(a.name, a.shape, ident(rank))],
                                   (init, a.shape, ident(rank)), body)
        return out

    def op_reduce(self, a):
        axis = self.rng.choice([0, 1])
        kind = "sum" if self.rng.random() < 0.65 else "max"
        oshape = (a.shape[1],) if axis == 0 else (a.shape[0],)
        bound = a.bound * a.shape[axis] if kind == "sum" else a.bound
        out = self.add_fwd("reduce", oshape, bound, [a], {"axis": axis, "op": kind})
        init = self.em.fill(oshape, 0.0 if kind == "sum" else -1.0e30)
        fn = "addf" if kind == "sum" else "maximumf"
        if self.rng.random() < 0.5:
            out.name = self.em.fresh()
            a1, a2 = self.em.fresh("a"), self.em.fresh("a")
            self.em.emit(f"{out.name} = linalg.reduce ins({a.name} : {a.type}) outs({init} : "
                         f"{tensor_type(oshape)}) dimensions = [{axis}]")
            self.em.emit(f"  ({a1}: f32, {a2}: f32) {{")
            s = self.em.fresh("s")
            self.em.emit(f"    {s} = arith.{fn} {a1}, {a2} : f32")
            self.em.emit(f"    linalg.yield {s} : f32")
            self.em.emit("  }")
        else:
            # Iterate the kept dimension as d0, the reduced one as d1.
            amap = ["d1", "d0"] if axis == 0 else ["d0", "d1"]
            out.name = self.em.generic(2, ["parallel", "reduction"], [(a.name, a.shape, amap)],
                                       (init, oshape, ["d0"]),
                                       lambda bd, x: bd.bin(fn, x[1], x[0]))
        return out

    def op_broadcast(self, a):
        m = self.dim()
        dim = self.rng.choice([0, 1])  # the added dimension
        oshape = (m, a.shape[0]) if dim == 0 else (a.shape[0], m)
        out = self.add_fwd("broadcast", oshape, a.bound, [a], {"dim": dim})
        init = self.em.empty(oshape)
        out.name = self.em.fresh()
        self.em.emit(f"{out.name} = linalg.broadcast ins({a.name} : {a.type}) outs({init} : "
                     f"{tensor_type(oshape)}) dimensions = [{dim}]")
        return out

    def transpose(self, src, shape):
        oshape = (shape[1], shape[0])
        init = self.em.empty(oshape)
        name = self.em.fresh()
        self.em.emit(f"{name} = linalg.transpose ins({src} : {tensor_type(shape)}) outs({init} : "
                     f"{tensor_type(oshape)}) permutation = [1, 0]")
        return name

    def op_transpose(self, a):
        out = self.add_fwd("transpose", (a.shape[1], a.shape[0]), a.bound, [a])
        out.name = self.transpose(a.name, a.shape)
        return out

    def extract_slice(self, src, shape, offsets, sizes):
        name = self.em.fresh()
        ones = ", ".join("1" for _ in shape)
        self.em.emit(f"{name} = tensor.extract_slice {src}[{', '.join(map(str, offsets))}] "
                     f"[{', '.join(map(str, sizes))}] [{ones}] : {tensor_type(shape)} to "
                     f"{tensor_type(sizes)}")
        return name

    def op_slice(self, a):
        sizes = [self.rng.randint(1, d) for d in a.shape]
        offsets = [self.rng.randint(0, d - s) for d, s in zip(a.shape, sizes)]
        out = self.add_fwd("slice", sizes, a.bound, [a], {"offsets": offsets})
        out.name = self.extract_slice(a.name, a.shape, offsets, sizes)
        return out

    def op_reshape(self, a):
        if a.rank == 2:
            oshape = (a.shape[0] * a.shape[1],)
            out = self.add_fwd("collapse", oshape, a.bound, [a])
            out.name = self.em.fresh()
            self.em.emit(f"{out.name} = tensor.collapse_shape {a.name} [[0, 1]] : {a.type} into "
                         f"{tensor_type(oshape)}")
        else:
            n = a.shape[0]
            p = self.rng.choice([d for d in range(1, n + 1) if n % d == 0])
            oshape = (p, n // p)
            out = self.add_fwd("expand", oshape, a.bound, [a])
            out.name = self.em.fresh()
            self.em.emit(f"{out.name} = tensor.expand_shape {a.name} [[0, 1]] output_shape "
                         f"[{p}, {n // p}] : {a.type} into {tensor_type(oshape)}")
        return out

    def op_concat(self, a, b, dim):
        oshape = list(a.shape)
        oshape[dim] += b.shape[dim]
        out = self.add_fwd("concat", oshape, max(a.bound, b.bound), [a, b], {"dim": dim})
        out.name = self.em.fresh()
        self.em.emit(f"{out.name} = tensor.concat dim({dim}) {a.name}, {b.name} : ({a.type}, {b.type}) "
                     f"-> {tensor_type(oshape)}")
        return out

    def op_pad(self, a):
        low = [self.rng.randint(0, min(2, 12 - d)) for d in a.shape]
        high = [self.rng.randint(0, min(2, 12 - d - l)) for d, l in zip(a.shape, low)]
        oshape = [d + l + h for d, l, h in zip(a.shape, low, high)]
        out = self.add_fwd("pad", oshape, a.bound, [a], {"low": low})
        out.name = self.em.fresh()
        cst = self.em.const_f32(0.0)
        idx = [self.em.fresh("i") for _ in a.shape]
        self.em.emit(f"{out.name} = tensor.pad {a.name} low[{', '.join(map(str, low))}] "
                     f"high[{', '.join(map(str, high))}] {{")
        self.em.emit("^bb0(" + ", ".join(f"{i}: index" for i in idx) + "):")
        self.em.emit(f"  tensor.yield {cst} : f32")
        self.em.emit(f"}} : {a.type} to {tensor_type(oshape)}")
        return out

    def forward_op(self):
        rng = self.rng
        has2 = any(v.rank == 2 and v.kind != "param" for v in self.values)
        has1 = any(v.rank == 1 and v.kind != "param" for v in self.values)
        choices = [("matmul", 3.0 if has2 else 0), ("bias", 2.0 if has2 else 0),
                   ("ewise", 3.0), ("unary", 3.0), ("reduce", 1.5 if has2 else 0),
                   ("broadcast", 1.2 if has1 else 0), ("transpose", 0.8 if has2 else 0),
                   ("slice", 0.8), ("reshape", 0.6), ("concat", 0.6), ("pad", 0.4)]
        kind = rng.choices([c for c, _ in choices], weights=[w for _, w in choices])[0]
        nonparam = lambda pred: self.pick(pred, allow_params=False)
        if kind == "matmul":
            return self.op_matmul(nonparam(lambda v: v.rank == 2))
        if kind == "bias":
            return self.op_bias(nonparam(lambda v: v.rank == 2))
        if kind == "ewise":
            return self.op_ewise(nonparam(lambda v: v.rank >= 1))
        if kind == "unary":
            return self.op_unary(nonparam(lambda v: v.rank >= 1))
        if kind == "reduce":
            return self.op_reduce(nonparam(lambda v: v.rank == 2))
        if kind == "broadcast":
            return self.op_broadcast(nonparam(lambda v: v.rank == 1))
        if kind == "transpose":
            return self.op_transpose(nonparam(lambda v: v.rank == 2))
        if kind == "slice":
            return self.op_slice(nonparam(lambda v: v.rank >= 1))
        if kind == "reshape":
            a = nonparam(lambda v: (v.rank == 2 and v.shape[0] * v.shape[1] <= 12) or v.rank == 1)
            return self.op_reshape(a) if a else self.op_unary(nonparam(lambda v: v.rank >= 1))
        if kind == "concat":
            a = nonparam(lambda v: v.rank >= 1 and v.shape[0] < 12)
            if a is not None:
                dim = rng.randrange(a.rank)
                def fits(v, dim=dim):
                    return (v.rank == a.rank and v.shape[dim] + a.shape[dim] <= 12 and
                            all(v.shape[i] == a.shape[i] for i in range(a.rank) if i != dim))
                b = self.pick(fits)
                if b is not None:
                    return self.op_concat(a, b, dim)
            return self.op_ewise(nonparam(lambda v: v.rank >= 1))
        a = nonparam(lambda v: v.rank >= 1 and max(v.shape) < 12)
        return self.op_pad(a) if a else self.op_unary(nonparam(lambda v: v.rank >= 1))

    # ------------------------------------------------------------------- loss
    def full_reduce(self, ins, acc, rank, body):
        """acc += sum over all elements of body(ins...), written into acc."""
        return self.em.generic(rank, ["reduction"] * rank, [(n, s, ident(rank)) for n, s in ins],
                               (acc, (), []), body)

    def loss(self):
        leaves = [v for v in self.values if v.kind == "fwd" and v.uses == 0]
        extra = [v for v in self.values if v.kind == "fwd" and v.uses > 0 and v.needs_grad]
        self.rng.shuffle(extra)
        terms = leaves + extra[: self.rng.randint(0, min(2, len(extra)))]
        acc = self.em.fill((), 0.0)
        seeds = []
        for v in terms:
            v.uses += 1
            kind = self.rng.choice(["sum", "sumsq", "mse"])
            rank = v.rank
            if kind == "sum":
                if self.rng.random() < 0.5:
                    name = self.em.fresh()
                    a1, a2 = self.em.fresh("a"), self.em.fresh("a")
                    self.em.emit(f"{name} = linalg.reduce ins({v.name} : {v.type}) outs({acc} : tensor<f32>) "
                                 f"dimensions = [{', '.join(str(i) for i in range(rank))}]")
                    self.em.emit(f"  ({a1}: f32, {a2}: f32) {{")
                    s = self.em.fresh("s")
                    self.em.emit(f"    {s} = arith.addf {a1}, {a2} : f32")
                    self.em.emit(f"    linalg.yield {s} : f32")
                    self.em.emit("  }")
                    acc = name
                else:
                    acc = self.full_reduce([(v.name, v.shape)], acc, rank,
                                           lambda bd, x: bd.bin("addf", x[1], x[0]))
                seeds.append((v, kind, None))
            elif kind == "sumsq":
                acc = self.full_reduce([(v.name, v.shape)], acc, rank,
                                       lambda bd, x: bd.bin("addf", x[1], bd.bin("mulf", x[0], x[0])))
                seeds.append((v, kind, None))
            else:
                t = self.new_arg(v.shape, "target")

                def body(bd, x):
                    d = bd.bin("subf", x[0], x[1])
                    return bd.bin("addf", x[2], bd.bin("mulf", d, d))
                acc = self.full_reduce([(v.name, v.shape), (t.name, t.shape)], acc, rank, body)
                seeds.append((v, kind, t))
        scale = 1.0 / max(1, len(terms))
        init = self.em.empty(())
        loss = self.em.generic(0, [], [(acc, (), [])], (init, (), []),
                               lambda bd, x: bd.bin("mulf", x[0], bd.const(scale)))
        # The gradient seeds d(loss)/d(term value).
        for v, kind, t in seeds:
            if not v.needs_grad:
                continue
            rank = v.rank
            if kind == "sum":
                g = self.em.fill(v.shape, scale)
            elif kind == "sumsq":
                g = self.em.generic(rank, par(rank), [(v.name, v.shape, ident(rank))],
                                    (self.em.empty(v.shape), v.shape, ident(rank)),
                                    lambda bd, x: bd.bin("mulf", x[0], bd.const(2.0 * scale)))
            else:
                g = self.em.generic(rank, par(rank),
                                    [(v.name, v.shape, ident(rank)), (t.name, t.shape, ident(rank))],
                                    (self.em.empty(v.shape), v.shape, ident(rank)),
                                    lambda bd, x: bd.bin("mulf", bd.bin("subf", x[0], x[1]),
                                                         bd.const(2.0 * scale)))
            self.add_grad(v, g)
        return loss

    # --------------------------------------------------------------- backward
    def add_grad(self, v, g):
        if not v.needs_grad:
            return
        key = id(v)
        if key not in self.grads:
            self.grads[key] = g
            return
        old = self.grads[key]
        rank = v.rank
        if self.rng.random() < 0.5:
            # In place: accumulate into the existing gradient tensor.
            self.grads[key] = self.em.generic(rank, par(rank), [(g, v.shape, ident(rank))],
                                              (old, v.shape, ident(rank)),
                                              lambda bd, x: bd.bin("addf", x[1], x[0]))
        else:
            self.grads[key] = self.em.generic(
                rank, par(rank), [(old, v.shape, ident(rank)), (g, v.shape, ident(rank))],
                (self.em.empty(v.shape), v.shape, ident(rank)), lambda bd, x: bd.bin("addf", x[0], x[1]))

    def ewise_new(self, shape, ins, body):
        rank = len(shape)
        return self.em.generic(rank, par(rank), [(n, shape, ident(rank)) for n in ins],
                               (self.em.empty(shape), shape, ident(rank)), body)

    def matmul_grad(self, lhs, lshape, lmap, rhs, rshape, rmap, oshape):
        if self.rng.random() < 0.3:
            # Materialize the transposed operand and use the named op.
            if lmap == ["d2", "d0"]:
                lhs, lshape = self.transpose(lhs, lshape), (lshape[1], lshape[0])
            if rmap == ["d1", "d2"]:
                rhs, rshape = self.transpose(rhs, rshape), (rshape[1], rshape[0])
            init = self.em.fill(oshape, 0.0)
            name = self.em.fresh()
            ty = tensor_type(oshape)
            self.em.emit(f"{name} = linalg.matmul ins({lhs}, {rhs} : {tensor_type(lshape)}, "
                         f"{tensor_type(rshape)}) outs({init} : {ty}) -> {ty}")
            return name
        return self.em.generic(3, ["parallel", "parallel", "reduction"],
                               [(lhs, lshape, lmap), (rhs, rshape, rmap)],
                               (self.em.fill(oshape, 0.0), oshape, ["d0", "d1"]),
                               lambda bd, x: bd.bin("addf", x[2], bd.bin("mulf", x[0], x[1])))

    def reduce_over(self, g, shape, axis):
        """Sum of the 2-D gradient g over axis; returns a 1-D tensor."""
        oshape = (shape[1],) if axis == 0 else (shape[0],)
        amap = ["d1", "d0"] if axis == 0 else ["d0", "d1"]
        return self.em.generic(2, ["parallel", "reduction"], [(g, shape, amap)],
                               (self.em.fill(oshape, 0.0), oshape, ["d0"]),
                               lambda bd, x: bd.bin("addf", x[1], x[0]))

    def backward_op(self, kind, out, ops, info):
        g = self.grads.get(id(out))
        if g is None:
            return
        s = out.shape
        rank = out.rank
        if kind == "matmul":
            a, b = ops
            if a.needs_grad:
                self.add_grad(a, self.matmul_grad(g, s, ["d0", "d2"], b.name, b.shape, ["d1", "d2"], a.shape))
            if b.needs_grad:
                self.add_grad(b, self.matmul_grad(a.name, a.shape, ["d2", "d0"], g, s, ["d2", "d1"], b.shape))
        elif kind == "bias":
            a, b = ops
            self.add_grad(a, g)
            if b.needs_grad:
                self.add_grad(b, self.reduce_over(g, s, 0 if info["axis"] == 1 else 1))
        elif kind == "ewise":
            a, b = ops
            op = info["op"]
            if op == "addf":
                self.add_grad(a, g)
                self.add_grad(b, g)
            elif op == "subf":
                self.add_grad(a, g)
                if b.needs_grad:
                    self.add_grad(b, self.ewise_new(s, [g], lambda bd, x: bd.op(f"arith.negf {x[0]}")))
            elif op == "mulf":
                if a.needs_grad:
                    self.add_grad(a, self.ewise_new(s, [g, b.name], lambda bd, x: bd.bin("mulf", x[0], x[1])))
                if b.needs_grad:
                    self.add_grad(b, self.ewise_new(s, [g, a.name], lambda bd, x: bd.bin("mulf", x[0], x[1])))
            else:
                zero = lambda bd: bd.const(0.0)
                if a.needs_grad:
                    self.add_grad(a, self.ewise_new(
                        s, [a.name, b.name, g],
                        lambda bd, x: bd.select(x[0], x[1], "oge", x[2], zero(bd))))
                if b.needs_grad:
                    self.add_grad(b, self.ewise_new(
                        s, [a.name, b.name, g],
                        lambda bd, x: bd.select(x[0], x[1], "oge", zero(bd), x[2])))
        elif kind == "unary":
            (a,) = ops
            op = info["op"]
            if op == "tanh":
                def body(bd, x):
                    yy = bd.bin("mulf", x[0], x[0])
                    return bd.bin("mulf", x[1], bd.bin("subf", bd.const(1.0), yy))
                self.add_grad(a, self.ewise_new(s, [out.name, g], body))
            elif op == "relu":
                self.add_grad(a, self.ewise_new(
                    s, [a.name, g], lambda bd, x: bd.select(x[0], bd.const(0.0), "ogt", x[1], bd.const(0.0))))
            elif op == "square":
                self.add_grad(a, self.ewise_new(
                    s, [a.name, g], lambda bd, x: bd.bin("mulf", bd.bin("addf", x[0], x[0]), x[1])))
            else:
                c = info["c"]
                self.add_grad(a, self.ewise_new(s, [g], lambda bd, x: bd.bin("mulf", x[0], bd.const(c))))
        elif kind == "reduce":
            (a,) = ops
            axis = info["axis"]
            rmap = ["d1"] if axis == 0 else ["d0"]
            if info["op"] == "sum":
                if self.rng.random() < 0.5:
                    name = self.em.fresh()
                    init = self.em.empty(a.shape)
                    self.em.emit(f"{name} = linalg.broadcast ins({g} : {tensor_type(s)}) outs({init} : "
                                 f"{a.type}) dimensions = [{axis}]")
                else:
                    name = self.em.generic(2, par(2), [(g, s, rmap)], (self.em.empty(a.shape), a.shape, ["d0", "d1"]),
                                           lambda bd, x: x[0])
                self.add_grad(a, name)
            else:
                self.add_grad(a, self.em.generic(
                    2, par(2), [(a.name, a.shape, ["d0", "d1"]), (out.name, s, rmap), (g, s, rmap)],
                    (self.em.empty(a.shape), a.shape, ["d0", "d1"]),
                    lambda bd, x: bd.select(x[0], x[1], "oeq", x[2], bd.const(0.0))))
        elif kind == "broadcast":
            (a,) = ops
            self.add_grad(a, self.reduce_over(g, s, info["dim"]))
        elif kind == "transpose":
            (a,) = ops
            self.add_grad(a, self.transpose(g, s))
        elif kind == "slice":
            (a,) = ops
            if a.needs_grad:
                z = self.em.fill(a.shape, 0.0)
                name = self.em.fresh()
                ones = ", ".join("1" for _ in s)
                self.em.emit(f"{name} = tensor.insert_slice {g} into {z}[{', '.join(map(str, info['offsets']))}] "
                             f"[{', '.join(map(str, s))}] [{ones}] : {tensor_type(s)} into {a.type}")
                self.add_grad(a, name)
        elif kind == "collapse":
            (a,) = ops
            name = self.em.fresh()
            self.em.emit(f"{name} = tensor.expand_shape {g} [[0, 1]] output_shape [{a.shape[0]}, {a.shape[1]}] : "
                         f"{tensor_type(s)} into {a.type}")
            self.add_grad(a, name)
        elif kind == "expand":
            (a,) = ops
            name = self.em.fresh()
            self.em.emit(f"{name} = tensor.collapse_shape {g} [[0, 1]] : {tensor_type(s)} into {a.type}")
            self.add_grad(a, name)
        elif kind == "concat":
            a, b = ops
            dim = info["dim"]
            for v, off in ((a, 0), (b, a.shape[dim])):
                if v.needs_grad:
                    offsets = [off if i == dim else 0 for i in range(rank)]
                    self.add_grad(v, self.extract_slice(g, s, offsets, list(v.shape)))
        elif kind == "pad":
            (a,) = ops
            if a.needs_grad:
                self.add_grad(a, self.extract_slice(g, s, info["low"], list(a.shape)))
        else:
            raise AssertionError(kind)

    def update(self, p):
        g = self.grads.get(id(p))
        assert g is not None, f"no gradient for {p.name}"
        rank = p.rank
        body = lambda bd, x: bd.bin("subf", x[1], bd.bin("mulf", x[0], bd.const(LR)))
        if self.rng.random() < 0.7:
            # In place into the parameter argument.
            return self.em.generic(rank, par(rank), [(g, p.shape, ident(rank))],
                                   (p.name, p.shape, ident(rank)), body)
        return self.em.generic(rank, par(rank), [(g, p.shape, ident(rank)), (p.name, p.shape, ident(rank))],
                               (self.em.empty(p.shape), p.shape, ident(rank)),
                               lambda bd, x: bd.bin("subf", x[1], bd.bin("mulf", x[0], bd.const(LR))))

    # ------------------------------------------------------------------ whole
    def generate(self):
        rng = self.rng
        self.new_arg((self.dim(), self.dim()), "input")
        if rng.random() < 0.4:
            self.new_arg((self.dim(),), "input")
        if rng.random() < 0.3:
            self.new_arg((self.dim(), self.dim()), "input")
        n_ops = rng.randint(3, self.max_ops)
        first = self.values[0]
        out = self.op_matmul(first) if rng.random() < 0.7 else self.op_bias(first)
        for _ in range(n_ops - 1):
            out = self.forward_op()
            if out.bound > 16.0:
                self.op_unary(out, "tanh")
        loss = self.loss()

        params = [v for v in self.args if v.kind == "param"]
        eager = rng.random() < 0.5
        pending = {id(p): p.uses for p in params}
        updated = {}
        for kind, out, ops, info in reversed(self.fwd_ops):
            self.backward_op(kind, out, ops, info)
            if eager:
                for o in ops:
                    if id(o) in pending:
                        pending[id(o)] -= 1
                        if pending[id(o)] == 0:
                            updated[id(o)] = self.update(o)
        for p in params:
            if id(p) not in updated:
                updated[id(p)] = self.update(p)

        results = [(loss, ())] + [(updated[id(p)], p.shape) for p in params]
        fwd = [v for v in self.values if v.kind == "fwd"]
        if fwd and rng.random() < 0.25:
            v = rng.choice(fwd)
            results.append((v.name, v.shape))
        self.results = results
        return self.render()

    def render(self):
        em = self.em
        arg_list = ", ".join(f"{a.name}: {a.type}" for a in self.args)
        res_types = ", ".join(tensor_type(s) for _, s in self.results)
        step = [f"  func.func @train_step({arg_list}) -> ({res_types}) {{"] + em.lines
        step.append(f"    return {', '.join(n for n, _ in self.results)} : {res_types}")
        step.append("  }")
        main = self.render_main()
        out = [f"// Generated by bench/gen_random_step.py --seed {self.seed} --max-ops {self.max_ops}"]
        out += [f"{alias} = {text}" for text, alias in sorted(self.maps.items(), key=lambda kv: int(kv[1][4:]))]
        out.append("module {")
        out += step + main
        out.append("}")
        return "\n".join(out) + "\n"

    def render_main(self):
        em = Emitter(self.maps)
        rng = self.rng
        names = []
        for k, a in enumerate(self.args):
            rank = a.rank
            salt = rng.randint(1, 9973)
            if a.kind == "param":
                fan_in = a.shape[0] if rank == 2 else 4
                scale = 1.0 / math.sqrt(fan_in)
            else:
                scale = 2.0

            # The payload hashes the flat index:
            # ((flat * 48271 + salt * 16807 + 11) mod 65521) / 65521 - 0.5, times scale.
            init = em.empty(a.shape)
            maps = em.amap(rank, ident(rank))
            its = ", ".join('"parallel"' for _ in range(rank))
            name = em.fresh("in")
            em.emit(f"{name} = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{its}]}} "
                    f"outs({init} : {a.type}) {{")
            arg = em.fresh("a")
            em.lines.append(f"    ^bb0({arg}: f32):")
            flat = None
            for i in range(rank):
                idx = em.fresh("s")
                em.emit(f"  {idx} = linalg.index {i} : index")
                if flat is None:
                    flat = idx
                else:
                    d, m, f = em.fresh("s"), em.fresh("s"), em.fresh("s")
                    em.emit(f"  {d} = arith.constant {a.shape[i]} : index")
                    em.emit(f"  {m} = arith.muli {flat}, {d} : index")
                    em.emit(f"  {f} = arith.addi {m}, {idx} : index")
                    flat = f
            if flat is None:
                flat = em.fresh("s")
                em.emit(f"  {flat} = arith.constant 0 : index")
            c1, c2, c3 = em.fresh("s"), em.fresh("s"), em.fresh("s")
            em.emit(f"  {c1} = arith.constant 48271 : index")
            em.emit(f"  {c2} = arith.constant {salt * 16807 + 11} : index")
            em.emit(f"  {c3} = arith.constant 65521 : index")
            t1, t2, t3, t4, t5 = (em.fresh("s") for _ in range(5))
            em.emit(f"  {t1} = arith.muli {flat}, {c1} : index")
            em.emit(f"  {t2} = arith.addi {t1}, {c2} : index")
            em.emit(f"  {t3} = arith.remui {t2}, {c3} : index")
            em.emit(f"  {t4} = arith.index_cast {t3} : index to i64")
            em.emit(f"  {t5} = arith.sitofp {t4} : i64 to f32")
            k1, k2, k3 = em.fresh("s"), em.fresh("s"), em.fresh("s")
            em.emit(f"  {k1} = arith.constant {fmt_f32(1.0 / 65521.0)} : f32")
            em.emit(f"  {k2} = arith.constant {fmt_f32(-0.5)} : f32")
            em.emit(f"  {k3} = arith.constant {fmt_f32(scale)} : f32")
            u1, u2, u3 = em.fresh("s"), em.fresh("s"), em.fresh("s")
            em.emit(f"  {u1} = arith.mulf {t5}, {k1} : f32")
            em.emit(f"  {u2} = arith.addf {u1}, {k2} : f32")
            em.emit(f"  {u3} = arith.mulf {u2}, {k3} : f32")
            em.emit(f"  linalg.yield {u3} : f32")
            em.emit(f"}} -> {a.type}")
            names.append(name)
        arg_types = ", ".join(a.type for a in self.args)
        res_types = ", ".join(tensor_type(s) for _, s in self.results)
        r = em.fresh("r")
        nres = len(self.results)
        em.emit(f"{r}:{nres} = func.call @train_step({', '.join(names)}) : ({arg_types}) -> ({res_types})"
                if nres > 1 else
                f"{r} = func.call @train_step({', '.join(names)}) : ({arg_types}) -> ({res_types})")
        for i, (_, shape) in enumerate(self.results):
            v = f"{r}#{i}" if nres > 1 else r
            rank = len(shape)
            ty = tensor_type(shape)
            mty = "memref<" + "".join(f"{d}x" for d in shape) + "f32>"
            buf, cast = em.fresh("m"), em.fresh("m")
            em.emit(f"{buf} = bufferization.to_buffer {v} : {ty} to {mty}")
            em.emit(f"{cast} = memref.cast {buf} : {mty} to memref<*xf32>")
            em.emit(f"func.call @printMemrefF32({cast}) : (memref<*xf32>) -> ()")
            bits = em.generic(rank, par(rank), [(v, shape, ident(rank))],
                              (em.empty(shape, "i32"), shape, ident(rank)),
                              lambda bd, x: bd.raw(f"arith.bitcast {x[0]} : f32 to i32"),
                              out_elem="i32")
            ity = tensor_type(shape, "i32")
            imty = "memref<" + "".join(f"{d}x" for d in shape) + "i32>"
            buf, cast = em.fresh("m"), em.fresh("m")
            em.emit(f"{buf} = bufferization.to_buffer {bits} : {ity} to {imty}")
            em.emit(f"{cast} = memref.cast {buf} : {imty} to memref<*xi32>")
            em.emit(f"func.call @printMemrefI32({cast}) : (memref<*xi32>) -> ()")
        em.emit("return")
        return (["  func.func private @printMemrefF32(memref<*xf32>)",
                 "  func.func private @printMemrefI32(memref<*xi32>)",
                 "  func.func @main() {"] + em.lines + ["  }"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--max-ops", type=int, default=12,
                    help="most forward ops drawn (at least 3; default 12)")
    args = ap.parse_args()
    if args.max_ops < 3:
        ap.error("--max-ops must be at least 3")
    sys.stdout.write(StepGenerator(args.seed, args.max_ops).generate())


if __name__ == "__main__":
    main()
