#!/usr/bin/env python3
"""coverage.py DIR [--bin build/bin] [--entry main] [--jobs 1]

Measures how much of a corpus of MLIR programs memplan plans (issue 14's
target: of the static-shape programs that upstream one-shot-bufferize
accepts and that allocate, the share memplan plans completely). For each
*.mlir file under DIR:

  1. parse (mlir-opt); dynamic shapes ('?' in a tensor/memref type) put the
     program in the "dynamic" group;
  2. bufferize: memplan-opt --memplan-prepare | mlir-opt --one-shot-bufferize
     (function boundaries, identity layouts); does it allocate (memref.alloc)?
  3. memplan-opt --memplan-pipeline="report=..." : exit code; from the JSON
     report, functions left unplanned and allocations left on the heap
     (`heap_buffers`), with their reasons;
  4. when the file defines @<entry> (default main), run the planned program
     and the unplanned reference under mlir-runner and compare the output
     (runner address lines dropped).

A program counts as "fully planned" when the pipeline exits 0, no function
is unplanned and no allocation stays on the heap. Prints one line per file
and a summary; the corpus itself is the user's (nothing is copied).
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

LLVM = "/usr/lib/llvm-22"
BUFFERIZE = ("--one-shot-bufferize=bufferize-function-boundaries "
             "function-boundary-type-conversion=identity-layout-map")
LIBS = ",".join(os.path.join(LLVM, "lib", l) for l in
                ["libmlir_runner_utils.so", "libmlir_c_runner_utils.so"])
DYNAMIC = re.compile(r"(tensor|memref)<[^>]*\?")


def sh(cmd, stdin=None, timeout=300):
    try:
        p = subprocess.run(cmd, input=stdin, capture_output=True, text=True,
                           timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", "timeout"


def run(mlir_text, entry):
    rc, out, err = sh([os.path.join(LLVM, "bin", "mlir-runner"), "-e", entry,
                       "-entry-point-result=void", "-shared-libs=" + LIBS],
                      stdin=mlir_text, timeout=120)
    return rc, "\n".join(l for l in out.splitlines() if "base@" not in l)


def measure(path, opt, entry, tmp):
    row = {"file": os.path.basename(path)}
    text = open(path, encoding="utf-8", errors="replace").read()
    rc, _, _ = sh([os.path.join(LLVM, "bin", "mlir-opt"), path, "-o", os.devnull])
    row["parses"] = rc == 0
    if not row["parses"]:
        return row
    row["dynamic"] = bool(DYNAMIC.search(text))
    rc, prepared, _ = sh([opt, "--memplan-prepare", path])
    brc, buffered, _ = (rc, "", "") if rc else sh(
        [os.path.join(LLVM, "bin", "mlir-opt"), BUFFERIZE], stdin=prepared)
    row["bufferizes"] = brc == 0
    row["allocates"] = "memref.alloc" in buffered
    report = os.path.join(tmp, row["file"] + ".json")
    mrc, planned, merr = sh([opt, "--memplan-pipeline=report=" + report, path])
    row["memplan_exit"] = mrc
    row["first_error"] = next((l for l in merr.splitlines() if "error:" in l), "")
    unplanned, heap = [], []
    if mrc == 0 and os.path.exists(report):
        for f in json.load(open(report))["functions"]:
            if "unplanned" in f:
                unplanned.append("%s: %s" % (f["name"], f["unplanned"]))
            heap += ["%s: %s" % (h["name"], h["reason"])
                     for h in f.get("heap_buffers", [])]
    row["unplanned"], row["heap"] = unplanned, heap
    row["fully_planned"] = mrc == 0 and not unplanned and not heap
    row["run"] = "not run"
    if mrc == 0 and brc == 0 and re.search(r"func\.func @%s\b" % re.escape(entry), text):
        lrc, lowered, _ = sh([opt, "--memplan-lower-to-llvm"], stdin=buffered)
        if lrc == 0:
            ref = run(lowered, entry)
            got = run(planned, entry)
            row["run"] = ("identical" if ref == got else
                          "DIFFERENT" if ref[0] == 0 else "reference fails")
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--bin", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin"))
    ap.add_argument("--entry", default="main")
    args = ap.parse_args()
    opt = os.path.join(args.bin, "memplan-opt")
    files = sorted(glob.glob(os.path.join(args.dir, "**", "*.mlir"), recursive=True))
    if not files:
        sys.exit("coverage.py: no .mlir files under %s" % args.dir)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            r = measure(path, opt, args.entry, tmp)
            rows.append(r)
            print("%-50s parse=%s dynamic=%s bufferize=%s allocates=%s exit=%s full=%s run=%s %s" % (
                r["file"], r["parses"], r.get("dynamic"), r.get("bufferizes"),
                r.get("allocates"), r.get("memplan_exit"), r.get("fully_planned"),
                r.get("run"), "; ".join(r.get("unplanned", []) + r.get("heap", []))[:200]))
    target = [r for r in rows if r["parses"] and not r["dynamic"] and r["bufferizes"]
              and r["allocates"]]
    full = [r for r in target if r["fully_planned"]]
    different = [r for r in rows if r.get("run") == "DIFFERENT"]
    print("coverage: %d files, %d static programs that bufferize and allocate, "
          "%d fully planned (%.0f%%); %d runs identical, %d DIFFERENT" % (
              len(rows), len(target), len(full),
              100.0 * len(full) / len(target) if target else 0.0,
              sum(r.get("run") == "identical" for r in rows), len(different)))
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
