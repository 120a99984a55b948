#!/usr/bin/env python3
"""Generates the classic random dynamic-storage-allocation instance as a
MiniMalloc CSV: buffer i lives on [i, i + d) with d uniform in [1, D] and
its size uniform in [1, S], so about D / 2 buffers are live at any time,
all of similar sizes. Unlike bench/gen_irregular_trace.py (sizes over six
orders of magnitude), a dense packing here leaves many small gaps of similar
sizes, which is where a first-fit query walks furthest: a stress trace for
the greedy placers' time per work unit (docs/benchmarks.md, sixth stop).

Deterministic: the output depends only on the arguments (every draw comes
from random(), whose sequence Python keeps for a given seed).

usage: gen_uniform_trace.py N [--seed S] [--max-life D] [--max-size S]
  (defaults: D = 3000, S = 5000)
"""
import argparse
import random
import sys

from gen_planted_trace import between


def main():
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("buffers", type=int)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-life", type=int, default=3000)
    parser.add_argument("--max-size", type=int, default=5000)
    args = parser.parse_args()
    if args.buffers < 1 or args.max_life < 1 or args.max_size < 1:
        sys.exit("gen_uniform_trace.py: N, --max-life and --max-size must be "
                 "positive")
    rng = random.Random("uniform:%d:%d:%d:%d" % (
        args.seed, args.buffers, args.max_life, args.max_size))
    out = sys.stdout
    out.write("id,lower,upper,size\n")
    for i in range(args.buffers):
        life = between(rng, 1, args.max_life)
        size = between(rng, 1, args.max_size)
        out.write("%d,%d,%d,%d\n" % (i, i, i + life, size))


if __name__ == "__main__":
    main()
