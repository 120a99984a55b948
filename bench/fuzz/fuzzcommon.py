"""Shared by the memplan fuzz drivers (fuzz_pack.py, fuzz_remat.py,
fuzz_ir.py): command-line options, running a tool binary with a timeout,
recognising crashes, saving failing cases, and the summary line.

Determinism: case K of a run with --seed S draws everything from
random.Random("S:K") (a string seed is hashed with SHA-512, stable across
Python versions and runs), so `--seed S --count N` always runs the same cases
and `--seed S --case K` re-runs case K alone. The work is bounded by the
number of cases, never by wall-clock time.

Python 3 standard library only.
"""

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

# Text that only a crash prints (LLVM's crash handler, assertions, ASan,
# UBSan) - never acceptable on any input.
CRASH_TEXTS = (
    "PLEASE submit a bug report",
    "Stack dump:",
    "Assertion",
    "Sanitizer",
    "runtime error:",
    "terminate called",
    "Segmentation fault",
    "LLVM ERROR",
    "UNREACHABLE executed",
)

DEFAULT_BIN = "build/bin"
DEFAULT_SAVE = "/tmp/memplan-fuzz-failures"


def parse_args(name, description, default_count, extra=None):
    parser = argparse.ArgumentParser(prog=name, description=description)
    parser.add_argument("--seed", type=int, default=1,
                        help="run seed (default 1)")
    parser.add_argument("--count", type=int, default=default_count,
                        help="number of cases (default %d)" % default_count)
    parser.add_argument("--case", type=int, default=None,
                        help="run only case K of the seed (to reproduce one)")
    parser.add_argument("--bin", default=DEFAULT_BIN,
                        help="directory of the memplan tools (default %s)" %
                        DEFAULT_BIN)
    parser.add_argument("--save", default=DEFAULT_SAVE,
                        help="where failing cases are saved (default %s)" %
                        DEFAULT_SAVE)
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds one tool run may take before it counts "
                        "as a hang (default 60)")
    parser.add_argument("--max-failures", type=int, default=20,
                        help="stop after this many failing cases (default 20)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print every case")
    if extra:
        extra(parser)
    args = parser.parse_args()
    if args.count < 0:
        parser.error("--count must be non-negative")
    return args


class CaseFailure(Exception):
    """A check failed: memplan crashed, hung, or printed something false."""


class Tool:
    """Runs one binary of the tool directory."""

    def __init__(self, bin_dir, name, timeout):
        self.path = os.path.join(os.path.abspath(bin_dir), name)
        self.name = name
        self.timeout = timeout

    def run(self, args, cwd=None):
        """Returns a Result; retries once (after 5 s) when the binary is
        missing, since a rebuild may be replacing it."""
        argv = [self.path] + [str(a) for a in args]
        for attempt in range(2):
            try:
                began = time.monotonic()
                proc = subprocess.run(argv, capture_output=True,
                                      timeout=self.timeout, cwd=cwd)
                return Result(argv, proc.returncode, proc.stdout, proc.stderr,
                              False, time.monotonic() - began)
            except subprocess.TimeoutExpired as e:
                return Result(argv, None, e.stdout or b"", e.stderr or b"",
                              True, self.timeout)
            except (FileNotFoundError, PermissionError, OSError):
                if attempt == 1:
                    raise
                time.sleep(5)
        raise AssertionError("unreachable")


class Result:
    def __init__(self, argv, rc, out, err, timed_out, seconds):
        self.argv = argv
        self.rc = rc
        self.out = out.decode("utf-8", "replace")
        self.err = err.decode("utf-8", "replace")
        self.timed_out = timed_out
        self.seconds = seconds

    def command(self):
        return " ".join(shlex.quote(a) for a in self.argv)

    def check_sane(self, allowed=(0, 1, 2)):
        """No hang, no signal, no crash text, an exit code in `allowed`."""
        if self.timed_out:
            raise CaseFailure("hang: no exit within the timeout")
        if self.rc < 0:
            raise CaseFailure("killed by signal %d" % -self.rc)
        both = self.out + self.err
        known = known_upstream_crash(self.rc, self.err)
        for text in CRASH_TEXTS:
            if text in both and not known:
                raise CaseFailure("crash text %r in the output" % text)
        if self.rc not in allowed:
            raise CaseFailure("exit code %d (expected one of %s)" %
                              (self.rc, sorted(allowed)))


def known_upstream_crash(rc, err):
    """Whether stderr shows a crash inside libMLIR's own parser that memplan
    cannot fix (LLVM 22's linalg.reduce parser after it reports a dimension
    past int64), which memplan-opt turns into exit 1 after the input's
    located error (fuzz_ir checks that, as for any exit 1): the stack dump
    then names that parser and nothing of memplan's."""
    return (rc == 1 and "memplan-opt crashed while parsing this input" in err
            and "linalg::ReduceOp::parse" in err and "memplan::" not in err)


def check(condition, message):
    if not condition:
        raise CaseFailure(message)


