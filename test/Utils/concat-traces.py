#!/usr/bin/env python3
"""concat-traces.py FILE[:SCALE]... : one packing instance (MiniMalloc CSV on
stdout) made of the given ones laid end to end in time, so that each is a
time segment of its own; SCALE (default 1) multiplies a file's sizes, rounded
down, at least 1. Alignments, where given, are kept."""
import csv
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print("id,lower,upper,size,alignment")
    ident, base = 0, 0
    for arg in sys.argv[1:]:
        path, _, scale = arg.partition(":")
        factor = float(scale) if scale else 1.0
        end = 0
        with open(path) as f:
            for row in csv.DictReader(f):
                lower, upper = int(row["lower"]), int(row["upper"])
                size = max(1, int(int(row["size"]) * factor))
                align = int(row.get("alignment") or 1)
                print(f"{ident},{base + lower},{base + upper},{size},{align}")
                ident += 1
                end = max(end, upper)
        base += end + 1


if __name__ == "__main__":
    main()
