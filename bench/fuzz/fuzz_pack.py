#!/usr/bin/env python3
"""fuzz_pack.py --seed S --count N [--bin DIR] [--save DIR]

Seeded random fuzzing of memplan-pack (docs/Packing.md). Each case writes a
CSV instance - a random valid one (1..300 buffers, sometimes 1..7; sizes
from 1 to near 2^62, power-of-two alignments, short and long lifetimes,
several header forms) or a malformed variant of one (truncated lines, wrong
column counts, non-numbers, negative or huge numbers, an empty file,
duplicate ids, a BOM, CRLF, extra header columns, ...) - and runs
memplan-pack with a random --algorithm, --time-limit in [0.05, 0.2] and
sometimes --capacity, --validate and --output. Checks, independently of
memplan's code:

  * never a hang, a signal or crash text; exit code 0, 1 or 2;
  * exit 2 exactly when the CSV breaks a documented rule (as decided here by
    an independent reader of the format), the message naming the file and
    the first bad line;
  * on a plan (--output): every row back with its offset, offsets aligned,
    no two buffers that overlap in time sharing a byte, arena = the highest
    offset + size, lower_bound = the peak of live bytes, arena >= lower_bound;
  * on instances of at most 7 buffers, the optimum by exhaustive search (all
    orders, each buffer at the lowest aligned offset where it fits - that
    reaches the optimum): `optimal=yes` only when arena = optimum, and an
    exit 1 under --capacity saying "proven" only when optimum > capacity (on
    larger instances: only when no greedy packing found here fits);
  * exit 0 under --capacity only when arena <= capacity.

Prints `fuzz_pack: cases=N ok=N rejected=N failures=N` (ok: planned or a
verified exit 1; rejected: bad input refused as documented) and exits 1 when
any case failed, each saved under --save with its command.
"""

import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuzzcommon import (CaseFailure, Driver, Tool, check, parse_args,
                        text_field, uint_field)

INT64_MAX = 2**63 - 1
INT64_MIN = -2**63
SUM_LIMIT = (2**64 - 1) >> 2  # the aligned sizes may total this much
BRUTE_FORCE_MAX = 7    # instances this small are always searched
BRUTE_FORCE_LARGE = 10  # larger ones, component by component, up to this

KNOWN_COLUMNS = {"id", "lower", "upper", "start", "end", "size", "alignment",
                 "offset", "hint", "gaps"}
WHITESPACE = " \t\n\v\f\r"


# --------------------------------------------------------------------------
# Instances


class Buffer:
    __slots__ = ("id", "lower", "upper", "size", "align")

    def __init__(self, id, lower, upper, size, align):
        self.id, self.lower, self.upper = id, lower, upper
        self.size, self.align = size, align


def random_id(rng, i, used):
    while True:
        kind = rng.random()
        if kind < 0.6:
            name = "b%d" % i
        elif kind < 0.8:
            name = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz_0123456789")
                           for _ in range(rng.randint(1, 12)))
        elif kind < 0.9:
            name = str(rng.randint(-10**6, 10**18))
        else:
            name = "".join(rng.choice("xé∂😀\"';:|.#") for _ in
                           range(rng.randint(1, 6)))
        if name not in used:
            used.add(name)
            return name
        i += rng.randint(1, 1000)


