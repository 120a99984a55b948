#!/usr/bin/env python3
"""remat-sweep.py --bin DIR INPUT.mlir BUDGET...

Compiles INPUT with `memplan-opt --memplan-pipeline="budget=B report=..."`
for each BUDGET, in the order given (largest first), and checks what the
budgeted pipeline promises across a sweep, reading only the reports:
  * every arena is at most its budget;
  * a smaller budget never gets a larger arena nor a smaller recompute cost.
Prints one line per budget, `budget=<B> arena=<A> recompute_cost=<C> ok`,
and exits 1 when a property breaks (the line ends in what broke), 2 when a
compile fails."""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("input")
    parser.add_argument("budgets", nargs="+", type=int)
    args = parser.parse_args()
    opt = os.path.join(args.bin, "memplan-opt")
    status = 0
    previous = None
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        for budget in args.budgets:
            run = subprocess.run(
                [opt, "--memplan-pipeline=budget=%d report=%s" % (budget, report),
                 args.input, "-o", os.devnull], capture_output=True, text=True)
            if run.returncode != 0:
                print("remat-sweep: budget=%d failed (%d): %s"
                      % (budget, run.returncode, run.stderr.strip()[:300]),
                      file=sys.stderr)
                return 2
            with open(report) as f:
                fn = json.load(f)["functions"][0]
            arena = fn["arena_bytes"]
            cost = fn["remat"]["recompute_cost"]
            broken = []
            if arena > budget:
                broken.append("arena above the budget")
            if previous and arena > previous[0]:
                broken.append("arena above the larger budget's")
            if previous and cost < previous[1]:
                broken.append("recompute cost below the larger budget's")
            status |= bool(broken)
            print("budget=%d arena=%d recompute_cost=%g %s"
                  % (budget, arena, cost, "; ".join(broken) or "ok"))
            previous = (arena, cost)
    return status


if __name__ == "__main__":
    sys.exit(main())
