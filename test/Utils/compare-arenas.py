#!/usr/bin/env python3
"""compare-arenas.py SMALLER.json LARGER.json FUNCTION

Reads two memplan JSON reports (--memplan-pack-arena's `report=`) and checks
that FUNCTION's arena in the first is strictly smaller than in the second.
Prints "FUNCTION: A < B bytes" and exits 0 when it is; prints
"FUNCTION: A >= B bytes" and exits 1 when it is not; exits 2 on bad input
(a missing file or function, or a function left unplanned).
"""
import json
import sys


def arena(path, name):
    try:
        with open(path) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("compare-arenas: cannot read %s: %s" % (path, e))
    total = None
    for function in report.get("functions", []):
        if function.get("name") != name:
            continue
        if "unplanned" in function:
            print("compare-arenas: %s is unplanned in %s" % (name, path),
                  file=sys.stderr)
            sys.exit(2)
        total = (total or 0) + function["arena_bytes"]
    if total is None:
        print("compare-arenas: no function %s in %s" % (name, path),
              file=sys.stderr)
        sys.exit(2)
    return total


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    a = arena(sys.argv[1], sys.argv[3])
    b = arena(sys.argv[2], sys.argv[3])
    if a < b:
        print("%s: %d < %d bytes" % (sys.argv[3], a, b))
        return 0
    print("%s: %d >= %d bytes" % (sys.argv[3], a, b))
    return 1


if __name__ == "__main__":
    sys.exit(main())
