#!/usr/bin/env python3
"""Generates a training-trace-like packing instance (MiniMalloc CSV).

Layer-structured like a training step: each forward layer allocates an
activation kept until its backward step and a few short temporaries; the
backward pass walks the layers in reverse, allocating gradients and
temporaries and freeing each activation after its use; a few huge buffers
(embedding output, logits) live across the loss.

usage: gen_trace.py N [--seed S] > trace.csv   (N = approximate buffer count)
"""
import argparse
import random
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("buffers", type=int)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    temps_per_step = 3
    # Each layer yields 1 activation + temps in forward, 1 grad + temps in backward.
    layers = max(1, args.buffers // (2 + 2 * temps_per_step))
    rows = []
    t = 0

    def emit(lower, upper, size):
        rows.append((lower, upper, size))

    widths = [rng.choice([1, 2, 4]) * 4096 * rng.randint(1, 8) for _ in range(layers)]
    emb = 64 * 4096 * rng.randint(4, 8)
    emb_start = t
    t += 1
    act_start = []
    for i in range(layers):
        act_start.append(t)
        for _ in range(temps_per_step):
            emit(t, t + rng.randint(1, 2), rng.choice([1, 2]) * widths[i])
        t += 1
    logits = 256 * 4096
    logits_start = t
    t += 2
    emit(logits_start, t + 1, logits)          # logits and their gradient
    grad = [None] * layers
    for i in reversed(range(layers)):
        for _ in range(temps_per_step):
            emit(t, t + rng.randint(1, 2), rng.choice([1, 2]) * widths[i])
        grad[i] = t
        emit(act_start[i], t + 1, widths[i])   # activation, freed after use
        t += 1
        emit(grad[i], t + 1, widths[i])         # gradient of this layer's input
    emit(emb_start, t + 1, emb)                 # embedding output, used at the end
    t += 1
    print("id,lower,upper,size")
    for k, (lower, upper, size) in enumerate(rows):
        print(f"{k},{lower},{upper},{size}")


if __name__ == "__main__":
    sys.exit(main())
