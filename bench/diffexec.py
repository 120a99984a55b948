#!/usr/bin/env python3
"""diffexec.py [--seeds A:B] [options]

Random differential execution: for each seed in [A, B), generates a training
step with gen_random_step.py (next to this file) and runs it on the CPU under
mlir-runner several ways, comparing the printed outputs bit for bit with the
unplanned run's (the runner's addresses aside; the program prints every result
as values and as raw bits, so equal text means equal bits):

  unplanned  memplan-opt --one-shot-bufferize=... (lit's %bufferize),
             memplan-opt --memplan-lower-to-llvm, mlir-runner
  planned    memplan-opt --memplan-pipeline, mlir-runner; its report gives P0,
             the arena of @train_step without remat
  budget     --memplan-pipeline=budget=B, B drawn from [P0/4, P0]. memplan may
             refuse it with its documented error ("the budget of B bytes is
             infeasible for @f: the smallest budget ... is M bytes", exit 1):
             the seed counts as refused, and then
  floor      budget=M must be accepted, and so must
  between    a budget drawn from (M, P0] (a smaller budget never gets a larger
             arena, so every budget from M up is feasible)
  policy     --memplan-pipeline=policy=P, P one of recompute-all (half the
             seeds), sqrt, every-n: recomputation even where the budget
             cannot go below P0

Each stage runs as its own process, one after the other, through files.
Outcomes per seed:
  crash       a stage killed by a signal, exiting >= 128 or timing out
  difference  a planned run prints something else than the unplanned one
  error       anything else that fails: the program does not verify, an
              upstream stage or mlir-runner fails, a budget the driver must
              see accepted (floor, between, none) is refused
  rejected    a memplan compile stops with a located error that is not the
              budget refusal (memplan declines to plan the program); the other
              variants still run. A failure only with --strict
  identical   every variant ran and printed the same bits
Crashes, differences and errors keep the seed's directory (step.mlir,
intermediate files, stderr, outputs, repro.sh) and print its path. The report
of every accepted variant is read to count the seeds where at least one
planned run recomputed a buffer. Last line:

  seeds=N identical=N refused=N differences=N crashes=N rejected=N errors=N

(identical counts refused seeds whose floor/between runs matched). Exit 1 when
differences, crashes or errors (with --strict, rejected) is non-zero.
Python 3 standard library only.
"""
import argparse
import importlib.util
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BUFFERIZE = ("--one-shot-bufferize=bufferize-function-boundaries "
             "function-boundary-type-conversion=identity-layout-map")
# The documented refusal of an infeasible budget (the wording of the smallest
# budget varies with the policy and the arena check: "policy 'budget' reaches
# is", "this policy reached is", ...).
REFUSAL = re.compile(r"error: the budget of (\d+) bytes is infeasible for @[\w$.]+"
                     r"(?: with policy '[^']*')?: the smallest budget [^\n]*? (\d+) bytes")
LOCATED_ERROR = re.compile(r"^\S+:\d+:\d+: error: (.*)$", re.M)
ADDRESS = re.compile(r"base@ = 0x[0-9a-fA-F]+")


