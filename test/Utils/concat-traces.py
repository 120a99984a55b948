#!/usr/bin/env python3
"""concat-traces.py [--overlap] FILE[:SCALE]... : one packing instance
(MiniMalloc CSV on stdout) made of the given ones laid end to end in time,
so that each is a time segment of its own; with --overlap each starts
halfway through the one before instead (lifetimes cross from one into the
next). SCALE (default 1) multiplies a file's sizes, rounded down, at least 1.
Alignments, where given, are kept. Used by lit tests and
bench/pack_traces.sh."""
import argparse
import csv


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--overlap", action="store_true")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    print("id,lower,upper,size,alignment")
    ident, base = 0, 0
    for arg in args.files:
        path, _, scale = arg.partition(":")
        end = 0
        with open(path) as f:
            for row in csv.DictReader(f):
                lower, upper = int(row["lower"]), int(row["upper"])
                size = int(row["size"])
                if scale:
                    size = max(1, int(size * float(scale)))
                align = int(row.get("alignment") or 1)
                print(f"{ident},{base + lower},{base + upper},{size},{align}")
                ident += 1
                end = max(end, upper)
        base += end // 2 if args.overlap else end + 1


if __name__ == "__main__":
    main()
