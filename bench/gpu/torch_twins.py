#!/usr/bin/env python3
"""PyTorch eager twins of memplan-zoo's models (tools/memplan-zoo/).

Each twin computes the same training step as `memplan-zoo --model=M ...
--main=run`: the same forward pass and loss, the gradients by torch autograd
(the zoo derives them by hand: the same math), and plain SGD `p -= lr * grad`,
from the same inputs: the batch and the parameters that the zoo's @main makes
with its deterministic pseudo-random formula, reproduced bit for bit.

What a PyTorch user writes: eager ops, hand-written attention (no fused SDPA),
no torch.compile, parameters as leaf tensors in the zoo's layouts (linear
weights [in, out], convolution weights HWCF [K, K, Cin, Cout], images NHWC,
fed to conv2d as permuted views), gradients freed after each update
(`zero_grad(set_to_none=True)`). TF32 is off (cuDNN convolutions would use it
by default): the zoo computes in f32; --tf32 turns it on.

Prints `twin: key=value` lines: loss_step1 (the loss of step 1, on the initial
parameters), loss_last (the loss of the last step: memplan's program prints
that one), step_ms, median_later_step_ms (median over steps 2..N),
params_bytes, batch_bytes and, on CUDA, max_memory_allocated and
max_memory_reserved (peak statistics reset before the inputs are made, so
params + batch + activations + gradients are all counted).
--print-params prints every parameter after the last step, flattened in the
zoo's layout and order, one value per line (%.9g).

Runs with torch 1.13 (Debian's python3-torch, CPU) and torch 2.x (CUDA).
"""

import argparse
import math
import statistics
import sys
import time

import torch
import torch.nn.functional as F

F32 = torch.float32

# ----- The zoo's inputs (memplan-zoo.cpp: pseudo, floats, makeBatch,
# makeParams) -----


def _f32_full(value):
    return torch.full((1009,), value, dtype=F32)


def pseudo_table(salt, scale, offset):
    """floats(shape, salt, scale, offset) at every linear index `lin` with
    lin mod 1009 = j, for j = 0..1008.

    The zoo: r = (lin * 7919 + salt * 104729 + 13) mod 1009 in index (i64)
    arithmetic, then in f32: (float(r) / 1009 - 0.5) * scale + offset, with
    scale and offset f32 constants (doubles rounded to f32), each operation
    rounded (no contraction into an FMA). r depends on lin mod 1009 only, so
    1009 values serve every tensor. Computed on the CPU elementwise against
    full f32 tensors (no scalar fast paths such as multiplying by 1 / 1009).
    """
    j = torch.arange(1009, dtype=torch.int64)
    r = (j * 7919 + (salt * 104729 + 13)) % 1009
    q = r.to(F32) / _f32_full(1009.0)
    v = q - _f32_full(0.5)
    m = v * _f32_full(scale)
    return m + _f32_full(offset)


def floats(shape, salt, scale, offset, device):
    """The zoo's floats(): a tensor of `shape` (row-major linear index),
    filled from the 1009-periodic table without index temporaries."""
    n = 1
    for s in shape:
        n *= s
    table = pseudo_table(salt, scale, offset).to(device)
    out = torch.empty(n, dtype=F32, device=device)
    full = n // 1009
    if full:
        out[:full * 1009].view(full, 1009).copy_(table.expand(full, 1009))
    rem = n - full * 1009
    if rem:
        out[full * 1009:].copy_(table[:rem])
    return out.view(*shape)


def tokens(shape, salt, classes, device):
    """Token ids: (lin * 31 + 17 * salt) mod classes (int64 here, i32 in the
    zoo: torch's cross_entropy wants int64 targets)."""
    n = 1
    for s in shape:
        n *= s
    lin = torch.arange(n, dtype=torch.int64, device=device)
    return ((lin * 31 + 17 * salt) % classes).view(*shape)


def one_hot(rows, classes, salt, device):
    """One-hot rows: row r has its 1 at (3 r + salt) mod classes."""
    r = torch.arange(rows, dtype=torch.int64, device=device)
    cls = (3 * r + salt) % classes
    y = torch.zeros(rows, classes, dtype=F32, device=device)
    y[r, cls] = 1.0
    return y


def make_batch(specs, device):
    """specs: ('floats', shape) | ('onehot', rows, classes) |
    ('tokens', shape, classes), in the model's batch() order; salts 2, 3..."""
    out = []
    for i, spec in enumerate(specs):
        salt = 2 + i
        if spec[0] == "floats":
            out.append(floats(spec[1], salt, 2.0, 0.0, device))
        elif spec[0] == "onehot":
            out.append(one_hot(spec[1], spec[2], salt, device))
        else:
            out.append(tokens(spec[1], salt, spec[2], device))
    return out


