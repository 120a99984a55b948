#!/usr/bin/env python3
"""bench/gpu/table.py DIR RESULTS: the device benchmark's tables (markdown)
from what bench/gpu/run.sh brought back (RESULTS: the unpacked results/
folder) and the plan reports of bench/gpu/prepare.sh (DIR/report).

Table 1, per real model at no budget: memplan's arena and LB (report), the
runtime's device bytes (peak of everything it allocated: arena, parameters,
batch, loss), the device memory the process used (cuMemGetInfo at the end
minus right after the context was made), the median step time of steps 2..N;
the PyTorch eager twin's max_memory_allocated, max_memory_reserved and median
step time; memplan's device bytes / the twin's reserved and allocated.
Table 2, per real model and budget: arena, budget, device bytes, median step
time, the measured overhead (step time / the unbudgeted plan's - 1) and the
cost model's prediction (recompute_cost / baseline_cost)."""
import json
import os
import re
import sys

GIB = 1 << 30


def kv(path, prefix):
    """key=value pairs of the lines starting with prefix."""
    out = {}
    if not os.path.exists(path):
        return out
    for line in open(path):
        if line.startswith(prefix):
            for k, v in re.findall(r"(\w+)=(\S+)", line):
                out[k] = v
    return out


def report(dir_, name):
    path = os.path.join(dir_, "report", name + ".json")
    if not os.path.exists(path):
        return {}
    for fn in json.load(open(path))["functions"]:
        if fn["name"] == "train_step":
            return fn
    return {}


def status(res, name):
    path = os.path.join(res, name + ".status")
    return open(path).read().split() if os.path.exists(path) else ["-", "-"]


def gib(x):
    return "%.2f" % (float(x) / GIB) if x not in (None, "") else "–"


def ms(x):
    return "%.0f" % float(x) if x not in (None, "", "nan") else "–"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    dir_, res = sys.argv[1], sys.argv[2]
    # The real models: those with a PyTorch twin line (prepare.sh).
    with open(os.path.join(dir_, "twins")) as f:
        models = [line.split()[0] for line in f if line.strip()]
    print("| model | arena GiB | LB GiB | memplan device GiB | process GiB "
          "| step ms | PyTorch allocated GiB | PyTorch reserved GiB | PyTorch step ms "
          "| memplan / reserved | memplan / allocated |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    base = {}
    for m in models:
        rep = report(dir_, m + ".p0")
        run = kv(os.path.join(res, m + ".p0.out"), "memplan-runtime:")
        twin = kv(os.path.join(res, "twin." + m + ".out"), "twin:")
        rc = status(res, m + ".p0")[0]
        dev = run.get("peak_device_bytes")
        proc = None
        if "device_memory_used" in run and "device_memory_used_at_start" in run:
            proc = int(run["device_memory_used"]) - int(run["device_memory_used_at_start"])
        step = run.get("median_later_step_ms")
        base[m] = step
        alloc, reserved = twin.get("max_memory_allocated"), twin.get("max_memory_reserved")
        r1 = "%.3f" % (int(dev) / int(reserved)) if dev and reserved else "–"
        r2 = "%.3f" % (int(dev) / int(alloc)) if dev and alloc else "–"
        note = "" if rc == "0" else " (exit %s)" % rc
        print("| %s%s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            m, note, gib(rep.get("arena_bytes")), gib(rep.get("lower_bound_bytes")),
            gib(dev), gib(proc), ms(step), gib(alloc), gib(reserved),
            ms(twin.get("median_later_step_ms")), r1, r2))
    print()
    print("| model | budget | arena GiB | budget GiB | memplan device GiB | step ms "
          "| measured overhead | predicted overhead |")
    print("|---|---|---|---|---|---|---|---|")
    for m in models:
        for v, frac in (("050", "0.5 P0"), ("033", "0.33 P0")):
            rep = report(dir_, m + "." + v)
            if not rep:
                continue
            run = kv(os.path.join(res, m + "." + v + ".out"), "memplan-runtime:")
            rc = status(res, m + "." + v)[0]
            remat = rep.get("remat", {})
            step = run.get("median_later_step_ms")
            measured = "–"
            if step and base.get(m):
                measured = "%+.3f" % (float(step) / float(base[m]) - 1)
            predicted = "–"
            if remat.get("baseline_cost"):
                predicted = "%+.3f" % (float(remat.get("recompute_cost", 0)) /
                                       float(remat["baseline_cost"]))
            note = "" if rc == "0" else " (exit %s)" % rc
            print("| %s%s | %s | %s | %s | %s | %s | %s | %s |" % (
                m, note, frac, gib(rep.get("arena_bytes")),
                gib(remat.get("budget_bytes")), gib(run.get("peak_device_bytes")),
                ms(step), measured, predicted))


if __name__ == "__main__":
    main()
