#!/usr/bin/env python3
"""Generates an irregular packing instance (MiniMalloc CSV) that is known to
admit a packing at its lower bound, so that a packer can be scored against
the answer rather than against an unknown optimum.

How: the rectangle [0, T) x [0, W) (time x bytes) is cut, one random
rectangle at a time, into N' smaller ones, each cut either along time or
along bytes at a point drawn so that heights end up spread over several
orders of magnitude. Every rectangle is a buffer: its lifetime is its time
range, its size its height. The rectangles tile the whole area, so at every
time the live bytes are exactly W and the tiling itself is a packing with
arena W = the lower bound. Then the peaks are chosen (a few times) and every
buffer live at none of them is dropped with probability --drop: the live
bytes stay W at the peaks and fall elsewhere, so the trace has several peaks,
valleys between them and buffers crossing peaks, as production traces do,
and its optimum is still W. Sizes are whatever the cuts give (odd values;
alignment 1).

A line on stderr names the planted arena and how many buffers were kept.

Deterministic: the output depends only on the arguments, on any Python 3
(every draw comes from random(), the one method whose sequence Python
promises to keep for a given seed).

usage: gen_planted_trace.py N [--seed S] [--peaks K] [--drop Q] > trace.csv
  (N = how many pieces the tiling is cut into, before the drop: fewer are
   kept, the buffers live at a peak and a (1 - Q) share of the others;
   K = 4 peaks by default; Q = 0.5)
"""
import argparse
import random
import sys


def below(rng, n):
    """An integer in [0, n), from random() alone."""
    return min(n - 1, int(rng.random() * n))


def between(rng, lo, hi):
    """An integer in [lo, hi]."""
    return lo + below(rng, hi - lo + 1)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("buffers", type=int)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--peaks", type=int, default=4)
    parser.add_argument("--drop", type=float, default=0.5)
    args = parser.parse_args()
    if args.buffers < 1:
        sys.exit("gen_planted_trace.py: N must be positive")
    if args.peaks < 1:
        sys.exit("gen_planted_trace.py: --peaks must be positive")
    if not 0 <= args.drop < 1:
        sys.exit("gen_planted_trace.py: --drop must be in [0, 1)")
    rng = random.Random("planted:%d:%d:%d:%r" % (args.seed, args.buffers,
                                                  args.peaks, args.drop))
    horizon = 4 * args.buffers + 64
    width = 1 << 34  # 16 GiB: room for six orders of magnitude of sizes
    target = args.buffers
    # (t0, t1, lo, hi); cut until `target` pieces. A random piece is taken
    # each time (swap-remove), so pieces of every generation coexist.
    pieces = [(0, horizon, 0, width)]
    while len(pieces) < target:
        k = below(rng, len(pieces))
        t0, t1, lo, hi = pieces[k]
        can_time = t1 - t0 >= 2
        can_bytes = hi - lo >= 32
        if not can_time and not can_bytes:
            # A unit piece: try another (there are always larger ones while
            # fewer than `target` pieces exist, since the area is large).
            continue
        pieces[k] = pieces[-1]
        pieces.pop()
        if can_time and (not can_bytes or rng.random() < 0.5):
            cut = between(rng, t0 + 1, t1 - 1)
            pieces.append((t0, cut, lo, hi))
            pieces.append((cut, t1, lo, hi))
        else:
            # A fraction drawn log-uniformly in [2^-10, 1/2], on either
            # side: thin strips next to thick ones.
            frac = 2 ** (-10 + 9 * rng.random())
            cut = lo + max(1, int((hi - lo) * frac))
            if rng.random() < 0.5:
                cut = hi - (cut - lo)
            pieces.append((t0, t1, lo, cut))
            pieces.append((t0, t1, cut, hi))
    peaks = sorted(below(rng, horizon) for _ in range(args.peaks))

    def at_peak(t0, t1):
        return any(t0 <= p < t1 for p in peaks)

    rows = [(t0, t1, hi - lo) for (t0, t1, lo, hi) in pieces
            if at_peak(t0, t1) or rng.random() >= args.drop]
    # Fisher-Yates from random(): the rows in no telling order.
    for i in range(len(rows) - 1, 0, -1):
        j = below(rng, i + 1)
        rows[i], rows[j] = rows[j], rows[i]
    print("id,lower,upper,size")
    for k, (lower, upper, size) in enumerate(rows):
        print(f"{k},{lower},{upper},{size}")
    print(f"planted arena={width} buffers={len(rows)}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
