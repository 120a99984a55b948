#!/usr/bin/env python3
"""report_fields.py REPORT FUNCTION KEY... : prints, space-separated, the
values of KEYs in FUNCTION's entry of a JSON v1 plan report (pack-arena's
report=, docs/Interfaces.md). A KEY is a dotted path (`remat.recompute_cost`)
with an optional default after `=` (`remat.baseline_cost=1`); `buffers#` is
the number of buffers and `buffers+size` the sum of their sizes. Booleans
print as true/false. The one JSON reader the bench scripts share."""
import json
import sys


def value(entry, key):
    if key == "buffers#":
        return len(entry.get("buffers", []))
    if key == "buffers+size":
        return sum(b["size"] for b in entry.get("buffers", []))
    path, _, default = key.partition("=")
    v = entry
    for part in path.split("."):
        if not isinstance(v, dict) or part not in v:
            if default:
                return default
            sys.exit("report_fields.py: no '%s' in the entry of the function" % path)
        v = v[part]
    return str(v).lower() if isinstance(v, bool) else v


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    report, function, keys = sys.argv[1], sys.argv[2], sys.argv[3:]
    entries = [f for f in json.load(open(report))["functions"] if f["name"] == function]
    if not entries:
        sys.exit("report_fields.py: no function '%s' in %s" % (function, report))
    print(" ".join(str(value(entries[0], k)) for k in keys))


if __name__ == "__main__":
    main()
