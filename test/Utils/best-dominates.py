#!/usr/bin/env python3
"""best-dominates.py --bin DIR TRACE.csv...

For each packing instance, runs memplan-pack with every classic greedy rule
(greedy-size: size-descending best fit; greedy-time: start-order best fit;
first-fit-size: size-descending first fit; first-fit-start: start-order
first fit)
and with `best`, each with --validate, and checks that `best`'s arena is no
larger than any rule's. Prints one line per instance,
`<file>: best=<B> greedy-size=<B> ... first-fit-start=<B> LB=<B> ok`, and exits 1 if
any instance breaks the property (the line ends in `WORSE`), 2 if a run
fails.
"""
import argparse
import os
import re
import subprocess
import sys

RULES = ["greedy-size", "greedy-time", "first-fit-size", "first-fit-start"]


def run(pack, path, algorithm):
    out = subprocess.run([pack, "--input", path, "--algorithm", algorithm,
                          "--validate"], capture_output=True, text=True)
    if out.returncode != 0:
        print("best-dominates: %s --algorithm=%s failed (%d): %s"
              % (path, algorithm, out.returncode, out.stderr.strip()),
              file=sys.stderr)
        sys.exit(2)
    arena = re.search(r"arena=(\d+)", out.stdout)
    bound = re.search(r"lower_bound=(\d+)", out.stdout)
    if not arena or not bound:
        print("best-dominates: no summary line from %s" % path, file=sys.stderr)
        sys.exit(2)
    return int(arena.group(1)), int(bound.group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("traces", nargs="+")
    args = parser.parse_args()
    pack = os.path.join(args.bin, "memplan-pack")
    status = 0
    for path in args.traces:
        best, bound = run(pack, path, "best")
        rules = {rule: run(pack, path, rule)[0] for rule in RULES}
        worse = [r for r, arena in rules.items() if best > arena]
        status |= bool(worse)
        print("%s: best=%d %s LB=%d %s" % (
            os.path.basename(path), best,
            " ".join("%s=%d" % kv for kv in rules.items()), bound,
            "WORSE than " + ",".join(worse) if worse else "ok"))
    return status


if __name__ == "__main__":
    sys.exit(main())