def make_params(specs, device):
    """specs: (name, shape, init, offset) in the model's params() order;
    salts 101, 102, ...; scale 2 * init."""
    out = []
    for i, (name, shape, init, offset) in enumerate(specs):
        t = floats(shape, 101 + i, 2.0 * init, offset, device)
        out.append(t.requires_grad_())
    return out


# ----- Models: params() and batch() as in the zoo; forward returns the loss.


class Mlp:
    """Mlp.cpp: z_l = h_l W_l + b_l, h_{l+1} = relu(z_l); softmax
    cross-entropy against one-hot rows, averaged over the batch."""

    def __init__(self, a):
        self.depth, self.width, self.inputs = a.depth, a.width, a.inputs
        self.classes = 4 if a.classes < 0 else a.classes
        self.batch = 4 if a.batch < 0 else a.batch

    def params(self):
        ps, cin = [], self.inputs
        for l in range(self.depth + 1):
            cout = self.classes if l == self.depth else self.width
            ps.append(("w%d" % l, (cin, cout), 1.0 / math.sqrt(cin), 0.0))
            ps.append(("b%d" % l, (cout,), 0.1, 0.0))
            cin = cout
        return ps

    def batch_specs(self):
        return [("floats", (self.batch, self.inputs)),
                ("onehot", self.batch, self.classes)]

    def forward(self, batch, ps):
        h, y = batch
        for l in range(self.depth + 1):
            z = h @ ps[2 * l] + ps[2 * l + 1]
            h = torch.relu(z) if l < self.depth else z
        return F.cross_entropy(h, y)  # probability targets: -sum(y log p)


class Transformer:
    """Transformer.cpp: GPT-style pre-LayerNorm decoder, causal attention
    without biases, tanh GELU, mean cross-entropy over tokens."""

    def __init__(self, a):
        self.layers, self.d, self.heads = a.layers, a.d_model, a.heads
        self.seq, self.vocab, self.f = a.seq, a.vocab, a.ffn_mult * a.d_model
        self.batch = 2 if a.batch < 0 else a.batch
        if self.d % self.heads:
            sys.exit("twin: heads must divide d-model")

    def params(self):
        d, f = self.d, self.f
        sd, sf = 1.0 / math.sqrt(d), 1.0 / math.sqrt(f)
        ps = [("emb", (self.vocab, d), 0.5, 0.0), ("pos", (self.seq, d), 0.1,
                                                   0.0)]
        for l in range(self.layers):
            p = "l%d_" % l
            ps += [(p + "ln1_g", (d,), 0.1, 1.0), (p + "ln1_b", (d,), 0.1, 0.0),
                   (p + "wq", (d, d), sd, 0.0), (p + "wk", (d, d), sd, 0.0),
                   (p + "wv", (d, d), sd, 0.0), (p + "wo", (d, d), sd, 0.0),
                   (p + "ln2_g", (d,), 0.1, 1.0), (p + "ln2_b", (d,), 0.1, 0.0),
                   (p + "w1", (d, f), sd, 0.0), (p + "b1", (f,), 0.1, 0.0),
                   (p + "w2", (f, d), sf, 0.0), (p + "b2", (d,), 0.1, 0.0)]
        ps += [("lnf_g", (d,), 0.1, 1.0), ("lnf_b", (d,), 0.1, 0.0),
               ("wout", (d, self.vocab), sd, 0.0)]
        return ps

    def batch_specs(self):
        shape = (self.batch, self.seq)
        return [("tokens", shape, self.vocab), ("tokens", shape, self.vocab)]

    def forward(self, batch, ps):
        ids, targets = batch
        B, S, D, H = self.batch, self.seq, self.d, self.heads
        E = D // H
        scale = 1.0 / math.sqrt(E)
        x = (F.embedding(ids, ps[0]) + ps[1]).view(B * S, D)
        future = torch.ones(S, S, dtype=torch.bool,
                            device=ids.device).triu(1)  # j > i
        for l in range(self.layers):
            (g1, b1n, wq, wk, wv, wo, g2, b2n, w1, b1, w2,
             b2) = ps[2 + 12 * l:2 + 12 * (l + 1)]
            z1 = F.layer_norm(x, (D,), g1, b1n, 1e-5)
            q = (z1 @ wq).view(B, S, H, E).transpose(1, 2)  # [B, H, S, E]
            k = (z1 @ wk).view(B, S, H, E).transpose(1, 2)
            v = (z1 @ wv).view(B, S, H, E).transpose(1, 2)
            s = (q @ k.transpose(-2, -1)) * scale
            s = s.masked_fill(future, -1e9)
            p = torch.softmax(s, dim=-1)
            o = (p @ v).transpose(1, 2).reshape(B * S, D)
            h = x + o @ wo
            z2 = F.layer_norm(h, (D,), g2, b2n, 1e-5)
            u = z2 @ w1 + b1
            x = h + (F.gelu(u, approximate="tanh") @ w2 + b2)
        zf = F.layer_norm(x, (D,), ps[-3], ps[-2], 1e-5)
        logits = zf @ ps[-1]
        return F.cross_entropy(logits, targets.view(B * S))


