#!/usr/bin/env python3
"""fuzz_ir.py --seed S --count N [--bin DIR] [--save DIR] [--src DIR]

Seeded random fuzzing of memplan-opt's passes. The corpus is every .mlir
file under test/ (Transforms, Analysis, Conversion, Pipelines, IR,
Integration, Examples, Tools) and examples/ of the source tree (--src,
default: the checkout this script is in), split at `// -----` into cases.
Each case takes one piece and mutates it (deletes, duplicates or swaps
lines; sets integer literals to 0, -1, huge or 2^63-1; changes shapes and
element types; drops attributes; swaps SSA names; splices a line from
another file), then runs memplan-opt -allow-unregistered-dialect with a
random one of --memplan-annotate-lifetimes, --memplan-insert-remat=budget=N,
--memplan-pack-arena, --memplan-verify-plan, --memplan-pipeline and
--memplan-pipeline=budget=N. Checks:

  * never a hang, a signal or crash text; exit code 0 or 1;
  * exit 0: the output parses again (memplan-opt, with the verifier); after
    --memplan-pack-arena on an input without a plan of its own, the plan
    passes --memplan-verify-plan;
  * exit 1: an `error:` with a location (file:line:col), never one at an
    unknown location or none at all.

Prints `fuzz_ir: cases=N ok=N rejected=N failures=N` (ok: the pass ran and
its output checked; rejected: the input refused with a located error) and
exits 1 when any case failed, each saved under --save with its command.
"""

import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuzzcommon import CaseFailure, Driver, Tool, check, parse_args

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS_DIRS = ["test/Transforms", "test/Analysis", "test/Conversion",
               "test/Pipelines", "test/IR", "test/Integration",
               "test/Examples", "test/Tools", "examples"]
SPLIT = re.compile(r"^\s*//\s*-----\s*$")

INTEGERS = ["0", "-1", "1", "2", "3", "63", "4096", str(2**31),
            str(2**32), str(2**62), str(2**63 - 1), str(2**63), str(-2**63),
            "99999999999999999999"]
DIMS = ["0", "1", "2", "7", "?", "4096", str(2**31), str(2**62),
        str(2**63 - 1), "100000"]
ELEMENT_TYPES = ["f32", "f16", "f64", "bf16", "i1", "i8", "i32", "i64",
                 "index", "complex<f32>", "f8E4M3FN", "i24", "i65",
                 "vector<3xf32>", "vector<8xi1>", "vector<[4]xf32>"]
BUDGETS = [0, 1, 64, 1000, 4096, 100000, 10**9, 2**31, 2**62, 2**63 - 1]


def load_corpus(src):
    pieces = []
    for d in CORPUS_DIRS:
        root = os.path.join(src, d)
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith(".mlir"):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as f:
                    lines = f.read().split("\n")
                rel = os.path.relpath(path, src)
                piece = []
                for line in lines:
                    if SPLIT.match(line):
                        pieces.append((rel, piece))
                        piece = []
                    elif not re.match(r"\s*//\s*(RUN|[A-Z0-9-]+:|expected-)",
                                      line):
                        piece.append(line)
                pieces.append((rel, piece))
    return [(rel, p) for rel, p in pieces
            if any(l.strip() and not l.strip().startswith("//") for l in p)]


def code_lines(lines):
    return [i for i, l in enumerate(lines)
            if l.strip() and not l.strip().startswith("//")]


