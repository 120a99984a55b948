#!/usr/bin/env python3
"""Prints the K buffers of a MiniMalloc CSV trace (id,lower,upper,size) with
the most bytes x steps (size times lifetime; ties by row), as a trace of
their own, in the input's row order.

usage: top-area.py TRACE.csv K
"""
import csv
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    k = int(sys.argv[2])
    if not 0 < k <= len(rows):
        sys.exit("top-area.py: K must be in [1, %d]" % len(rows))

    def area(index):
        row = rows[index]
        return int(row["size"]) * (int(row["upper"]) - int(row["lower"]))

    chosen = sorted(range(len(rows)), key=lambda i: (-area(i), i))[:k]
    print("id,lower,upper,size")
    for i in sorted(chosen):
        row = rows[i]
        print(f"{row['id']},{row['lower']},{row['upper']},{row['size']}")


if __name__ == "__main__":
    main()