def conv(x, w, b):
    """Same-padded stride-1 convolution of NCHW `x` with an HWCF weight."""
    k = w.shape[0]
    return F.conv2d(x, w.permute(3, 2, 0, 1), b, padding=(k - 1) // 2)


def conv_params(ps, name, k, cin, cout):
    ps.append((name + "_w", (k, k, cin, cout), 1.0 / math.sqrt(k * k * cin),
               0.0))
    ps.append((name + "_b", (cout,), 0.1, 0.0))


class Cnn:
    """ConvNets.cpp Cnn: stem conv-relu; per stage [avgpool 2x2, 1x1
    projection conv doubling the channels (no relu)] then residual blocks
    relu(x + conv(relu(conv(x)))); global average pool, linear, softmax
    cross-entropy against one-hot rows."""

    def __init__(self, a):
        self.stages, self.blocks, self.image = a.stages, a.blocks, a.image
        self.channels = 4 if a.channels < 0 else a.channels
        self.classes = 3 if a.classes < 0 else a.classes
        self.batch = 2 if a.batch < 0 else a.batch
        self.cin = 3 if a.in_channels < 0 else a.in_channels

    def params(self):
        ps = []
        conv_params(ps, "stem", 3, self.cin, self.channels)
        c = self.channels
        for s in range(self.stages):
            if s > 0:
                conv_params(ps, "s%d_proj" % s, 1, c, 2 * c)
                c *= 2
            for bl in range(self.blocks):
                conv_params(ps, "s%db%d_c1" % (s, bl), 3, c, c)
                conv_params(ps, "s%db%d_c2" % (s, bl), 3, c, c)
        ps.append(("fc_w", (c, self.classes), 1.0 / math.sqrt(c), 0.0))
        ps.append(("fc_b", (self.classes,), 0.1, 0.0))
        return ps

    def batch_specs(self):
        return [("floats", (self.batch, self.image, self.image, self.cin)),
                ("onehot", self.batch, self.classes)]

    def forward(self, batch, ps):
        img, y = batch
        it = iter(ps)
        nxt = lambda: (next(it), next(it))
        x = torch.relu(conv(img.permute(0, 3, 1, 2), *nxt()))
        for s in range(self.stages):
            if s > 0:
                x = conv(F.avg_pool2d(x, 2), *nxt())
            for _ in range(self.blocks):
                c1, c2 = nxt(), nxt()
                x = torch.relu(x + conv(torch.relu(conv(x, *c1)), *c2))
        pooled = x.mean(dim=(2, 3))
        fc_w, fc_b = nxt()
        return F.cross_entropy(pooled @ fc_w + fc_b, y)


class Unet:
    """ConvNets.cpp Unet: per level conv-relu-conv-relu (channels double per
    level), skip, avgpool 2x2; bottleneck; per level back nearest upsample
    2x, concat [upsampled, skip], conv-relu-conv-relu; 1x1 conv; mean
    squared error against a float target."""

    def __init__(self, a):
        self.levels, self.image = a.levels, a.image
        self.channels = 2 if a.channels < 0 else a.channels
        self.batch = 1 if a.batch < 0 else a.batch
        self.cin = 1 if a.in_channels < 0 else a.in_channels
        self.cout = a.out_channels

    def params(self):
        ps, cin = [], self.cin
        for l in range(self.levels + 1):
            c = self.channels << l
            conv_params(ps, "e%d_c1" % l, 3, cin, c)
            conv_params(ps, "e%d_c2" % l, 3, c, c)
            cin = c
        for l in range(self.levels - 1, -1, -1):
            c = self.channels << l
            conv_params(ps, "d%d_c1" % l, 3, cin + c, c)
            conv_params(ps, "d%d_c2" % l, 3, c, c)
            cin = c
        conv_params(ps, "out", 1, cin, self.cout)
        return ps

    def batch_specs(self):
        n, i = self.batch, self.image
        return [("floats", (n, i, i, self.cin)),
                ("floats", (n, i, i, self.cout))]

    def forward(self, batch, ps):
        img, target = batch
        it = iter(ps)

        def block(x):
            w1, b1, w2, b2 = next(it), next(it), next(it), next(it)
            return torch.relu(conv(torch.relu(conv(x, w1, b1)), w2, b2))

        x, skips = img.permute(0, 3, 1, 2), []
        for _ in range(self.levels):
            x = block(x)
            skips.append(x)
            x = F.avg_pool2d(x, 2)
        x = block(x)
        for l in range(self.levels - 1, -1, -1):
            up = F.interpolate(x, scale_factor=2, mode="nearest")
            x = block(torch.cat([up, skips[l]], dim=1))
        out = conv(x, next(it), next(it))
        return F.mse_loss(out, target.permute(0, 3, 1, 2))


MODELS = {"mlp": Mlp, "transformer": Transformer, "cnn": Cnn, "unet": Unet}


def parse():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", choices=sorted(MODELS), default="mlp")
    ap.add_argument("--steps", type=int, default=1)
    ap.add_argument("--device", default=None,
                    help="cuda | cpu (default: cuda when available)")
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--print-params", action="store_true")
    ap.add_argument("--tf32", action="store_true",
                    help="allow TF32 in matmuls and cuDNN convolutions")
    ap.add_argument("--cudnn-benchmark", action="store_true")
    # memplan-zoo's knobs and defaults (-1: the per-model default).
    ap.add_argument("--batch", type=int, default=-1)
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--inputs", type=int, default=8)
    ap.add_argument("--classes", type=int, default=-1)
    ap.add_argument("--stages", type=int, default=2)
    ap.add_argument("--blocks", type=int, default=1)
    ap.add_argument("--levels", type=int, default=2)
    ap.add_argument("--channels", type=int, default=-1)
    ap.add_argument("--image", type=int, default=8)
    ap.add_argument("--in-channels", type=int, default=-1)
    ap.add_argument("--out-channels", type=int, default=1)
    ap.add_argument("--layers", type=int, default=1)
    ap.add_argument("--d-model", type=int, default=8)
    ap.add_argument("--heads", type=int, default=2)
    ap.add_argument("--seq", type=int, default=4)
    ap.add_argument("--vocab", type=int, default=11)
    ap.add_argument("--ffn-mult", type=int, default=4)
    a = ap.parse_args()
    if a.steps < 1:
        ap.error("--steps must be at least 1")
    if a.device is None:
        a.device = "cuda" if torch.cuda.is_available() else "cpu"
    return a


def set_tf32(enabled):
    """TF32 in matmuls and cuDNN convolutions, through torch >= 2.9's
    fp32_precision settings where they exist (the allow_tf32 flags warn
    there), else the allow_tf32 flags (torch 1.13)."""
    matmul = torch.backends.cuda.matmul
    if hasattr(torch.backends, "fp32_precision"):  # a plain module attribute
        mode = "tf32" if enabled else "ieee"
        try:
            matmul.fp32_precision = mode
            torch.backends.cudnn.conv.fp32_precision = mode
            return
        except (AttributeError, AssertionError, RuntimeError):
            pass
    matmul.allow_tf32 = enabled
    torch.backends.cudnn.allow_tf32 = enabled


def main():
    a = parse()
    dev = torch.device(a.device)
    cuda = dev.type == "cuda"
    set_tf32(a.tf32)
    torch.backends.cudnn.benchmark = a.cudnn_benchmark
    model = MODELS[a.model](a)
    pspecs = model.params()

    if cuda:
        torch.cuda.init()
        torch.cuda.synchronize(dev)
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(dev)
    batch = make_batch(model.batch_specs(), dev)
    params = make_params(pspecs, dev)
    params_bytes = sum(p.numel() * p.element_size() for p in params)
    batch_bytes = sum(t.numel() * t.element_size() for t in batch)
    lr = a.lr

    def step():
        loss = model.forward(batch, params)
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= lr * p.grad
                p.grad = None
        return loss.detach()

    losses, times = [], []
    for _ in range(a.steps):
        if cuda:
            torch.cuda.synchronize(dev)
        t0 = time.perf_counter()
        losses.append(step())
        if cuda:
            torch.cuda.synchronize(dev)
        times.append((time.perf_counter() - t0) * 1e3)

    print("twin: model=%s device=%s torch=%s steps=%d params=%d" %
          (a.model, dev, torch.__version__, a.steps,
           sum(p.numel() for p in params)))
    print("twin: loss_step1=%.9g" % losses[0].item())
    print("twin: loss_last=%.9g" % losses[-1].item())
    print("twin: step_ms=%s" % ",".join("%.3f" % t for t in times))
    later = times[1:]
    print("twin: median_later_step_ms=%s" %
          ("%.3f" % statistics.median(later) if later else "nan"))
    print("twin: params_bytes=%d batch_bytes=%d" % (params_bytes, batch_bytes))
    if cuda:
        print("twin: max_memory_allocated=%d max_memory_reserved=%d" %
              (torch.cuda.max_memory_allocated(dev),
               torch.cuda.max_memory_reserved(dev)))
    if a.print_params:
        out = []
        for p in params:
            out.extend("%.9g" % v for v in p.detach().cpu().reshape(-1).tolist())
        sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