class Driver:
    """Runs the cases of one fuzz driver and keeps the tally.

    `run_case(rng, work, case)` runs one case in the fresh directory `work`
    and returns "ok" or "rejected"; it raises CaseFailure on a failure. Any
    file it leaves in `work` is saved with a failing case, so inputs should
    be written there; `self.commands` collects the commands to record."""

    def __init__(self, name, args):
        self.name = name
        self.args = args
        self.counts = {"ok": 0, "rejected": 0, "failures": 0}
        self.notes = {}
        self.stats = {}
        self.commands = []
        self.saved = []
        self.tmp = tempfile.mkdtemp(prefix="memplan-%s-" % name)

    def note(self, key, detail=""):
        """Counts something worth reporting that is not a failure (with -v,
        prints it with the case)."""
        self.notes[key] = self.notes.get(key, 0) + 1
        if self.args.verbose:
            print("case %s: note: %s%s" % (self.current, key,
                                           ": " + detail if detail else ""))

    def stat(self, key):
        """Counts what the cases exercised (printed with -v)."""
        self.stats[key] = self.stats.get(key, 0) + 1

    def record(self, result):
        self.commands.append(result)
        return result

    def case_rng(self, case):
        import random
        return random.Random("%d:%d" % (self.args.seed, case))

    def run(self, run_case):
        cases = ([self.args.case] if self.args.case is not None
                 else range(self.args.count))
        began = time.monotonic()
        ran = 0
        for case in cases:
            work = os.path.join(self.tmp, "case%d" % case)
            os.makedirs(work)
            self.commands = []
            self.current = case
            ran += 1
            try:
                outcome = run_case(self.case_rng(case), work, case)
                self.counts[outcome] += 1
                shutil.rmtree(work, ignore_errors=True)
            except CaseFailure as failure:
                self.counts["failures"] += 1
                self.save(case, work, str(failure))
                if self.counts["failures"] >= self.args.max_failures:
                    print("%s: stopping after %d failures" %
                          (self.name, self.counts["failures"]))
                    break
        shutil.rmtree(self.tmp, ignore_errors=True)
        elapsed = time.monotonic() - began
        for key in sorted(self.notes):
            print("%s: note: %s: %d" % (self.name, key, self.notes[key]))
        print("%s: cases=%d ok=%d rejected=%d failures=%d" %
              (self.name, ran, self.counts["ok"], self.counts["rejected"],
               self.counts["failures"]), flush=True)
        if self.args.verbose:
            for key in sorted(self.stats):
                print("%s: stat: %s: %d" % (self.name, key, self.stats[key]))
            print("%s: %.1f s" % (self.name, elapsed))
        return 1 if self.counts["failures"] else 0

    def save(self, case, work, reason):
        dest = os.path.join(self.args.save, "%s-seed%d-case%d" %
                            (self.name, self.args.seed, case))
        if os.path.exists(dest):
            shutil.rmtree(dest)
        shutil.copytree(work, dest)
        with open(os.path.join(dest, "README.txt"), "w") as f:
            f.write("%s: seed %d case %d\n" % (self.name, self.args.seed,
                                               case))
            f.write("failure: %s\n\n" % reason)
            f.write("reproduce this case: python3 %s --seed %d --case %d "
                    "--bin %s\n\n" % (sys.argv[0], self.args.seed, case,
                                      self.args.bin))
            f.write("commands run (in the case's directory, now this one):\n")
            for r in self.commands:
                f.write("$ %s\n" % " ".join(
                    shlex.quote(a) for a in self.rel(r.argv, work)))
                f.write("  exit: %s\n" % ("timeout" if r.timed_out else r.rc))
                for stream, text in (("stdout", r.out), ("stderr", r.err)):
                    if text:
                        f.write("  %s: %s\n" % (stream, text[:4000].replace(
                            "\n", "\n    ")))
        with open(os.path.join(dest, "command.sh"), "w") as f:
            f.write("#!/bin/sh\n# %s\ncd \"$(dirname \"$0\")\"\n" %
                    reason.replace("\n", " "))
            for r in self.commands:
                f.write(" ".join(shlex.quote(a)
                                 for a in self.rel(r.argv, work)) + "\n")
        print("%s: FAILURE in case %d: %s\n  saved in %s" %
              (self.name, case, reason, dest), flush=True)
        self.saved.append(dest)

    @staticmethod
    def rel(argv, work):
        """Arguments with the case directory made relative (options like
        --input=<path> included)."""
        out = []
        for a in argv:
            out.append(a.replace(work + "/", "./"))
        return out


def uint_field(text, name):
    """The integer value of `name=<digits>` in a summary line."""
    m = re.search(r"(?:^|\s)%s=(\d+)(?=\s|$)" % re.escape(name), text)
    return int(m.group(1)) if m else None


def text_field(text, name):
    m = re.search(r"(?:^|\s)%s=(\S+)" % re.escape(name), text)
    return m.group(1) if m else None
