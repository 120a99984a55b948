#!/usr/bin/env python3
"""Checks the DOM that headless Chromium printed for memplan's HTML report
against the JSON report of the same compile.

usage: check-html-report.py DOM REPORT.json [--view K:FROM:TO]

Prints one line per arena and exits 1 on the first mismatch: the page's
scripts ran without errors (body data-status="ok", no data-errors), and per
arena the numbers the page shows and the ones its script computed from the
embedded data equal the report's: the summary's arena and lower bound, the
peak of the live-bytes curve (= lower_bound_bytes), the top of the packed
buffers (= arena_bytes) and, at the full view, one rectangle drawn per
buffer of nonzero size; and the canvas was painted: pixels in the buffer
colours (counted by the page at the full view), in the recomputed colour
too when a recomputed buffer is large enough to cover whole pixels. With
--view, arena K drew fewer rectangles than it has buffers (the zoom took
effect) but at least one.
"""
import argparse
import json
import re
import sys


def attrs(tag):
    return dict(re.findall(r'([\w-]+)="([^"]*)"', tag))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dom")
    ap.add_argument("report")
    ap.add_argument("--view")
    args = ap.parse_args()
    dom = open(args.dom).read()
    report = json.load(open(args.report))
    body = re.search(r"<body[^>]*>", dom)
    if not body:
        sys.exit("no <body> in the DOM: the page did not load")
    b = attrs(body.group(0))
    if b.get("data-status") != "ok" or "data-errors" in b:
        sys.exit("script errors: status=%s errors=%s"
                 % (b.get("data-status"), b.get("data-errors")))
    canvases = {int(attrs(t)["data-fn"]): attrs(t)
                for t in re.findall(r"<canvas[^>]*>", dom)}
    summaries = [attrs(t) for t in
                 re.findall(r'<div class="summary" data-arena[^>]*>', dom)]
    planned = [f for f in report["functions"] if "unplanned" not in f]
    if len(summaries) != len(planned):
        sys.exit("%d arena summaries for %d planned report entries"
                 % (len(summaries), len(planned)))
    view = [int(x) for x in args.view.split(":")] if args.view else None
    for k, f in enumerate(report["functions"]):
        if "unplanned" in f or not f["buffers"]:
            if k in canvases:
                sys.exit("@%s: a picture for an entry without buffers" % f["name"])
            continue
        c = canvases.get(k)
        if c is None:
            sys.exit("@%s: no picture" % f["name"])
        top = max(x["offset"] + x["size"] for x in f["buffers"])
        checks = [("peak", int(c["data-peak"]), f["lower_bound_bytes"]),
                  ("top", int(c["data-top"]), top)]
        if top != f["arena_bytes"]:
            sys.exit("@%s: the buffers end at %d, the arena is %d"
                     % (f["name"], top, f["arena_bytes"]))
        drawn = int(c["data-drawn"])
        visible = sum(1 for x in f["buffers"] if x["size"] > 0)
        if view and view[0] == k:
            if not 0 < drawn < visible:
                sys.exit("@%s: the zoomed view drew %d of %d buffers"
                         % (f["name"], drawn, visible))
        else:
            checks.append(("drawn", drawn, visible))
        painted = {kind: int(c.get("data-painted-" + kind, "0"))
                   for kind in ("plain", "kept", "recomputed")}
        if visible and sum(painted.values()) == 0:
            sys.exit("@%s: no pixel painted in a buffer colour" % f["name"])
        last = max(x["end"] for x in f["buffers"])
        if any(x.get("recomputed") and x["size"] * 100 >= f["arena_bytes"]
               and (x["end"] - x["start"]) * 200 >= last
               for x in f["buffers"]) and painted["recomputed"] == 0:
            sys.exit("@%s: recomputed buffers, none painted" % f["name"])
        for name, got, want in checks:
            if got != want:
                sys.exit("@%s: %s is %d on the page, %d in the report"
                         % (f["name"], name, got, want))
        print("@%s: %d buffers, %d drawn, peak %d, arena %d: ok"
              % (f["name"], len(f["buffers"]), drawn, int(c["data-peak"]),
                 f["arena_bytes"]))
    # The summaries' numbers, in the report's order of planned entries.
    for s, f in zip(summaries, planned):
        if (int(s["data-arena"]), int(s["data-lb"])) != (
                f["arena_bytes"], f["lower_bound_bytes"]):
            sys.exit("@%s: the summary says arena %s, LB %s" %
                     (f["name"], s["data-arena"], s["data-lb"]))


main()
