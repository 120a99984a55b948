#!/usr/bin/env python3
"""Turns a packing instance (MiniMalloc CSV: id,lower,upper,size[,...]) into
a function whose allocations have those lifetimes, for memplan-opt
-allow-unregistered-dialect --memplan-pack-arena: at step t it allocates the
buffers whose lifetime starts at t (memref<SIZExi8>) and then uses, with one
"test.use" op, the buffers whose lifetime ends at t + 1.

usage: trace-to-mlir.py trace.csv > func.mlir
"""
import csv
import sys


def main():
    with open(sys.argv[1]) as f:
        rows = list(csv.DictReader(f))
    starts, ends = {}, {}
    for k, row in enumerate(rows):
        lower, upper = int(row["lower"]), int(row["upper"])
        starts.setdefault(lower, []).append(k)
        ends.setdefault(upper - 1, []).append(k)
    out = ["func.func @trace() {"]
    for t in sorted(set(starts) | set(ends)):
        for k in starts.get(t, []):
            out.append(f"  %b{k} = memref.alloc() : memref<{rows[k]['size']}xi8>")
        done = ends.get(t, [])
        if done:
            values = ", ".join(f"%b{k}" for k in done)
            types = ", ".join(f"memref<{rows[k]['size']}xi8>" for k in done)
            out.append(f'  "test.use"({values}) : ({types}) -> ()')
    out.append("  return")
    out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
