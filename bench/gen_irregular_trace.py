#!/usr/bin/env python3
"""Generates an irregular packing instance (MiniMalloc CSV), shaped like the
buffer traces production compilers dump rather than like one clean training
step: several peaks of different heights (phases: forward/backward of a few
models or micro-batches, optimizer phases, inference bursts), long-lived
buffers that cross several peaks (weights' staging, caches, accumulators),
many short temporaries, sizes spread over six orders of magnitude (16 B to
tens of MB) with odd, unaligned values, and a few alignments.

Deterministic: the output depends only on N and --seed.

usage: gen_irregular_trace.py N [--seed S] [--alignments] > trace.csv
  (N = the number of buffers; --alignments adds a fifth column with
   alignments 1..256 on about a tenth of the rows)
"""
import argparse
import random
import sys


def size(rng):
    # Log-uniform over 16 B .. 64 MiB, then made odd-ish: most real sizes
    # are not multiples of large powers of two.
    exponent = rng.uniform(4, 26)
    value = int(2 ** exponent)
    if rng.random() < 0.6:
        value += rng.randint(1, max(1, value // 7))
    return max(1, value)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("buffers", type=int)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--alignments", action="store_true")
    args = parser.parse_args()
    if args.buffers < 1:
        sys.exit("gen_irregular_trace.py: N must be positive")
    rng = random.Random("irregular:%d:%d" % (args.seed, args.buffers))
    n = args.buffers
    rows = []
    # The time axis: phases of random lengths, each with its own intensity
    # (how many buffers it allocates) and its own "depth" (how long its
    # buffers tend to live: deep phases keep activations until their end,
    # making a peak there).
    phases = max(1, min(64, n // 200 + rng.randint(1, 6)))
    weights = [rng.uniform(0.2, 3.0) for _ in range(phases)]
    total = sum(weights)
    t = 0
    long_lived = max(1, n // 50)
    budget = n - long_lived
    for p in range(phases):
        count = max(1, int(budget * weights[p] / total))
        length = max(4, int(count * rng.uniform(0.3, 1.5)))
        start = t
        end = t + length
        deep = rng.random() < 0.6
        for _ in range(count):
            if len(rows) >= budget:
                break
            lower = rng.randint(start, end - 1)
            r = rng.random()
            if deep and r < 0.35:
                # Kept until a mirrored point near the phase's end: nested
                # lifetimes piling up to a peak.
                upper = end - (lower - start) // 2
            elif r < 0.85:
                upper = lower + rng.randint(1, 4)  # a temporary
            else:
                upper = lower + rng.randint(5, max(6, length // 3))
            upper = max(lower + 1, min(upper, end + length // 4))
            rows.append((lower, upper, size(rng)))
        t = end + rng.randint(0, 3)
    horizon = max(t, 2)
    # Long-lived buffers crossing several phases.
    while len(rows) < n:
        lower = rng.randint(0, horizon - 2)
        upper = rng.randint(lower + 1, min(horizon, lower + 1 + horizon // 2))
        rows.append((lower, upper, size(rng)))
    rng.shuffle(rows)
    header = "id,lower,upper,size" + (",alignment" if args.alignments else "")
    print(header)
    for k, (lower, upper, bytes_) in enumerate(rows):
        if args.alignments:
            align = rng.choice([1, 2, 4, 8, 16, 64, 256]) if rng.random() < 0.1 else 1
            print(f"{k},{lower},{upper},{bytes_},{align}")
        else:
            print(f"{k},{lower},{upper},{bytes_}")


if __name__ == "__main__":
    sys.exit(main())
