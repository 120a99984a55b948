#!/usr/bin/env python3
"""Prints the K buffers of a MiniMalloc CSV trace with the most bytes x
steps (size times lifetime, upper - lower; ties by row), or with --by-size
the K largest (at equal sizes the longest-lived, then by row), as a trace
of their own: the input's columns, its rows in its order.

usage: top-area.py TRACE.csv K [--by-size]
  (TRACE.csv: a header with id, lower, upper and size, as memplan-pack
   reads; other columns, such as alignment, are kept)
"""
import csv
import sys


def main():
    by_size = sys.argv[3:] == ["--by-size"]
    if len(sys.argv) != 3 and not by_size:
        sys.exit(__doc__)
    try:
        k = int(sys.argv[2])
    except ValueError:
        sys.exit("top-area.py: K must be an integer, not %r" % sys.argv[2])
    with open(sys.argv[1], newline="") as f:
        reader = csv.DictReader(f)
        fields = reader.fieldnames or []
        missing = [c for c in ("id", "lower", "upper", "size") if c not in fields]
        if missing:
            sys.exit("top-area.py: %s: no %s column (a header id,lower,upper,"
                     "size is needed)" % (sys.argv[1], ", ".join(missing)))
        rows = list(reader)
    if not rows:
        sys.exit("top-area.py: %s has no buffers" % sys.argv[1])
    if not 0 < k <= len(rows):
        sys.exit("top-area.py: K must be in [1, %d]" % len(rows))

    def key(index):
        row = rows[index]
        size = int(row["size"])
        life = int(row["upper"]) - int(row["lower"])
        return (-size, -life, index) if by_size else (-size * life, index)

    chosen = sorted(range(len(rows)), key=key)[:k]
    writer = csv.DictWriter(sys.stdout, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for i in sorted(chosen):
        writer.writerow(rows[i])


if __name__ == "__main__":
    main()