def load_generator():
    spec = importlib.util.spec_from_file_location("gen_random_step", os.path.join(HERE, "gen_random_step.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Failure(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind  # "difference", "crash" or "error"


class Rejected(Exception):
    """memplan stopped with a located error other than the budget refusal."""


class SeedRun:
    def __init__(self, args, seed, work):
        self.args = args
        self.seed = seed
        self.work = work
        self.commands = []  # for repro.sh
        self.rejections = []  # messages
        self.refused = False
        self.recomputed = []  # variants whose report has a recomputed buffer

    def path(self, name):
        return os.path.join(self.work, name)

    def run(self, label, argv, stdout_name, memplan=False):
        """Runs argv with stdout to a file; returns (rc, stderr text). rc is 0,
        or 1 for the budget refusal when memplan is set (a memplan compile)."""
        out_path = self.path(stdout_name)
        err_path = self.path(label + ".err")
        self.commands.append(" ".join(shlex.quote(a) for a in argv) + " > " + shlex.quote(out_path))
        if shutil.which(argv[0]) is None:
            time.sleep(3)  # a build may be replacing the tool for a moment: retry once
        try:
            with open(out_path, "wb") as out, open(err_path, "wb") as err:
                proc = subprocess.run(argv, stdout=out, stderr=err, timeout=self.args.timeout)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            raise Failure("crash", f"{label}: timed out after {self.args.timeout} s")
        except OSError as e:
            raise Failure("error", f"{label}: cannot run {argv[0]}: {e}")
        with open(err_path, errors="replace") as f:
            err_text = f.read()
        if rc < 0 or rc >= 128:
            raise Failure("crash", f"{label}: exit {rc} ({'signal ' + str(-rc) if rc < 0 else 'status >= 128'})"
                          f"; stderr: {first_line(err_text)}")
        if rc == 0:
            return rc, err_text
        if memplan and rc == 1:
            if REFUSAL.search(err_text):
                return rc, err_text
            m = LOCATED_ERROR.search(err_text)
            if m:
                raise Rejected(f"{label}: {m.group(1)[:300]}")
        raise Failure("error", f"{label}: exit {rc}; stderr: {first_line(err_text)}")

    def execute(self, label, llvm_file):
        """Runs an LLVM-dialect file under mlir-runner; returns its output without addresses."""
        libs = os.path.join(self.args.mlir_lib_dir, "libmlir_runner_utils.so") + "," + \
            os.path.join(self.args.mlir_lib_dir, "libmlir_c_runner_utils.so")
        self.run(label, [self.args.mlir_runner, "-e", "main", "-entry-point-result=void",
                         "-shared-libs=" + libs, self.path(llvm_file)], label + ".raw")
        with open(self.path(label + ".raw"), errors="replace") as f:
            text = ADDRESS.sub("base@", f.read())
        with open(self.path(label + ".out"), "w") as f:
            f.write(text)
        return text

    def variant(self, label, options, ref, refusal_ok=False):
        """Compiles step.mlir with --memplan-pipeline=<options>, runs it and
        compares with ref. Returns the refusal's stderr (only when refusal_ok),
        else None."""
        opt = "--memplan-pipeline"
        report = self.path(label + ".json")
        shown = " ".join(options) or "no options"
        options = options + ["report=" + report]
        if self.args.time_limit is not None:
            options = options + [f"time-limit={self.args.time_limit}"]
        if options:
            opt += "=" + " ".join(options)
        try:
            rc, err = self.run(label + "-compile", [self.args.memplan_opt, opt, self.path("step.mlir")],
                               label + ".ll", memplan=True)
        except Rejected as r:
            self.rejections.append(str(r))
            return None
        if rc != 0:
            if refusal_ok:
                return err
            raise Failure("error", f"{label}: {shown} refused: {first_line(REFUSAL.search(err).group(0))}")
        with open(report) as f:
            if '"recomputed": true' in f.read():
                self.recomputed.append(label)
        out = self.execute(label, label + ".ll")
        if out != ref:
            raise Failure("difference", f"{label} ({shown}) prints something else than unplanned: "
                          f"diff {self.path('unplanned.out')} {self.path(label + '.out')}")
        return None

    def go(self, gen):
        a = self.args
        rng = random.Random(self.seed * 7919 + 17)  # the driver's choices, apart from the program's
        prog = self.path("step.mlir")
        with open(prog, "w") as f:
            f.write(gen.StepGenerator(self.seed, a.max_ops).generate())
        self.commands.append(f"# step.mlir: {sys.executable} {os.path.join(HERE, 'gen_random_step.py')} "
                             f"--seed {self.seed} --max-ops {a.max_ops}")
        self.run("verify", [a.memplan_opt, prog], "verified.mlir")

        # (a) unplanned: upstream bufferization and lowering only.
        self.run("bufferize", [a.memplan_opt, BUFFERIZE, prog], "unplanned.mlir")
        self.run("lower", [a.memplan_opt, "--memplan-lower-to-llvm", self.path("unplanned.mlir")], "unplanned.ll")
        ref = self.execute("unplanned", "unplanned.ll")
        if ref.count("[") < 2:
            raise Failure("error", "the unplanned program printed no memref")

        # (b) planned, default options; its report gives P0.
        report = self.path("planned.json")
        self.variant("planned", [], ref)
        p0 = 0
        if os.path.exists(report):
            with open(report) as f:
                funcs = {fn["name"]: fn for fn in json.load(f)["functions"]}
            p0 = funcs.get("train_step", {}).get("arena_bytes", 0)

        # (c) planned under a random budget in [P0/4, P0]. A refusal names the
        # smallest budget M: M must then be accepted, and so must any budget
        # between M and P0 (a smaller budget never gets a larger arena).
        if p0 > 0:
            budget = rng.randint(max(1, p0 // 4), p0)
            err = self.variant("budget", [f"budget={budget}"], ref, refusal_ok=True)
            if err is not None:
                self.refused = True
                # The budget holds for every function; each one that cannot
                # keep it names its own smallest budget: the floor is the
                # largest of them.
                floor = max(int(m.group(2)) for m in REFUSAL.finditer(err))
                if floor <= budget:
                    raise Failure("error", f"budget={budget} refused naming a smallest budget {floor} <= it")
                self.variant("floor", [f"budget={floor}"], ref)
                if floor < p0:
                    self.variant("between", [f"budget={rng.randint(floor + 1, p0)}"], ref)

        # (d) a remat policy without a budget, so that every program gets
        # recomputation (the budget often cannot go below P0).
        policy = rng.choice(["recompute-all", "recompute-all", "sqrt", "every-n"])
        self.variant("policy", [f"policy={policy}"], ref)

    def write_repro(self):
        with open(self.path("repro.sh"), "w") as f:
            f.write("#!/bin/sh\n# Commands run for seed %d, in order (stop at the first failure).\n"
                    % self.seed)
            for c in self.commands:
                f.write(c + "\n")


def first_line(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:300]
    return "(empty)"


def parse_seeds(text):
    m = re.fullmatch(r"(\d+):(\d+)", text)
    if not m or int(m.group(1)) >= int(m.group(2)):
        raise argparse.ArgumentTypeError("expected A:B with A < B (seeds A .. B-1)")
    return range(int(m.group(1)), int(m.group(2)))


def main():
    root = os.path.dirname(HERE)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=parse_seeds, default=parse_seeds("0:20"), help="A:B, seeds A..B-1 (default 0:20)")
    ap.add_argument("--max-ops", type=int, default=12, help="gen_random_step.py --max-ops (default 12)")
    ap.add_argument("--memplan-opt", default=os.path.join(root, "build", "bin", "memplan-opt"))
    ap.add_argument("--mlir-runner", default="/usr/lib/llvm-22/bin/mlir-runner")
    ap.add_argument("--mlir-lib-dir", default="/usr/lib/llvm-22/lib")
    ap.add_argument("--time-limit", type=float, default=None,
                    help="pass time-limit=S to --memplan-pipeline (default: the pipeline's own)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds one stage may take (default 300)")
    ap.add_argument("--work-dir", default=None, help="where failing seeds are kept (default: a new temp dir)")
    ap.add_argument("--keep-all", action="store_true", help="keep every seed's directory, not only failing ones")
    ap.add_argument("--strict", action="store_true",
                    help="count rejections (a memplan error other than the budget refusal) as failures")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per seed")
    args = ap.parse_args()

    gen = load_generator()
    work = args.work_dir or tempfile.mkdtemp(prefix="diffexec-")
    os.makedirs(work, exist_ok=True)
    counts = {k: 0 for k in ("identical", "refused", "rejected", "difference", "crash", "error")}
    remat_seeds = 0
    remat_variants = {}
    start = time.time()
    for seed in args.seeds:
        d = os.path.join(work, f"seed-{seed}")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        run = SeedRun(args, seed, d)
        t0 = time.time()
        keep = args.keep_all
        try:
            run.go(gen)
            counts["refused"] += run.refused
            remat_seeds += bool(run.recomputed)
            for label in run.recomputed:
                remat_variants[label] = remat_variants.get(label, 0) + 1
            if run.rejections:
                counts["rejected"] += 1
                keep = keep or args.strict
                for r in run.rejections:
                    print(f"seed {seed}: REJECTED by {r}", flush=True)
            else:
                counts["identical"] += 1
            if args.verbose:
                state = "rejected" if run.rejections else "refused, floor identical" if run.refused else "identical"
                print(f"seed {seed}: {state} ({time.time() - t0:.1f} s)", flush=True)
        except Failure as f:
            counts[f.kind] += 1
            keep = True
            print(f"seed {seed}: {f.kind.upper()}: {f}", flush=True)
        if keep:
            run.write_repro()
            print(f"seed {seed}: kept in {d} (repro.sh)", flush=True)
        else:
            shutil.rmtree(d)
    failed = counts["difference"] + counts["crash"] + counts["error"] + (counts["rejected"] if args.strict else 0)
    if not failed and not args.keep_all and not args.work_dir:
        shutil.rmtree(work, ignore_errors=True)
    print(f"time: {time.time() - start:.1f} s; seeds with a recomputed buffer: {remat_seeds} "
          f"({', '.join(f'{k} {v}' for k, v in sorted(remat_variants.items())) or 'none'})", flush=True)
    print(f"seeds={len(args.seeds)} identical={counts['identical']} refused={counts['refused']} "
          f"differences={counts['difference']} crashes={counts['crash']} "
          f"rejected={counts['rejected']} errors={counts['error']}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