def random_sizes(rng, n):
    mode = rng.choice(["small", "medium", "pow2", "mult64", "huge", "mixed",
                       "equal"])
    top = max(1, (2**62 - 2**45) // n)  # room for sizes near 2^62 in total

    def one(m):
        if m == "small":
            return rng.randint(1, 64)
        if m == "medium":
            return rng.randint(1, 10**6)
        if m == "pow2":
            return 2 ** rng.randint(0, 40)
        if m == "mult64":
            return 64 * rng.randint(1, 4096)
        if m == "huge":
            return rng.randint(max(1, top // 2), top)
        return one(rng.choice(["small", "medium", "pow2", "mult64", "huge"]))

    if mode == "equal":
        s = one(rng.choice(["small", "medium", "pow2", "huge"]))
        return [s] * n
    return [one(mode) for _ in range(n)]


def random_alignments(rng, n):
    mode = rng.random()
    if mode < 0.3:
        a = 2 ** rng.randint(0, 8)
        return [a] * n
    if mode < 0.9:
        return [2 ** rng.randint(0, 12) for _ in range(n)]
    return [2 ** rng.choice([0, 1, 6, 20, 30, 40]) for _ in range(n)]


def random_lifetimes(rng, n):
    mode = rng.choice(["dense", "dense", "nested", "chains", "sparse",
                       "far"])
    spans = []
    if mode == "dense":
        horizon = max(2, rng.randint(n // 2 + 1, 2 * n + 2))
        for _ in range(n):
            lo = rng.randrange(horizon)
            if rng.random() < 0.6:
                length = rng.randint(1, 3)
            else:
                length = rng.randint(1, horizon)
            spans.append((lo, lo + length))
    elif mode == "nested":  # activations saved for the backward pass
        for i in range(n):
            lo = i + rng.randint(0, 2)
            hi = 2 * n - i + rng.randint(0, 2)
            spans.append((lo, max(lo + 1, hi)))
    elif mode == "chains":  # short, staggered
        for i in range(n):
            lo = i * rng.randint(0, 3)
            spans.append((lo, lo + rng.randint(1, 4)))
    elif mode == "sparse":
        for _ in range(n):
            lo = rng.randint(0, 10**12)
            spans.append((lo, lo + rng.randint(1, 10**12)))
    else:  # near the end of the int64 range
        base = INT64_MAX - rng.randint(2 * n + 2, 10**6)
        for _ in range(n):
            lo = base + rng.randint(0, 2 * n)
            hi = min(INT64_MAX, lo + rng.randint(1, 2 * n))
            spans.append((lo, hi))
    return spans


def random_instance(rng):
    r = rng.random()
    if r < 0.35:
        n = rng.randint(1, 6)
    elif r < 0.45:
        n = rng.randint(7, BRUTE_FORCE_LARGE)
    elif r < 0.8:
        n = rng.randint(1, 60)
    else:
        n = rng.randint(1, 300)
    sizes = random_sizes(rng, n)
    aligns = random_alignments(rng, n) if rng.random() < 0.5 else None
    spans = random_lifetimes(rng, n)
    used = set()
    buffers = []
    for i in range(n):
        lo, hi = spans[i]
        buffers.append(Buffer(random_id(rng, i, used), lo, hi, sizes[i],
                              aligns[i] if aligns else None))
    # Sizes summing past 2^62 are refused; keep most instances valid.
    if rng.random() < 0.9:
        total = 0
        kept = []
        for b in buffers:
            add = b.size + (b.align or 1)
            if total + add > SUM_LIMIT:
                continue
            total += add
            kept.append(b)
        buffers = kept or [Buffer("only", 0, 1, 1, None)]
    return buffers, aligns is not None


def render(rng, buffers, with_align):
    """CSV text in one of the accepted forms."""
    inclusive = rng.random() < 0.1 and all(b.upper - 1 >= b.lower
                                           for b in buffers)
    cols = ["id", "start", "end", "size"] if inclusive else \
        ["id", "lower", "upper", "size"]
    if with_align:
        cols.append("alignment")
    for extra in ("hint", "gaps", "offset"):
        if rng.random() < 0.08:
            cols.append(extra)
    if rng.random() < 0.2:
        rng.shuffle(cols)
    pad = rng.random() < 0.1
    eol = "\r\n" if rng.random() < 0.15 else "\n"

    def cell(text):
        if pad and rng.random() < 0.3:
            return rng.choice([" ", "\t", "  "]) + text + rng.choice(
                ["", " ", "\t"])
        return text

    def value(b, c):
        if c == "id":
            return b.id
        if c in ("lower", "start"):
            return str(b.lower)
        if c == "upper":
            return str(b.upper)
        if c == "end":
            return str(b.upper - 1)
        if c == "size":
            return str(b.size)
        if c == "alignment":
            return str(b.align)
        if c == "hint":
            return str(rng.randint(-5, 10**6))
        if c == "gaps":
            return rng.choice(["", "1-2", "x"])
        return str(rng.randint(0, 10**9))  # offset: replaced on output

    lines = [",".join(cell(c) for c in cols)]
    order = list(buffers)
    if rng.random() < 0.3:
        rng.shuffle(order)
    for b in order:
        lines.append(",".join(cell(value(b, c)) for c in cols))
        if rng.random() < 0.02:
            lines.append(rng.choice(["", " ", "\t"]))
    text = eol.join(lines)
    if rng.random() < 0.9:
        text += eol
    return text


NOT_NUMBERS = ["abc", "", "1.5", "0x10", "1e3", "12 3", "+5", "--1", "-",
               "NaN", "٣", "1_000", "0b1", " ", "9" * 30]
HUGE_NUMBERS = [str(INT64_MAX), str(INT64_MAX + 1), str(2**64),
                str(INT64_MIN), str(INT64_MIN - 1), "-1", "0",
                "99999999999999999999", str(2**62), str(2**62 + 1),
                str(2**63 - 2)]


def mutate(rng, text):
    """1-3 text mutations; the result may well still be valid."""
    for _ in range(rng.randint(1, 3)):
        lines = text.split("\n")
        k = rng.randrange(len(lines))
        m = rng.randrange(16)
        if m == 0:  # truncate the text
            text = text[:rng.randint(0, len(text))]
            continue
        if m == 1:  # truncate a line
            lines[k] = lines[k][:rng.randint(0, len(lines[k]))]
        elif m == 2:  # drop or add a cell
            cells = lines[k].split(",")
            if rng.random() < 0.5 and len(cells) > 1:
                del cells[rng.randrange(len(cells))]
            else:
                cells.insert(rng.randint(0, len(cells)), rng.choice(
                    ["7", "", "x"]))
            lines[k] = ",".join(cells)
        elif m in (3, 4, 5):  # a numeric cell -> not a number / extreme
            cells = lines[k].split(",")
            j = rng.randrange(len(cells))
            pool = NOT_NUMBERS if m == 3 else HUGE_NUMBERS
            cells[j] = rng.choice(pool)
            lines[k] = ",".join(cells)
        elif m == 6:  # empty file, header only, blank
            text = rng.choice(["", "\n", " \n\n", lines[0] + "\n",
                               "\r\n", "\ufeff"])
            continue
        elif m == 7 and len(lines) > 2:  # duplicate an id
            a, b = rng.sample(range(1, len(lines)), 2)
            ca, cb = lines[a].split(","), lines[b].split(",")
            if ca and cb:
                cb[0] = ca[0]
                lines[b] = ",".join(cb)
        elif m == 8:  # BOM
            text = "\ufeff" + text
            continue
        elif m == 9:  # CRLF
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
            continue
        elif m == 10:  # extra or renamed header column
            cells = lines[0].split(",")
            if rng.random() < 0.5:
                cells.append(rng.choice(["foo", "hint", "gaps", "Offset",
                                         "size", "lower"]))
            else:
                cells[rng.randrange(len(cells))] = rng.choice(
                    ["ID", "start", "end", "bytes", "", "alignment"])
            lines[0] = ",".join(cells)
        elif m == 11:  # duplicate or delete a line, or swap two
            if rng.random() < 0.4:
                lines.insert(k, lines[k])
            elif rng.random() < 0.5:
                del lines[k]
                if not lines:
                    lines = [""]
            else:
                j = rng.randrange(len(lines))
                lines[k], lines[j] = lines[j], lines[k]
        elif m == 12:  # interval or size broken on purpose
            cells = lines[k].split(",")
            if len(cells) >= 4:
                j = rng.randrange(1, 4)
                cells[j] = rng.choice(["0", "-1", cells[1], "1"])
            lines[k] = ",".join(cells)
        elif m == 13:  # bad alignment
            cells = lines[k].split(",")
            cells.append(rng.choice(["0", "3", "6", str(2**62), str(2**63),
                                     "-4", "1"]))
            lines[k] = ",".join(cells)
        elif m == 14:  # garbage bytes
            pos = rng.randint(0, len(lines[k]))
            lines[k] = (lines[k][:pos] + rng.choice(
                ["\0", "\x7f", ";", '"', "\\", "\u00a0", "\v", ",,"]) +
                lines[k][pos:])
        else:  # empty id
            cells = lines[k].split(",")
            cells[0] = rng.choice(["", " ", "\t"])
            lines[k] = ",".join(cells)
        text = "\n".join(lines)
    return text


# --------------------------------------------------------------------------
# An independent reader of the CSV format (docs/Packing.md)


class Verdict:
    """valid (buffers, header) or invalid (line or None)."""

    def __init__(self, kind, buffers=None, header=None, rows=None, line=None,
                 why=""):
        self.kind, self.buffers, self.header = kind, buffers, header
        self.rows, self.line, self.why = rows, line, why


def parse_int(text):
    """A 64-bit integer in base 10, or None."""
    if not re.fullmatch(r"-?[0-9]+", text):
        return None
    v = int(text)
    return v if INT64_MIN <= v <= INT64_MAX else None


def read_csv(data):
    """The verdict on a file. A UTF-8 byte order mark is skipped
    (docs/Packing.md)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return read_csv_text(data)


def line_end(text):
    """What ends a line: \n (a \r before it is whitespace), or, in a file
    with no \n at all, \r (as memplan-pack splits it)."""
    return "\n" if "\n" in text else "\r"


def read_csv_text(data):
    text = data.decode("latin-1")  # byte for byte, as the tool reads it
    header = None
    cols = {}
    inclusive = False
    seen = set()
    total = 0
    buffers, rows = [], []
    for index, raw in enumerate(text.split(line_end(text))):
        line_no = index + 1
        line = raw.strip(WHITESPACE)
        if not line:
            continue
        cells = [c.strip(WHITESPACE) for c in line.split(",")]
        if header is None:
            header = cells
            if len(set(cells)) != len(cells):
                return Verdict("invalid", line=line_no,
                               why="a header names a column twice")
            names = set(cells)
            if ("lower" in names and "start" in names) or (
                    "upper" in names and "end" in names):
                return Verdict("invalid", line=line_no,
                               why="two columns for one end of the "
                               "lifetimes")
            for c, name in enumerate(cells):
                if name not in KNOWN_COLUMNS:
                    return Verdict("invalid", line=line_no,
                                   why="unknown column")
                key = {"start": "lower", "end": "upper"}.get(name, name)
                cols[key] = c
                if name == "end":
                    inclusive = True
            for name in ("id", "lower", "upper", "size"):
                if name not in cols:
                    return Verdict("invalid", line=line_no,
                                   why="missing column")
            continue
        bad = Verdict("invalid", line=line_no)
        if len(cells) != len(header):
            return bad
        ident = cells[cols["id"]]
        if not ident or ident in seen:
            return bad
        seen.add(ident)
        lower = parse_int(cells[cols["lower"]])
        upper = parse_int(cells[cols["upper"]])
        size = parse_int(cells[cols["size"]])
        if lower is None or upper is None or size is None:
            return bad
        if inclusive:
            if upper == INT64_MAX:
                return bad
            upper += 1
        if lower < 0 or upper <= lower or size <= 0:
            return bad
        align = 1
        if "alignment" in cols:
            align = parse_int(cells[cols["alignment"]])
            if align is None or align <= 0 or align & (align - 1):
                return bad
        if total + size + align > SUM_LIMIT:
            return bad
        total += size + align
        buffers.append(Buffer(ident, lower, upper, size, align))
        rows.append(cells)
    if header is None:
        return Verdict("invalid", line=None, why="empty file")
    return Verdict("valid", buffers=buffers, header=header, rows=rows)


# --------------------------------------------------------------------------
# Oracles


def align_up(x, a):
    return (x + a - 1) // a * a


def overlaps(a, b):
    return a.lower < b.upper and b.lower < a.upper


def live_peak(buffers):
    events = []
    for b in buffers:
        events.append((b.lower, 1, b.size))
        events.append((b.upper, 0, -b.size))  # ends sort before starts
    live = peak = 0
    for _, _, delta in sorted(events):
        live += delta
        peak = max(peak, live)
    return peak


def check_plan(buffers, offsets):
    """Offsets valid? Returns the arena (max offset + size)."""
    arena = 0
    for b, off in zip(buffers, offsets):
        check(off >= 0, "negative offset for %r" % b.id)
        check(off % b.align == 0, "offset %d of %r is not a multiple of its "
              "alignment %d" % (off, b.id, b.align))
        arena = max(arena, off + b.size)
    order = sorted(range(len(buffers)), key=lambda i: buffers[i].lower)
    # Sweep in time; compare each buffer with those still live.
    live = []
    for i in order:
        b = buffers[i]
        live = [j for j in live if buffers[j].upper > b.lower]
        for j in live:
            c = buffers[j]
            if offsets[i] < offsets[j] + c.size and \
                    offsets[j] < offsets[i] + b.size:
                raise CaseFailure(
                    "buffers %r [%d,%d) at %d+%d and %r [%d,%d) at %d+%d "
                    "overlap in time and in memory" %
                    (b.id, b.lower, b.upper, offsets[i], b.size, c.id,
                     c.lower, c.upper, offsets[j], c.size))
        live.append(i)
    return arena


def brute_force_optimum(buffers, upper=None, node_limit=300000):
    """The smallest arena: in each connected component of the overlap graph
    (components never share a time step, so the arena is the largest
    component's), every order, each buffer at the lowest aligned offset
    where it fits among the placed buffers it overlaps in time. `upper`: the
    arena of a packing known valid (prunes). None when a component has more
    than BRUTE_FORCE_LARGE buffers or the search passes `node_limit`
    nodes (a bound on work, not on time)."""
    n = len(buffers)
    ov = [[i != j and overlaps(buffers[i], buffers[j]) for j in range(n)]
          for i in range(n)]
    seen = [False] * n
    optimum = 0
    nodes = [0]
    for root in range(n):
        if seen[root]:
            continue
        comp, stack = [], [root]
        seen[root] = True
        while stack:
            i = stack.pop()
            comp.append(i)
            for j in range(n):
                if ov[i][j] and not seen[j]:
                    seen[j] = True
                    stack.append(j)
        if len(comp) > BRUTE_FORCE_LARGE:
            return None
        best = component_optimum([buffers[i] for i in comp], upper, nodes,
                                 node_limit)
        if best is None:
            return None
        optimum = max(optimum, best)
    return optimum


def component_optimum(buffers, upper, nodes, node_limit):
    n = len(buffers)
    ov = [[i != j and overlaps(buffers[i], buffers[j]) for j in range(n)]
          for i in range(n)]
    bound = sum(align_up(b.size, b.align) + b.align for b in buffers)
    best = [min(bound, upper) if upper is not None else bound]
    lower_bound = live_peak(buffers)
    placed = [None] * n

    def lowest(i):
        b = buffers[i]
        others = [(placed[j], placed[j] + buffers[j].size)
                  for j in range(n) if placed[j] is not None and ov[i][j]]
        for cand in sorted({0} | {align_up(e, b.align) for _, e in others}):
            if all(cand + b.size <= s or e <= cand for s, e in others):
                return cand
        raise AssertionError("no candidate fits")

    class Limit(Exception):
        pass

    def search(count, top):
        nodes[0] += 1
        if nodes[0] > node_limit:
            raise Limit()
        if top >= best[0]:
            return
        if count == n:
            best[0] = top
            return
        for i in range(n):
            if placed[i] is None:
                placed[i] = lowest(i)
                search(count + 1, max(top, placed[i] + buffers[i].size))
                placed[i] = None
                if best[0] == lower_bound:
                    return

    try:
        search(0, 0)
    except Limit:
        return None
    return best[0]


# --------------------------------------------------------------------------
# One case


def run_case(driver, tool, rng, work, case):
    buffers, with_align = random_instance(rng)
    text = render(rng, buffers, with_align)
    malformed = rng.random() < 0.35
    if malformed:
        text = mutate(rng, text)
    data = text.encode("utf-8")
    path = os.path.join(work, "input.csv")
    with open(path, "wb") as f:
        f.write(data)

    args = ["--input", path]
    algorithm = rng.choice(["greedy-size", "greedy-time", "first-fit-size",
                            "first-fit-start", "best", "exact"])
    bad_option = None
    if rng.random() < 0.02:
        algorithm = rng.choice(["fastest", "", "Best"])
        bad_option = "algorithm"
    args.append("--algorithm=" + algorithm)
    limit = "%.2f" % rng.uniform(0.05, 0.2)
    if rng.random() < 0.02:
        limit = rng.choice(["0", "-1", "nan", "inf", "1e10", "abc"])
        bad_option = bad_option or "time-limit"
    args.append("--time-limit=" + limit)
    verdict = read_csv(data)
    capacity = None
    if rng.random() < 0.3:
        lb = live_peak(verdict.buffers) if verdict.kind == "valid" else 1000
        choice = rng.random()
        if choice < 0.02:
            capacity_text = rng.choice(["-1", "abc", "1.5", str(2**64)])
            bad_option = bad_option or "capacity"
        else:
            if choice < 0.5:
                capacity = int(lb * rng.uniform(0.9, 1.6))
            elif choice < 0.7:
                capacity = lb + rng.choice([-1, 0, 1])
            elif choice < 0.8:
                capacity = rng.choice([0, 1, 2**64 - 1, 2**63])
            else:
                capacity = int(lb * rng.uniform(0, 3))
            capacity = max(0, capacity)
            capacity_text = str(capacity)
        args.append("--capacity=" + capacity_text)
    if rng.random() < 0.3:
        args.append("--validate")
    out_path = os.path.join(work, "output.csv")
    if rng.random() < 0.85:
        args += ["--output", out_path]

    r = driver.record(tool.run(args))
    r.check_sane()
    driver.stat("exit %d, %s input, %s%s" % (
        r.rc, verdict.kind, algorithm, " --capacity" if capacity is not None
        else ""))

    if bad_option:
        # Options are checked before the input is read; a value that is not
        # a number at all, or not one of --algorithm's names, is refused by
        # the option parser itself ("for the --<option> option: ..."; exit 2
        # since memplan-pack maps its failure to "bad input"; exit 1 before).
        check(r.rc != 0 and ("error:" in r.err or limit == "abc" or
                             "for the --%s option:" % bad_option in r.err),
              "bad --%s accepted (exit %d)" % (bad_option, r.rc))
        check(r.rc == 2 or limit == "abc",
              "bad --%s: exit %d, expected 2" % (bad_option, r.rc))
        return "rejected"

    if r.rc == 2:
        check(path in r.err, "exit 2 without naming the file: %r" % r.err)
        found = re.search(re.escape(path) + r":(\d+):", r.err)
        if verdict.kind == "valid":
            raise CaseFailure("a valid input was refused: %s" % r.err.strip())
        if verdict.kind == "invalid":
            if verdict.line is None:
                check("empty file" in r.err,
                      "an input without header: expected 'empty file', got "
                      "%r" % r.err.strip())
            else:
                check(found is not None, "no line number: %r" % r.err)
                check(int(found.group(1)) == verdict.line,
                      "the error names line %s, the first bad line is %d: %s"
                      % (found.group(1), verdict.line, r.err.strip()))
        elif found:
            check(1 <= int(found.group(1)) <=
                  text.count(line_end(text)) + 1,
                  "line number out of range: %r" % r.err)
        return "rejected"

    # Exit 0 or 1: the input was accepted.
    if verdict.kind == "invalid":
        raise CaseFailure("an invalid input (line %s%s) was accepted" %
                          (verdict.line, ", " + verdict.why
                           if verdict.why else ""))
    buffers = verdict.buffers
    check(r.rc == 0 or (r.rc == 1 and capacity is not None),
          "exit 1 without --capacity")
    summary = r.out.strip()
    arena = uint_field(summary, "arena")
    lb = uint_field(summary, "lower_bound")
    optimal = text_field(summary, "optimal")
    ratio = text_field(summary, "ratio")
    check(arena is not None and lb is not None and optimal in ("yes",
                                                               "unknown")
          and ratio is not None, "bad summary line %r" % summary)
    my_lb = live_peak(buffers)
    check(lb == my_lb, "lower_bound=%d but the peak of live bytes is %d" %
          (lb, my_lb))
    check(arena >= lb, "arena %d below the lower bound %d" % (arena, lb))
    expected_ratio = arena / lb if lb else 1.0
    check(abs(float(ratio) - expected_ratio) <= 0.00005 + 1e-12 *
          expected_ratio, "ratio=%s but arena/LB = %.6f" %
          (ratio, expected_ratio))

    checked = None  # the arena of a packing checked here
    if out_path in args and os.path.exists(out_path):
        checked = check_output(out_path, verdict, buffers)
        check(checked == arena, "arena=%d printed, the offsets give %d" %
              (arena, checked))
    elif out_path in args:
        check(False, "--output file not written")

    # The optimum: always on tiny instances; on larger ones when their
    # components are small, and only where it decides a claim.
    wanted = len(buffers) <= BRUTE_FORCE_MAX or (
        (optimal == "yes" and arena != lb) or r.rc == 1)
    optimum = brute_force_optimum(buffers, checked) if wanted else None
    if optimum is not None:
        check(arena >= optimum, "arena %d below the optimum %d" %
              (arena, optimum))
    if optimum is not None:
        driver.stat("brute-force optimum computed")
    if optimal == "yes":
        if optimum is not None:
            driver.stat("optimal=yes checked against the optimum")
            check(arena == optimum, "optimal=yes but arena %d > optimum %d" %
                  (arena, optimum))
        elif arena != lb:
            driver.note("optimal=yes above the lower bound, not checked "
                        "(a component of more than %d buffers)" %
                        BRUTE_FORCE_LARGE)
    if optimum is not None and algorithm == "exact" and optimal != "yes" \
            and capacity is None and len(buffers) <= BRUTE_FORCE_MAX:
        driver.note("exact left a tiny instance unproven",
                    "%s arena=%d optimum=%d" % (r.command(), arena, optimum))

    if capacity is not None:
        if r.rc == 0:
            check(arena <= capacity, "exit 0 under --capacity=%d with arena "
                  "%d" % (capacity, arena))
        else:
            check(arena > capacity, "exit 1 but arena %d fits --capacity=%d"
                  % (arena, capacity))
            m = re.search(r"does not fit in (\d+) bytes: best arena found is "
                          r"(\d+) bytes", r.err)
            check(m and int(m.group(1)) == capacity and
                  int(m.group(2)) == arena,
                  "exit 1 message: %r" % r.err.strip())
            proven = "proven" in r.err
            if optimum is not None and len(buffers) > BRUTE_FORCE_MAX:
                driver.stat("exit 1 on a larger instance, optimum known")
            if optimum is not None:
                if proven:
                    check(optimum > capacity, "claims proven that nothing "
                          "fits %d bytes, but the optimum is %d" %
                          (capacity, optimum))
                elif optimum <= capacity and algorithm in ("best", "exact"):
                    driver.note("exit 1 (unproven) where a packing fits",
                                "%s optimum=%d" % (r.command(), optimum))
            elif proven and lb <= capacity:
                refute_proof(driver, tool, work, path, buffers, capacity)
    return "ok"


def check_output(out_path, verdict, buffers):
    with open(out_path, "rb") as f:
        lines = [l for l in f.read().decode("latin-1").split("\n") if l]
    expected_header = [c for c in verdict.header if c != "offset"] + \
        ["offset"]
    check(lines and lines[0].split(",") == expected_header,
          "output header %r, expected %r" %
          (lines[0] if lines else None, ",".join(expected_header)))
    check(len(lines) - 1 == len(buffers), "output has %d rows, input %d" %
          (len(lines) - 1, len(buffers)))
    keep = [i for i, c in enumerate(verdict.header) if c != "offset"]
    offsets = []
    for k, (line, row) in enumerate(zip(lines[1:], verdict.rows)):
        cells = line.split(",")
        check(cells[:-1] == [row[i] for i in keep],
              "output row %d %r does not repeat the input row" %
              (k + 1, line))
        check(re.fullmatch(r"[0-9]+", cells[-1]) is not None,
              "offset %r is not a number" % cells[-1])
        offsets.append(int(cells[-1]))
    return check_plan(buffers, offsets)


def refute_proof(driver, tool, work, path, buffers, capacity):
    """A "proven" exit 1 on an instance too large to search here: a greedy
    packing that fits (checked here) refutes it."""
    for algorithm in ("greedy-size", "greedy-time"):
        out = os.path.join(work, "refute-%s.csv" % algorithm)
        r = driver.record(tool.run(["--input", path, "--algorithm=" +
                                    algorithm, "--output", out]))
        r.check_sane(allowed=(0,))
        verdict = read_csv(open(path, "rb").read())
        arena = check_output(out, verdict, buffers)
        check(arena > capacity, "claims proven that nothing fits %d bytes, "
              "but %s packs it in %d (checked)" % (capacity, algorithm,
                                                   arena))


def main():
    args = parse_args("fuzz_pack", __doc__.split("\n")[0], 200)
    driver = Driver("fuzz_pack", args)
    tool = Tool(args.bin, "memplan-pack", args.timeout)
    return driver.run(lambda rng, work, case:
                      run_case(driver, tool, rng, work, case))


if __name__ == "__main__":
    sys.exit(main())
