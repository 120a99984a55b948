#!/usr/bin/env python3
"""Packs a fixed suite of 25 generated traces (irregular ones of 3000-10000
buffers, planted ones of 6000-50000 generator pieces) with memplan-pack's
default `best`, with each binary given, and prints one markdown row per
binary: the mean excess over LB (arena / LB - 1), how many reach LB exactly,
the slowest pack time, and each trace's arena / LB.

The suite (written by bench/gen_irregular_trace.py and
bench/gen_planted_trace.py, so the same on any machine):
  ir1-ir6  irregular, 10000 buffers, seeds 1-6
  pl1-pl6  planted, 20000 pieces, drop 0.5, seeds 1-6 (about 10^4 buffers)
  pm1-pm6  planted, 40000 pieces, drop 0.8, seeds 1-6
  p14k     planted, 14000 pieces, drop 0.5, seed 4
  p50k     planted, 50000 pieces, drop 0.8, seed 1
  r5k      irregular, 5000 buffers, seed 3
  is7 is8  irregular, 3000 buffers, seeds 7 and 8
  ps7 ps8  planted, 6000 pieces, drop 0.5, seeds 7 and 8
Planted traces admit a packing at LB; irregular ones may not.

Three more sets, for checking a change tuned on the suite on traces it was not
tuned on (--set):
  held-out (12 traces)  ir11-ir14 irregular, 10000 buffers, seeds 11-14;
                        pl11-pl14 planted, 20000 pieces, drop 0.5, seeds
                        11-14; pm11 pm12 planted, 40000 pieces, drop 0.8;
                        r11 r12 irregular, 5000 buffers
  small (12 traces)     segments the exact search takes (up to 4096
                        buffers): ps1-ps6 planted, 6000 pieces, drop 0.5;
                        pm1-pm3 planted, 8000 pieces, drop 0.8; ir1-ir3
                        irregular, 3000 buffers
  large (12 traces)     about 10^5 buffers, where the rules take most of
                        the work bound: PL1-PL6 planted, 200000 pieces,
                        drop 0.5, seeds 1-6; PM1 planted, 500000 pieces,
                        drop 0.8; IR1-IR5 irregular, 100000 buffers, seeds
                        1-5 (generating them takes a few minutes)

Two more at scale, for checking a change tuned on the large set (both
first used for the choice of kMinHugeItems and kHugeItemsShare, which
changed none of their arenas; docs/benchmarks.md, eighth stop):
  large-held-out (11 traces)
                        PL7-PL12 planted, 200000 pieces, drop 0.5, seeds
                        7-12; PM2 planted, 500000 pieces, drop 0.8;
                        IR6-IR9 irregular, 100000 buffers, seeds 6-9
  mid (10 traces)       segments of 3-6 * 10^4 buffers: P80k1-4 and
                        P120k1-3 planted, 80000 and 120000 pieces, drop
                        0.5; I50k1-3 irregular, 50000 buffers

usage: bench/pack_suite.py [--set=SET] [BINARY ...]
  (SET: suite, held-out, small, large, large-held-out or mid)
  (default: the suite, build/bin/memplan-pack)
  The binaries take turns on each trace, so that they are timed under the
  same conditions (the machine's speed drifts); the arenas do not depend on
  it (the work bound is deterministic).
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


IRREGULAR = os.path.join(ROOT, "bench", "gen_irregular_trace.py")
PLANTED = os.path.join(ROOT, "bench", "gen_planted_trace.py")


def named(name, seed):
    """`name` with the seed in place of its %d, if it has one."""
    return name % seed if "%d" in name else name


def irregular(name, buffers, seeds):
    """(name, command) for irregular traces of `buffers` buffers."""
    return [(named(name, s), [IRREGULAR, str(buffers), "--seed", str(s)])
            for s in seeds]


def planted(name, pieces, drop, seeds):
    """(name, command) for planted traces cut into `pieces` pieces."""
    return [(named(name, s), [PLANTED, str(pieces), "--seed", str(s), "--drop",
                        drop]) for s in seeds]


def held_out():
    return (irregular("ir%d", 10000, range(11, 15)) +
            planted("pl%d", 20000, "0.5", range(11, 15)) +
            planted("pm%d", 40000, "0.8", (11, 12)) +
            irregular("r%d", 5000, (11, 12)))


def small():
    return (planted("ps%d", 6000, "0.5", range(1, 7)) +
            planted("pm%d", 8000, "0.8", range(1, 4)) +
            irregular("ir%d", 3000, range(1, 4)))


def large():
    return (planted("PL%d", 200000, "0.5", range(1, 7)) +
            planted("PM%d", 500000, "0.8", (1,)) +
            irregular("IR%d", 100000, range(1, 6)))


def large_held_out():
    return (planted("PL%d", 200000, "0.5", range(7, 13)) +
            planted("PM%d", 500000, "0.8", (2,)) +
            irregular("IR%d", 100000, range(6, 10)))


def mid():
    return (planted("P80k%d", 80000, "0.5", range(1, 5)) +
            planted("P120k%d", 120000, "0.5", range(1, 4)) +
            irregular("I50k%d", 50000, range(1, 4)))


def suite():
    return (irregular("ir%d", 10000, range(1, 7)) +
            planted("pl%d", 20000, "0.5", range(1, 7)) +
            planted("pm%d", 40000, "0.8", range(1, 7)) +
            planted("p14k", 14000, "0.5", (4,)) +
            planted("p50k", 50000, "0.8", (1,)) +
            irregular("r5k", 5000, (3,)) +
            irregular("is%d", 3000, (7, 8)) +
            planted("ps%d", 6000, "0.5", (7, 8)))


def pack(binary, csv):
    """(arena, LB, ms) of `binary` on `csv`; exits with its message if the
    run fails or prints no result line."""
    run = subprocess.run([binary, "--input=" + csv, "--quiet"],
                         capture_output=True, text=True)
    arena = re.search(r"^arena=(\d+)", run.stdout)
    lb = re.search(r" lower_bound=(\d+)", run.stdout)
    ms = re.search(r"time_ms=([\d.]+)", run.stdout)
    if run.returncode != 0 or not (arena and lb and ms):
        sys.exit("pack_suite.py: %s on %s failed (exit %d): %s" %
                 (binary, csv, run.returncode,
                  (run.stderr or run.stdout).strip()))
    return int(arena.group(1)), int(lb.group(1)), float(ms.group(1))


def main():
    args = sys.argv[1:]
    sets = {"suite": suite, "held-out": held_out, "small": small,
            "large": large, "large-held-out": large_held_out, "mid": mid}
    chosen = "suite"
    if args and args[0].startswith("--set="):
        chosen = args.pop(0)[len("--set="):]
        if chosen not in sets:
            sys.exit("pack_suite.py: --set must be one of %s" %
                     ", ".join(sets))
    binaries = args or [os.path.join(ROOT, "build", "bin", "memplan-pack")]
    for b in binaries:
        if not os.path.isfile(b) or not os.access(b, os.X_OK):
            sys.exit("pack_suite.py: %s is not an executable file" % b)
    with tempfile.TemporaryDirectory() as tmp:
        traces = sets[chosen]()
        for name, cmd in traces:
            with open(os.path.join(tmp, name + ".csv"), "w") as out:
                gen = subprocess.run([sys.executable] + cmd, stdout=out,
                                     stderr=subprocess.PIPE, text=True)
            if gen.returncode != 0:
                sys.exit("pack_suite.py: %s failed: %s" %
                         (" ".join(cmd), gen.stderr.strip()))
        names = [name for name, _ in traces]
        rows = {b: [] for b in binaries}
        for name in names:
            for b in binaries:
                rows[b].append(pack(b, os.path.join(tmp, name + ".csv")))
        print("| binary | mean excess | at LB | max ms | " +
              " | ".join(names) + " |")
        print("|---" * (4 + len(names)) + "|")
        for b in binaries:
            results = rows[b]
            excess = sum((a - lb) / lb for a, lb, _ in results)
            hits = sum(a == lb for a, lb, _ in results)
            slowest = max(ms for _, _, ms in results)
            cells = ["%.4f" % (a / lb) for a, lb, _ in results]
            print("| %s | %.5f | %d/%d | %.0f | %s |" %
                  (b, excess / len(names), hits, len(names), slowest,
                   " | ".join(cells)))


if __name__ == "__main__":
    main()