def mutate(rng, lines, corpus):
    lines = list(lines)
    done = []
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        code = code_lines(lines)
        if not code:
            break
        k = rng.choice(code)
        m = rng.randrange(10)
        line = lines[k]
        if m == 0:
            del lines[k]
            done.append("delete line %d" % (k + 1))
        elif m == 1:
            lines.insert(k, line)
            done.append("duplicate line %d" % (k + 1))
        elif m == 2:
            j = rng.choice(code)
            lines[k], lines[j] = lines[j], lines[k]
            done.append("swap lines %d and %d" % (k + 1, j + 1))
        elif m in (3, 4):  # an integer literal
            nums = list(re.finditer(r"(?<![\w%#@.^<-])-?\d+(?![\w.])", line))
            if nums:
                t = rng.choice(nums)
                lines[k] = line[:t.start()] + rng.choice(INTEGERS) + \
                    line[t.end():]
                done.append("integer on line %d" % (k + 1))
        elif m == 5:  # a shape
            shapes = list(re.finditer(r"(tensor|memref|vector)<([^<>]*)>",
                                      line))
            if shapes:
                t = rng.choice(shapes)
                parts = t.group(2).split("x")
                if len(parts) > 1 and rng.random() < 0.3:
                    del parts[rng.randrange(len(parts) - 1)]
                elif len(parts) > 1:
                    parts[rng.randrange(len(parts) - 1)] = rng.choice(DIMS)
                else:
                    parts.insert(0, rng.choice(DIMS))
                lines[k] = line[:t.start(2)] + "x".join(parts) + \
                    line[t.end(2):]
                done.append("shape on line %d" % (k + 1))
        elif m == 6:  # an element type, on a line or everywhere
            old = rng.choice(["f32", "i32", "i64", "index", "f64", "i8"])
            new = rng.choice(ELEMENT_TYPES)
            pattern = re.compile(r"\b%s\b" % old)
            if rng.random() < 0.5:
                lines[k] = pattern.sub(new, line)
            else:
                lines = [pattern.sub(new, l) for l in lines]
            done.append("%s -> %s" % (old, new))
        elif m == 7:  # drop an attribute (dict, entry, or named field)
            spans = list(re.finditer(r"\{[^{}]*=[^{}]*\}", line)) + \
                list(re.finditer(r"[\w.]+ = [^,{}<>]+,? ?", line)) + \
                list(re.finditer(r"<[^<>]*=[^<>]*>", line))
            if spans:
                t = rng.choice(spans)
                lines[k] = line[:t.start()] + line[t.end():]
                done.append("drop attribute on line %d" % (k + 1))
        elif m == 8:  # swap two SSA names
            names = sorted(set(re.findall(r"%[\w.$-]+", "\n".join(lines))))
            if len(names) >= 2:
                a, b = rng.sample(names, 2)
                pa = re.compile(re.escape(a) + r"(?![\w.$-])")
                pb = re.compile(re.escape(b) + r"(?![\w.$-])")

                def swap(l):
                    l = pa.sub("\0A\0", l)
                    l = pb.sub(a, l)
                    return l.replace("\0A\0", b)

                if rng.random() < 0.5:
                    lines[k] = swap(line)
                else:
                    lines = [swap(l) for l in lines]
                done.append("swap %s and %s" % (a, b))
        else:  # splice a line from another piece
            _, other = rng.choice(corpus)
            code2 = code_lines(other)
            if code2:
                lines.insert(k, other[rng.choice(code2)])
                done.append("splice at line %d" % (k + 1))
    return lines, done


def pick_pass(rng):
    p = rng.randrange(6)
    if p == 0:
        return "--memplan-annotate-lifetimes"
    if p == 1:
        return "--memplan-insert-remat=budget=%d" % rng.choice(BUDGETS)
    if p == 2:
        return "--memplan-pack-arena"
    if p == 3:
        return "--memplan-verify-plan"
    if p == 4:
        return "--memplan-pipeline"
    return "--memplan-pipeline=budget=%d" % rng.choice(BUDGETS)


# --memplan-verify-plan's rejections of a plan (its description in
# include/memplan/Transforms/Passes.td).
PLAN_REJECTIONS = ["arenas; memplan plans one per function",
                   "view does not take its function's memplan.arena",
                   "ends past its arena of",
                   "buffers overlap in time and share bytes",
                   "exceeds the budget of"]

