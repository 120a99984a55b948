#!/usr/bin/env python3
"""compare-outputs.py A B [--rtol R] [--atol T]

Compares the memrefs two programs printed: mlir-runner's printMemrefF32/F64
("Unranked Memref base@ = ... sizes = [...] ... data =") or memplan's runtime
printers ("memref rank=R sizes=[...] data="). Every memref must have the same
sizes and every value a, b must satisfy |a - b| <= atol + rtol * max(|a|, |b|)
(NaNs must match). Lines starting with "memplan-runtime:" are ignored. Exit 0
when all match, 1 otherwise (the worst differences are printed), 2 on bad
input.
"""
import argparse
import math
import re
import sys

HEADER = re.compile(r"(?:Unranked Memref base@ = \S+ rank = \d+ offset = \d+ sizes = \[([^\]]*)\].*data =|memref rank=\d+ sizes=\[([^\]]*)\] data=)")
NUMBER = re.compile(r"[-+]?(?:nan|inf|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)", re.I)


def parse(path):
    blocks = []
    with open(path) as f:
        for line in f:
            if line.startswith("memplan-runtime:"):
                continue
            m = HEADER.search(line)
            if m:
                sizes = m.group(1) if m.group(1) is not None else m.group(2)
                blocks.append((sizes.replace(" ", ""), []))
                continue
            if not blocks:
                continue
            blocks[-1][1].extend(float(x) for x in NUMBER.findall(line))
    return blocks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rtol", type=float, default=2e-4)
    ap.add_argument("--atol", type=float, default=1e-6)
    args = ap.parse_args()
    a, b = parse(args.a), parse(args.b)
    if not a:
        print(f"compare-outputs: no memref in {args.a}")
        return 2
    if len(a) != len(b):
        print(f"compare-outputs: {len(a)} memrefs in {args.a}, {len(b)} in {args.b}")
        return 1
    worst, bad, count = [], 0, 0
    for k, ((sa, va), (sb, vb)) in enumerate(zip(a, b)):
        if sa != sb or len(va) != len(vb):
            print(f"compare-outputs: memref #{k}: sizes [{sa}] ({len(va)} values) vs [{sb}] ({len(vb)} values)")
            return 1
        for i, (x, y) in enumerate(zip(va, vb)):
            count += 1
            if math.isnan(x) or math.isnan(y):
                ok = math.isnan(x) and math.isnan(y)
                err = 0.0 if ok else math.inf
            else:
                err = abs(x - y)
                ok = err <= args.atol + args.rtol * max(abs(x), abs(y))
            if not ok:
                bad += 1
                worst.append((err, k, i, x, y))
    worst.sort(reverse=True)
    for err, k, i, x, y in worst[:5]:
        print(f"compare-outputs: memref #{k} value {i}: {x!r} vs {y!r} (|diff| {err:.3g})")
    print(f"compare-outputs: {count} values, {bad} outside rtol={args.rtol} atol={args.atol}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