LOCATED = re.compile(r"^(?!<unknown>)(\S[^\n]*?):(\d+):(\d+): error: ",
                     re.M)


def check_located(r):
    """A failing run printed an error, and every error has a location."""
    check("error:" in r.err, "exit %d without an error message" % r.rc)
    for line in r.err.split("\n"):
        if "error:" in line and line.startswith("<unknown>"):
            raise CaseFailure("an error without a location: %r" % line)
    check(LOCATED.search(r.err) or "loc(" in r.err,
          "no error with a location: %r" % r.err[:500])


def run_case(driver, tool, corpus, rng, work, case):
    origin, piece = rng.choice(corpus)
    path = os.path.join(work, "input.mlir")
    # Mostly inputs that parse (and verify): they reach the passes. Each
    # attempt is itself a check of the parser and verifier.
    for attempt in range(4):
        if rng.random() < 0.1:
            lines, done = piece, ["unmutated"]
        else:
            lines, done = mutate(rng, piece, corpus)
        with open(path, "w", encoding="utf-8") as f:
            f.write("// from %s: %s\n" % (origin, "; ".join(done)))
            f.write("\n".join(lines) + "\n")
        parse = driver.record(tool.run(["-allow-unregistered-dialect", path,
                                        "-o", os.devnull]))
        parse.check_sane(allowed=(0, 1))
        if parse.rc != 0:
            check_located(parse)
        if parse.rc == 0 or rng.random() < 0.25:
            break
    driver.stat("input parses" if parse.rc == 0 else "input does not parse")
    flag = pick_pass(rng)
    out = os.path.join(work, "output.mlir")
    r = driver.record(tool.run(["-allow-unregistered-dialect", path, flag,
                                "-o", out]))
    r.check_sane(allowed=(0, 1))
    driver.stat("exit %d %s" % (r.rc, flag.split("=")[0]))
    if r.rc != 0:
        check_located(r)
        source = "\n".join(lines)
        if flag.startswith(("--memplan-pipeline", "--memplan-pack-arena")) \
                and "memplan." not in source:
            # The pipeline verifies the plan it packs: on an input without a
            # plan of its own, a rejection by the verifier is an invalid plan.
            for text in PLAN_REJECTIONS:
                check(text not in r.err, "%s packed a plan its verifier "
                      "rejects: %s" % (flag, r.err[:800]))
        return "rejected"
    check(os.path.exists(out), "exit 0 without writing the output")
    again = driver.record(tool.run(["-allow-unregistered-dialect", out, "-o",
                                    os.devnull]))
    again.check_sane(allowed=(0, 1))
    check(again.rc == 0, "the output of %s is not valid IR: %s" %
          (flag, again.err[:800]))
    source = "\n".join(lines)
    if flag == "--memplan-pack-arena" and "memplan." not in source:
        verify = driver.record(tool.run(["-allow-unregistered-dialect", out,
                                         "--memplan-verify-plan", "-o",
                                         os.devnull]))
        verify.check_sane(allowed=(0, 1))
        check(verify.rc == 0, "the plan --memplan-pack-arena wrote fails "
              "--memplan-verify-plan: %s" % verify.err[:800])
        driver.stat("pack-arena plan verified")
    return "ok"


def main():
    def extra(parser):
        parser.add_argument("--src", default=os.path.dirname(
            os.path.dirname(HERE)), help="the memplan source tree (its test/ "
            "and examples/ are the corpus)")

    args = parse_args("fuzz_ir", __doc__.split("\n")[0], 400, extra)
    corpus = load_corpus(args.src)
    if not corpus:
        print("fuzz_ir: no .mlir files under %s" % args.src)
        return 1
    driver = Driver("fuzz_ir", args)
    tool = Tool(args.bin, "memplan-opt", args.timeout)
    return driver.run(lambda rng, work, case:
                      run_case(driver, tool, corpus, rng, work, case))


if __name__ == "__main__":
    sys.exit(main())
