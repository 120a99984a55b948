#!/usr/bin/env python3
"""fuzz_remat.py --seed S --count N [--bin DIR] [--save DIR]

Seeded random fuzzing of memplan-remat (docs/Remat.md). Each case writes a
networkx node-link graph - a random valid training step (a forward DAG or
chain, then backward nodes reading forward values and earlier gradients;
ids random int64 in id order, extremes included; costs 0..1e6 and now and
then huge; cost_ram 0..1e12; names) or a mutation of one (deep nesting,
wrong types, missing fields, back edges and cycles, unknown nodes, duplicate
ids, NaN, truncation, ...) - and runs memplan-remat with a random --policy
(keep-all, recompute-all, every-n, cost-threshold, sqrt, budget, chain, and
optimal on graphs of at most 12 nodes with --time-limit 0.5) and budgets
around the keep-all peak. Checks, independently of memplan's code:

  * never a hang, a signal or crash text; exit code 0, 1 or 2;
  * exit 2 exactly when the graph breaks a documented rule (decided here by
    an independent reader), the message naming the file; `chain` refused
    exactly on graphs that are not chains;
  * exit 0 with --output: the executions - the written `schedule`, or for
    keep/recompute policies the executions the memory model of
    docs/Remat.md derives from the policy's decisions - are valid (every
    node runs, backward nodes once, inputs computed before use), the
    decisions say `recompute` exactly for nodes run more than once, and the
    printed and written cost and peak equal a simulation here (an instance
    lives from its execution to its last read before its node runs again;
    the running execution's inputs and output count); peak <= budget;
  * exit 1 only when the peak is over the budget, naming a smallest budget
    that the named policy does reach (re-run here) and, for the policy that
    failed, one above the budget;
  * `optimal`: a schedule claimed optimal is not beaten, and "proven
    infeasible" is not refuted, by any stage-ordered keep/recompute plan
    enumerated here; `budget`: a smaller budget never gives a larger peak
    or a smaller cost.

Prints `fuzz_remat: cases=N ok=N rejected=N failures=N` (ok: planned or a
verified exit 1; rejected: bad input refused) and exits 1 when any case
failed, each saved under --save with its command.
"""

import json
import math
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuzzcommon import Driver, Tool, check, parse_args, text_field

INT64_MAX = 2**63 - 1
INT64_MIN = -2**63
MAX_TOTAL_BYTES = INT64_MAX
MAX_TOTAL_COST = 1e30
MAX_NESTING = 64
MILP_MAX_NODES = 12
CHAIN_MAX_LENGTH = 1999
POLICIES = ["keep-all", "recompute-all", "every-n", "cost-threshold", "sqrt",
            "budget", "chain", "optimal"]


# --------------------------------------------------------------------------
# Graphs: nodes in schedule order, each {backward, cost, ram, name, inputs}


def random_cost(rng, mode):
    r = rng.random()
    if mode == "huge" and r < 0.3:
        return rng.choice([1e20, 3.5e25, 1e29, 2e29])
    if r < 0.05:
        return 0
    if r < 0.15:
        return round(rng.uniform(0, 1000), rng.randint(0, 3))
    return rng.randint(0, 10**6)


def random_ram(rng, mode, n):
    r = rng.random()
    if mode == "huge":
        return rng.randint(0, MAX_TOTAL_BYTES // max(1, n))
    if r < 0.05:
        return 0
    if r < 0.1:
        return round(rng.uniform(0, 5000), 2)  # a fraction: rounded up
    if mode == "small":
        return rng.randint(1, 64)
    if mode == "pages":
        return 4096 * rng.randint(1, 16)
    return rng.randint(0, 10**12)


def random_graph(rng, prefer_chain=False):
    shape = rng.choice(["chain", "chain", "dag", "dag", "layered", "tiny"])
    if prefer_chain and rng.random() < 0.7:
        shape = "chain"
    if shape == "tiny":
        nf = rng.randint(1, 5)
    elif rng.random() < 0.85:
        nf = rng.randint(1, 24)
    else:
        nf = rng.randint(25, 80)
    cost_mode = "huge" if rng.random() < 0.05 else "normal"
    ram_mode = rng.choice(["small", "pages", "wide", "wide"] +
                          (["huge"] if rng.random() < 0.1 else []))
    nodes = []

    def add(backward, inputs):
        nodes.append({"backward": backward, "inputs": inputs})
        return len(nodes) - 1

    forward = []
    for k in range(nf):
        if shape == "chain":
            ins = [forward[-1]] if forward else []
        elif shape == "layered":
            ins = [forward[-1]] if forward else []
            if k >= 2 and rng.random() < 0.3:
                ins.append(forward[rng.randrange(k - 1)])  # a skip
        else:
            ins = []
            if forward:
                if rng.random() < 0.8:
                    ins.append(forward[-1])
                for _ in range(rng.randint(0, 2)):
                    ins.append(rng.choice(forward))
        forward.append(add(False, ins))
    # Backward: one or two nodes per layer in reverse, each reading the
    # previous gradient and forward values of its layer (and sometimes
    # others).
    grads = []
    for k in reversed(range(nf)):
        if shape != "chain" and rng.random() < 0.3:
            continue
        for _ in range(rng.randint(1, 2) if rng.random() < 0.3 else 1):
            ins = []
            if grads:
                ins.append(grads[-1])
            if shape == "chain":
                if rng.random() < 0.9:
                    ins.append(forward[k])
                if k and rng.random() < 0.3:
                    ins.append(forward[rng.randrange(k)])
            else:
                if rng.random() < 0.9:
                    ins.append(forward[k])
                for _ in range(rng.randint(0, 2)):
                    ins.append(rng.choice(forward))
                if len(grads) > 1 and rng.random() < 0.2:
                    ins.append(rng.choice(grads))
            grads.append(add(True, ins))
    if shape != "chain" and not grads and rng.random() < 0.8:
        add(True, [forward[-1]])
    # Duplicate edges now and then.
    for node in nodes:
        if node["inputs"] and rng.random() < 0.03:
            node["inputs"].append(rng.choice(node["inputs"]))
    # Interleave: move a backward node earlier, past forward nodes that do
    # not feed it (forward nodes never read backward ones, so this keeps
    # every rule).
    if shape != "chain" and rng.random() < 0.15:
        for _ in range(rng.randint(1, 4)):
            nodes = interleave(rng, nodes)
    for node in nodes:
        node["cost"] = random_cost(rng, cost_mode)
        node["ram"] = random_ram(rng, ram_mode, len(nodes))
        if rng.random() < 0.7:
            node["name"] = random_name(rng)
    return nodes


def interleave(rng, nodes):
    back = [i for i, n in enumerate(nodes) if n["backward"]]
    if not back:
        return nodes
    i = rng.choice(back)
    j = i
    while j > 0 and (j - 1) not in nodes[i]["inputs"] and \
            not nodes[j - 1]["backward"]:
        j -= 1
        if rng.random() < 0.3:
            break
    if j == i:
        return nodes
    order = list(range(len(nodes)))
    order.insert(j, order.pop(i))
    where = {old: new for new, old in enumerate(order)}
    out = []
    for old in order:
        n = dict(nodes[old])
        n["inputs"] = [where[u] for u in n["inputs"]]
        out.append(n)
    return out


def random_name(rng):
    r = rng.random()
    if r < 0.6:
        return rng.choice(["matmul", "relu", "loss", "grad", "conv"]) + \
            str(rng.randint(0, 99))
    if r < 0.8:
        return "".join(rng.choice("aé\"\\/\n\t∂😀\u0001 ") for _ in
                       range(rng.randint(0, 8)))
    return ""


def random_ids(rng, n):
    mode = rng.random()
    if mode < 0.4:
        start = rng.choice([0, 0, 1, -n, rng.randint(-10**6, 10**6)])
        return list(range(start, start + n))
    if mode < 0.6:  # anywhere, the extremes included
        ids = set()
        if rng.random() < 0.5:
            ids.add(INT64_MIN)
        if rng.random() < 0.5:
            ids.add(INT64_MAX)
        while len(ids) < n:
            ids.add(rng.randint(INT64_MIN, INT64_MAX))
        return sorted(ids)[:n] if len(ids) == n else sorted(ids)[-n:]
    if mode < 0.8:
        return sorted(rng.sample(range(-10**9, 10**9), n))
    top = INT64_MAX - rng.randint(0, 3)
    return list(range(top - n + 1, top + 1))


def to_document(rng, nodes, ids):
    """The node-link dictionary (nodes possibly shuffled, links in a random
    order: the order of a node's links is the order of its inputs)."""
    doc_nodes = []
    for i, n in enumerate(nodes):
        d = {"id": ids[i], "backward": n["backward"], "cost_cpu": n["cost"],
             "cost_ram": n["ram"]}
        if "name" in n:
            d["name"] = n["name"]
        if rng.random() < 0.05:
            d["extra"] = [1, {"x": None}]
        items = list(d.items())
        rng.shuffle(items)
        doc_nodes.append(dict(items))
    if rng.random() < 0.3:
        rng.shuffle(doc_nodes)
    links = []
    for t, n in enumerate(nodes):
        for s in n["inputs"]:
            links.append({"source": ids[s], "target": ids[t]})
    if rng.random() < 0.3:
        # Shuffling changes the input order of a node (its links' order),
        # which is fine: the reader here takes the same order.
        rng.shuffle(links)
    doc = {"directed": True, "multigraph": False,
           "graph": {"name": "fuzz"}, "nodes": doc_nodes}
    doc["edges" if rng.random() < 0.2 else "links"] = links
    return doc


def mutate_document(rng, doc):
    """Structural mutations of the dictionary (most make it invalid)."""
    nodes = doc.get("nodes") or []
    links = doc.get("links", doc.get("edges")) or []
    m = rng.randrange(14)
    if m == 0 and nodes:  # duplicate id
        a = rng.choice(nodes)
        b = rng.choice(nodes)
        b["id"] = a["id"]
    elif m == 1 and nodes:  # missing field
        n = rng.choice(nodes)
        key = rng.choice(["id", "cost_cpu", "cost_ram", "backward", "name"])
        n.pop(key, None)
    elif m == 2 and nodes:  # wrong type
        n = rng.choice(nodes)
        key = rng.choice(["id", "cost_cpu", "cost_ram", "backward"])
        n[key] = rng.choice(["5", None, True, False, 1, 0, [], {}, -1, 1.5,
                             -0.0, 9.5e18, 9e18, 2**63, 2**64, -2**63 - 1,
                             -2**64, 1e300, 3.0, 9.223372036854775807e18,
                             -9.3e18])
    elif m == 3 and links:  # back edge or self loop
        link = rng.choice(links)
        if rng.random() < 0.5:
            link["source"], link["target"] = link["target"], link["source"]
        else:
            link["target"] = link["source"]
    elif m == 4 and nodes:  # unknown node
        links.append({"source": rng.choice(nodes).get("id", 0),
                      "target": rng.choice([12345678901, -7, INT64_MAX,
                                            INT64_MIN])})
    elif m == 5 and links:  # wrong link types
        link = rng.choice(links)
        link[rng.choice(["source", "target"])] = rng.choice(
            ["0", None, 1.0, 2.5, True, 2**63, -2**63 - 1,
             9.223372036854775807e18])
    elif m == 6:  # drop the arrays, or the wrong container
        key = rng.choice(["nodes", "links", "edges"])
        if key in doc:
            if rng.random() < 0.5:
                del doc[key]
            else:
                doc[key] = rng.choice([None, {}, "x", 3])
    elif m == 7 and nodes:  # a forward node reading a backward node
        back = [n for n in nodes if n.get("backward") is True]
        fwd = [n for n in nodes if n.get("backward") is False]
        if back and fwd:
            links.append({"source": rng.choice(back).get("id"),
                          "target": rng.choice(fwd).get("id")})
    elif m == 8 and nodes:  # costs out of range
        n = rng.choice(nodes)
        n[rng.choice(["cost_cpu", "cost_ram"])] = rng.choice(
            [-1, -1e-9, 1e31, 9.1e18, 2**63, 1e300, 2**70])
    elif m == 9 and nodes:  # totals out of range
        for n in nodes:
            if rng.random() < 0.5:
                n["cost_cpu"] = 9e29
            else:
                n["cost_ram"] = 4 * 10**18
    elif m == 10 and nodes and links:  # a cycle through an edge back
        a, b = rng.choice(links)["target"], rng.choice(links)["source"]
        links.append({"source": a, "target": b})
    elif m == 11:  # the node a link names flipped to backward / forward
        if nodes:
            n = rng.choice(nodes)
            n["backward"] = not n.get("backward", False)
    elif m == 12 and nodes:  # extra non-object entries
        nodes.insert(rng.randint(0, len(nodes)), rng.choice([1, "n", None,
                                                             []]))
    else:  # a huge name, nested moderately
        if nodes:
            depth = rng.choice([10, 60, 61, 62, 63])
            v = 0
            for _ in range(depth):
                v = [v]
            rng.choice(nodes)["name"] = v
    return doc


def mutate_text(rng, text):
    """Text mutations; the result may still be valid."""
    for _ in range(rng.randint(1, 2)):
        m = rng.randrange(11)
        pos = rng.randint(0, len(text))
        if m == 0:
            text = text[:pos]
        elif m == 1 and text:
            text = text[:pos] + text[pos + 1:]
        elif m == 2:
            text = text[:pos] + rng.choice(
                ["{", "}", "[", "]", ",", ":", '"', "\\", "NaN", "Infinity",
                 "-", "1e999", "\x00", "\ufeff", "//", "\u00ff", " ", "\n",
                 "null"]) + text[pos:]
        elif m == 3:  # a number token replaced
            nums = list(re.finditer(r"-?\d+(\.\d+)?([eE][-+]?\d+)?", text))
            if nums:
                t = rng.choice(nums)
                text = text[:t.start()] + rng.choice(
                    ["NaN", "-1", "1e400", "-1e400", str(2**64), str(2**63),
                     str(INT64_MIN), '"5"', "true", "null", "0.5", "-0",
                     "1E2", "00", "+1", "0x10", ".5"]) + text[t.end():]
        elif m == 4:  # deep nesting around everything
            k = rng.choice([63, 64, 65, 100, 1000, 100000])
            if rng.random() < 0.5:
                text = "[" * k + text + "]" * k
            else:
                text = '{"deep": ' + "[" * k + "]" * k + ", " + text.lstrip(
                    "{")
        elif m == 5:
            text = "\ufeff" + text
        elif m == 6:
            text = rng.choice(["", " ", "null", "[]", "{}", "0", '"x"',
                               '{"nodes": [], "links": []}',
                               '{"nodes": [], "edges": []}'])
        elif m == 7:  # trailing comma
            text = text.replace("]", ",]", 1)
        elif m == 8:
            text = text.replace('"links"', rng.choice(['"link"', '"edges"',
                                                       '"Links"']), 1)
        elif m == 9:
            text = text.replace("true", rng.choice(["True", "1", '"true"']),
                                1)
        else:  # invalid UTF-8 bytes are added by the caller (bytes)
            text = text[:pos] + "\udcff" + text[pos:]
    return text


# --------------------------------------------------------------------------
# An independent reader of the node-link format (docs/Remat.md)


class Graph:
    def __init__(self, ids, costs, rams, backward, inputs):
        self.ids, self.costs, self.rams = ids, costs, rams
        self.backward, self.inputs = backward, inputs
        self.n = len(ids)


class Verdict:
    def __init__(self, kind, graph=None, why="", where=None):
        self.kind, self.graph, self.why, self.where = kind, graph, why, where


class Ambiguous(Exception):
    pass


def max_nesting(data):
    """The (line, column) where nesting first exceeds MAX_NESTING, skipping
    strings; None when it never does."""
    depth, line, col = 0, 1, 0
    in_string = escaped = False
    for byte in data:
        c = chr(byte)
        col += 1
        if c == "\n":
            line += 1
            col = 0
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
            continue
        if c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return (line, col)
        elif c in "]}" and depth > 0:
            depth -= 1
    return None


JSON_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")


def odd_numbers(text):
    """Number-like tokens outside strings that JSON's grammar refuses (+1,
    .5, 00): llvm::json reads some of them (strtod), Python does not."""
    outside = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    return any(not JSON_NUMBER.fullmatch(t)
               for t in re.findall(r"[-+.0-9][-+.0-9eE]*", outside))


def strict_json(data):
    """Parses like a strict JSON parser; raises ValueError when the text is
    not JSON, Ambiguous where parsers legitimately differ."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("not UTF-8")
    if text.startswith("\ufeff"):
        raise Ambiguous("a byte order mark")

    def no_constant(name):
        raise ValueError("not JSON: " + name)

    def pairs(items):
        keys = [k for k, _ in items]
        if len(set(keys)) != len(keys):
            raise Ambiguous("a duplicate key")
        return dict(items)

    def number(text):
        v = float(text)
        if math.isinf(v):
            raise Ambiguous("a number out of the double range")
        return ("float", v, text)

    try:
        value = json.loads(text, parse_constant=no_constant,
                           object_pairs_hook=pairs, parse_float=number,
                           strict=True)
    except json.JSONDecodeError:
        try:
            json.loads(text, parse_constant=no_constant,
                       object_pairs_hook=pairs, parse_float=number,
                       strict=False)
        except json.JSONDecodeError:
            if odd_numbers(text):
                raise Ambiguous("a number outside JSON's grammar")
            raise ValueError("not JSON")
        raise Ambiguous("a control character in a string")
    if re.search(r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])", text) \
            or re.search(r"(?<!\\u[dD][89abAB][0-9a-fA-F]{2})"
                         r"\\u[dD][c-fC-F][0-9a-fA-F]{2}", text):
        raise Ambiguous("a lone surrogate escape")
    return value


def as_number(v):
    """A JSON number as a float, or None (booleans are not numbers)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return float(v)
    if isinstance(v, tuple):
        return v[1]
    return None


def as_integer(v):
    """A JSON number as an int64, or None when it is not one (a boolean, a
    fraction, a value outside int64 - however written); Ambiguous for an
    integral value in range written as a double (3.0): readers differ."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v if INT64_MIN <= v <= INT64_MAX else None
    if isinstance(v, tuple):
        f = v[1]
        if f.is_integer() and -2.0**63 <= f < 2.0**63:
            raise Ambiguous("an integral number written as a double")
        return None
    return None


def read_graph(data):
    deep = max_nesting(data)
    if deep:
        return Verdict("invalid", why="nesting", where=deep)
    try:
        root = strict_json(data)
    except Ambiguous as e:
        return Verdict("ambiguous", why=str(e))
    except (ValueError, RecursionError) as e:
        return Verdict("invalid", why="not JSON (%s)" % str(e)[:60])
    try:
        return read_document(root)
    except Ambiguous as e:
        return Verdict("ambiguous", why=str(e))


def read_document(root):
    bad = lambda why: Verdict("invalid", why=why)
    if not isinstance(root, dict):
        return bad("top level")
    nodes = root.get("nodes")
    if not isinstance(nodes, list):
        return bad("nodes")
    links = root.get("links")
    if not isinstance(links, list):
        links = root.get("edges")
    if not isinstance(links, list):
        return bad("links")
    read = []
    for k, node in enumerate(nodes):
        if not isinstance(node, dict):
            return bad("node not an object")
        ident = as_integer(node.get("id"))
        if ident is None:
            return bad("id")
        cost = as_number(node.get("cost_cpu"))
        ram = as_number(node.get("cost_ram"))
        if cost is None or not math.isfinite(cost) or cost < 0:
            return bad("cost_cpu")
        if ram is None or not math.isfinite(ram) or ram < 0 or ram > 9.0e18:
            return bad("cost_ram")
        backward = node.get("backward")
        if not isinstance(backward, bool):
            return bad("backward")
        # An integer is read exactly (a double holds 2^53 at most), anything
        # else rounded up.
        raw = node.get("cost_ram")
        exact = raw if isinstance(raw, int) and not isinstance(raw, bool) \
            else int(math.ceil(ram))
        read.append((ident, k, cost, exact, backward))
    read.sort(key=lambda t: (t[0], t[1]))
    ids = [t[0] for t in read]
    if len(set(ids)) != len(ids):
        return bad("duplicate id")
    index = {ident: i for i, ident in enumerate(ids)}
    inputs = [[] for _ in read]
    for link in links:
        if not isinstance(link, dict):
            return bad("link not an object")
        s, t = as_integer(link.get("source")), as_integer(link.get("target"))
        if s is None or t is None:
            return bad("link ends")
        if s not in index or t not in index:
            return bad("unknown node")
        if s >= t:
            return bad("back edge")
        if read[index[s]][4] and not read[index[t]][4]:
            return bad("forward reads backward")
        inputs[index[t]].append(index[s])
    total_cost, total_bytes = 0.0, 0
    for t in read:
        total_cost += t[2]
        if not total_cost <= MAX_TOTAL_COST:
            return bad("total cost")
        total_bytes += t[3]
        if total_bytes > MAX_TOTAL_BYTES:
            return bad("total bytes")
    return Verdict("valid", Graph(ids, [t[2] for t in read],
                                  [t[3] for t in read], [t[4] for t in read],
                                  inputs))


def is_chain(g):
    """The graphs `chain` plans (include/memplan/Planning/RematChain.h)."""
    forward = [i for i in range(g.n) if not g.backward[i]]
    if not forward or len(forward) > CHAIN_MAX_LENGTH:
        return False
    position = {f: k for k, f in enumerate(forward)}
    for k, f in enumerate(forward):
        for u in g.inputs[f]:
            if k == 0 or u != forward[k - 1]:
                return False
    step = len(forward) - 1
    for v in range(g.n):
        if g.backward[v]:
            reads = [position[u] for u in g.inputs[v] if u in position]
            if reads:
                if max(reads) > step:
                    return False
                step = max(reads)
    return True


# --------------------------------------------------------------------------
# The memory model


def check_schedule(g, schedule):
    runs = [0] * g.n
    for q, v in enumerate(schedule):
        for u in g.inputs[v]:
            check(runs[u] > 0, "execution %d (node %d) reads node %d before "
                  "it has run" % (q, g.ids[v], g.ids[u]))
        runs[v] += 1
    for v in range(g.n):
        check(runs[v] > 0, "node %d never runs" % g.ids[v])
        check(not g.backward[v] or runs[v] == 1,
              "backward node %d runs %d times" % (g.ids[v], runs[v]))
    return runs


def simulate(g, schedule):
    """(cost, peak): each execution allocates its output; a read uses the
    latest instance; an instance lives until its last read before its node
    runs again (only during its own execution when unread); the running
    execution's inputs and output count."""
    m = len(schedule)
    latest = {}
    last_read = list(range(m))
    for q, v in enumerate(schedule):
        for u in g.inputs[v]:
            last_read[latest[u]] = q
        latest[v] = q
    ends_at = [[] for _ in range(m)]
    for p in range(m):
        ends_at[last_read[p]].append(p)
    live = peak = 0
    cost = 0.0
    for q, v in enumerate(schedule):
        live += g.rams[v]
        cost += g.costs[v]
        peak = max(peak, live)
        for p in ends_at[q]:
            live -= g.rams[schedule[p]]
    return cost, peak


def keep_recompute_executions(g, recompute):
    """The executions of a keep/recompute plan under the graph model of
    docs/Remat.md, and the peak of that model: nodes in order; a kept
    output lives until its last reader, a recomputed forward one until its
    last forward reader; before a backward node, each input that is not
    resident is rebuilt depth first from resident values, non-resident
    ancestors as temporaries freed once the input exists, the input then
    living until its last reader."""
    n = g.n
    last, last_fwd = [-1] * n, [-1] * n
    for v in range(n):
        for u in g.inputs[v]:
            last[u] = max(last[u], v)
            if not g.backward[v]:
                last_fwd[u] = max(last_fwd[u], v)
    dies = [None] * n  # position after which the resident instance is freed
    state = {"live": 0, "peak": 0}
    executions = []

    def execute(x, now, until, scheduled):
        executions.append(x)
        if dies[x] is None:
            state["live"] += g.rams[x]
        dies[x] = until
        state["peak"] = max(state["peak"], state["live"])
        for w in set(g.inputs[x]) | {x}:
            if dies[w] is not None and (dies[w] < now or
                                        (scheduled and dies[w] == now)):
                dies[w] = None
                state["live"] -= g.rams[w]

    for v in range(n):
        if g.backward[v]:
            for u in g.inputs[v]:
                if dies[u] is not None:
                    continue
                temps = []

                def build(x):
                    for w in g.inputs[x]:
                        if dies[w] is None:
                            build(w)
                            temps.append(w)
                    execute(x, v, float("inf"), False)

                build(u)
                dies[u] = last[u]
                for t in temps:
                    if dies[t] is not None:
                        dies[t] = None
                        state["live"] -= g.rams[t]
        d = last_fwd[v] if recompute[v] and not g.backward[v] else last[v]
        execute(v, v, max(d, v), True)
    return executions, state["peak"]


def policy_recompute(g, policy, every, threshold):
    forward = [i for i in range(g.n) if not g.backward[i]]
    rec = [False] * g.n
    if policy == "recompute-all":
        for i in forward:
            rec[i] = True
    elif policy in ("every-n", "sqrt"):
        if policy == "sqrt":
            every = max(1, math.isqrt(len(forward)))
            if every * every < len(forward):
                every += 1
        for k, i in enumerate(forward):
            rec[i] = k % every != 0
    elif policy == "cost-threshold":
        for i in forward:
            rec[i] = g.costs[i] < threshold
    return rec


def cost_text(cost):
    """A cost as the summary line prints it: 17 significant digits from
    1e15 on (they round-trip), else whole numbers without decimals and
    others with two."""
    if not abs(cost) < 1e15:
        return "%.17g" % cost
    if cost == math.floor(cost):
        return "%.0f" % cost
    return "%.2f" % cost


def check_cost_text(printed, cost, what):
    want = cost_text(cost)
    check(printed == want, "%s=%s printed, the cost is %s" %
          (what, printed, want))


def stage_ordered(g, schedule):
    """True when every recomputation before a node's first execution is a
    forward node of a smaller index, in increasing order (the MILP's
    schedules)."""
    seen = [False] * g.n
    pending = []
    for v in schedule:
        if seen[v]:
            pending.append(v)
            continue
        if pending != sorted(set(pending)) or any(p >= v for p in pending):
            return False
        pending = []
        seen[v] = True
    return not pending


def keep_recompute_plans(g):
    """Yields (cost, peak, recompute) of every stage-ordered keep/recompute
    plan (up to 2^10 of them)."""
    forward = [i for i in range(g.n) if not g.backward[i]]
    for mask in range(1 << len(forward)):
        rec = [False] * g.n
        for k, i in enumerate(forward):
            rec[i] = bool(mask >> k & 1)
        execs, _ = keep_recompute_executions(g, rec)
        if stage_ordered(g, execs):
            cost, peak = simulate(g, execs)
            yield cost, peak, rec


# --------------------------------------------------------------------------
# One case


def parse_summary(out):
    line = out.strip()
    fields = {k: text_field(line, k) for k in
              ("cost", "baseline_cost", "overhead", "peak", "budget",
               "optimal")}
    check(all(v is not None for v in fields.values()),
          "bad summary line %r" % line)
    return fields


SMALLEST = re.compile(r"the smallest budget memplan reaches is (\d+) bytes "
                      r"\(policy '([a-z-]+)'\)")


def run_case(driver, tool, rng, work, case):
    first_policy = rng.choice(POLICIES + ["budget"] * 2)
    nodes = random_graph(rng, prefer_chain=first_policy == "chain")
    ids = random_ids(rng, len(nodes))
    doc = to_document(rng, nodes, ids)
    kind = rng.random()
    if kind < 0.15:
        doc = mutate_document(rng, doc)
    text = json.dumps(doc, indent=rng.choice([None, 1]),
                      ensure_ascii=rng.random() < 0.5)
    if 0.15 <= kind < 0.3:
        text = mutate_text(rng, text)
    data = text.encode("utf-8", "surrogateescape")
    path = os.path.join(work, "graph.json")
    with open(path, "wb") as f:
        f.write(data)
    verdict = read_graph(data)
    g = verdict.graph

    # Options.
    small = g is not None and g.n <= MILP_MAX_NODES or \
        g is None and len(nodes) <= MILP_MAX_NODES
    policy = first_policy
    if policy == "optimal" and not small:
        policy = "budget"
    elif small and rng.random() < 0.1:
        policy = "optimal"
    args = ["--input", path]
    bad_option = None
    p0 = simulate(g, list(range(g.n)))[1] if g else 10**6
    budget = None
    if policy in ("budget", "chain", "optimal") or rng.random() < 0.3:
        budget = pick_budget(rng, tool, driver, path, p0, g)
    if rng.random() < 0.02:
        budget_text = rng.choice(["-1", "abc", "1e3", str(2**64), ""])
        bad_option = "budget" if budget_text else None
        budget = None if not budget_text else budget
        args.append("--budget=" + budget_text)
    elif budget is not None:
        args.append("--budget=%d" % budget)
    if rng.random() < 0.01:
        policy = rng.choice(["fast", "Budget", "optimal "])
        bad_option = bad_option or "policy"
    default = "budget" if budget is not None else "keep-all"
    if policy != default or rng.random() < 0.7:
        args.append("--policy=" + policy)
    every = 2  # the default
    if policy == "every-n":
        every = rng.choice([1, 2, 2, 3, 4, 7])
    if policy == "every-n" or rng.random() < 0.1:
        if rng.random() < 0.03:
            every = 0
            bad_option = bad_option or "every"
        args.append("--every=%d" % every)
    threshold = 0.0
    if policy == "cost-threshold" or rng.random() < 0.1:
        threshold = float(rng.choice([0, 1, 100, 1000, 10**5, 5 * 10**5,
                                      10**6]))
        args.append("--threshold=%g" % threshold)
    time_limit = "0.5"
    if policy == "optimal" or rng.random() < 0.05:
        if rng.random() < 0.02:
            time_limit = rng.choice(["0", "-1", "nan", "inf"])
            bad_option = bad_option or "time-limit"
        args.append("--time-limit=" + time_limit)
    out_path = os.path.join(work, "decisions.json")
    if rng.random() < 0.9:
        args += ["--output", out_path]
    if policy in ("budget", "chain", "optimal") and budget is None and \
            not bad_option:
        bad_option = "policy without --budget"

    r = driver.record(tool.run(args))
    r.check_sane()
    driver.stat("exit %d, %s graph, policy %s" % (
        r.rc, verdict.kind, policy if verdict.kind == "valid" else "-"))

    if verdict.kind == "invalid":
        check(r.rc == 2, "an invalid graph (%s) was accepted (exit %d)" %
              (verdict.why, r.rc))
        check(path in r.err, "exit 2 without naming the file: %r" %
              r.err.strip())
        if verdict.why == "nesting":
            where = "%s:%d:%d:" % ((path,) + verdict.where)
            check(where in r.err, "deep nesting: expected %r in %r" %
                  (where, r.err.strip()))
        return "rejected"
    if verdict.kind == "ambiguous":
        driver.note("inputs the docs leave open (%s)" % verdict.why)
        return "rejected" if r.rc == 2 else "ok"
    if bad_option:
        check(r.rc == 2 and "error:" in r.err,
              "bad option (%s) not refused: exit %d %r" %
              (bad_option, r.rc, r.err.strip()))
        return "rejected"
    if policy == "chain" and not is_chain(g):
        check(r.rc == 2, "policy chain on a graph that is not a chain: exit "
              "%d" % r.rc)
        check("chain" in r.err, "chain refused without saying why: %r" %
              r.err.strip())
        return "rejected"
    check(r.rc != 2, "a valid graph was refused: %r" % r.err.strip())

    # Exit 0 or 1: check the plan.
    check(r.rc == 0 or budget is not None, "exit 1 without a budget")
    fields = parse_summary(r.out) if r.out.strip() else None
    check(r.rc == 1 or fields is not None, "no summary line")
    written = None
    if "--output" in args and os.path.exists(out_path):
        with open(out_path, "rb") as f:
            written = json.loads(f.read().decode("utf-8"))
    check(r.rc == 1 or "--output" not in args or written is not None,
          "--output not written")
    if fields:
        baseline = sum(g.costs)  # in id order, as the tool sums
        check_cost_text(fields["baseline_cost"], baseline,
                        "baseline_cost")
        check(fields["budget"] == (str(budget) if budget is not None
                                   else "none"), "budget=%s printed, given %s"
              % (fields["budget"], budget))
    if fields and policy == "optimal":
        check(fields["optimal"] in ("yes", "no"), "optimal=%s from the MILP"
              % fields["optimal"])
    if fields and written is not None:
        verify_plan(driver, g, policy, every, threshold, fields, written)
    elif fields and policy not in ("budget", "chain", "optimal"):
        rec = policy_recompute(g, policy, every, threshold)
        execs, _ = keep_recompute_executions(g, rec)
        cost, peak = simulate(g, execs)
        check(fields["peak"] == str(peak), "%s: peak=%s printed, simulated "
              "here %d" % (policy, fields["peak"], peak))
        check_cost_text(fields["cost"], cost, "cost")

    if r.rc == 0:
        if budget is not None:
            check(int(fields["peak"]) <= budget, "exit 0 with peak %s over "
                  "the budget %d" % (fields["peak"], budget))
        if policy == "optimal" and fields["optimal"] == "yes":
            driver.stat("optimal: optimal=yes, checked")
            refute_optimal(driver, g, budget, float(written["cost"])
                           if written else float(fields["cost"]))
        if policy == "budget" and rng.random() < 0.3:
            check_monotone(rng, driver, tool, work, path, budget, fields)
        return "ok"

    # Exit 1: the budget is infeasible (for this policy).
    if fields:
        check(int(fields["peak"]) > budget, "exit 1 but peak %s fits the "
              "budget %d" % (fields["peak"], budget))
    m = SMALLEST.search(r.err)
    if policy == "optimal" and "found no schedule within" in r.err:
        check(m is not None, "exit 1 message: %r" % r.err.strip())
        return "ok"
    check(m is not None and "infeasible" in r.err,
          "exit 1 message: %r" % r.err.strip())
    smallest, named = int(m.group(1)), m.group(2)
    if named == policy or (policy == "optimal" and "proven" in r.err):
        check(smallest > budget, "policy %s fails the budget %d but says "
              "policy %s reaches %d" % (policy, budget, named, smallest))
    if policy == "optimal" and "proven" in r.err:
        driver.stat("optimal: proven infeasible, checked")
        refute_infeasible(driver, g, budget)
    if rng.random() < 0.5:
        again = driver.record(tool.run(["--input", path, "--budget=%d" %
                                        smallest, "--policy=" + named]))
        again.check_sane()
        check(again.rc == 0, "the smallest budget named, %d bytes with "
              "policy %s, does not fit (exit %d: %s)" %
              (smallest, named, again.rc, again.err.strip()))
        check(int(parse_summary(again.out)["peak"]) <= smallest,
              "re-run at the smallest budget: peak over it")
    return "ok"


def pick_budget(rng, tool, driver, path, p0, g):
    r = rng.random()
    if r < 0.35 and g is not None:
        # Between the smallest budget memplan names and the keep-all peak.
        probe = driver.record(tool.run(["--input", path, "--budget=0"]))
        probe.check_sane()
        m = SMALLEST.search(probe.err)
        if m:
            low = int(m.group(1))
            return rng.choice([low, low - 1 if low else 0,
                               low + (p0 - low) * rng.randint(0, 8) // 8,
                               rng.randint(min(low, p0), max(low, p0))])
    if r < 0.7:
        return max(0, int(p0 * rng.uniform(0.2, 1.3)))
    return max(0, rng.choice([p0, p0 - 1, p0 + 1, 0, 1, 2**64 - 1, 2**63,
                              INT64_MAX]))


def verify_plan(driver, g, policy, every, threshold, fields, written):
    check(written.get("policy") == policy, "policy %r written, ran %r" %
          (written.get("policy"), policy))
    if policy in ("budget", "chain", "optimal"):
        check(isinstance(written.get("schedule"), list),
              "no schedule written for policy %s" % policy)
        index = {ident: i for i, ident in enumerate(g.ids)}
        schedule = []
        for ident in written["schedule"]:
            check(ident in index, "schedule names node %r" % (ident,))
            schedule.append(index[ident])
        model_peak = None
    else:
        rec = policy_recompute(g, policy, every, threshold)
        schedule, model_peak = keep_recompute_executions(g, rec)
    runs = check_schedule(g, schedule)
    cost, peak = simulate(g, schedule)
    if model_peak is not None:
        check(peak <= model_peak, "re-running the plan's executions peaks at "
              "%d, above the model's %d" % (peak, model_peak))
    decisions = written.get("decisions")
    check(isinstance(decisions, list) and len(decisions) == g.n,
          "decisions: %d entries for %d nodes" %
          (len(decisions or []), g.n))
    for i, d in enumerate(decisions):
        want = "recompute" if runs[i] > 1 else "keep"
        check(d.get("id") == g.ids[i] and d.get("decision") == want,
              "decision %r; node %d runs %d times" % (d, g.ids[i], runs[i]))
    check(fields["peak"] == str(peak) and written.get("peak") == peak,
          "%s: peak=%s printed (%s written), the executions peak at %d" %
          (policy, fields["peak"], written.get("peak"), peak))
    check_cost_text(fields["cost"], cost, "cost")
    wc = written.get("cost")
    check(isinstance(wc, (int, float)) and
          abs(wc - cost) <= 1e-9 * max(1.0, abs(cost)),
          "cost %r written, the executions cost %r" % (wc, cost))
    base = sum(g.costs)
    check(abs(written.get("baseline_cost", -1) - base) <=
          1e-9 * max(1.0, base), "baseline_cost written %r" %
          written.get("baseline_cost"))
    if fields["optimal"] == "yes" and policy != "optimal":
        check(cost == base, "optimal=yes but the cost %r is above the "
              "baseline %r" % (cost, base))


def refute_optimal(driver, g, budget, claimed):
    forward = sum(1 for b in g.backward if not b)
    if forward > 10:
        return
    for cost, peak, rec in keep_recompute_plans(g):
        if peak <= budget:
            check(cost >= claimed - 1e-9 * max(1.0, abs(claimed)),
                  "optimal=yes at cost %r, but the stage-ordered plan "
                  "recomputing %s costs %r and peaks at %d <= %d" %
                  (claimed, [g.ids[i] for i in range(g.n) if rec[i]], cost,
                   peak, budget))


def refute_infeasible(driver, g, budget):
    forward = sum(1 for b in g.backward if not b)
    if forward > 10:
        return
    for cost, peak, rec in keep_recompute_plans(g):
        check(peak > budget, "proven infeasible, but the stage-ordered plan "
              "recomputing %s peaks at %d <= %d" %
              ([g.ids[i] for i in range(g.n) if rec[i]], peak, budget))


def check_monotone(rng, driver, tool, work, path, budget, fields):
    lower = rng.randint(0, budget) if budget < 2**63 else rng.randint(
        0, 2**40)
    r = driver.record(tool.run(["--input", path, "--budget=%d" % lower,
                                "--policy=budget"]))
    r.check_sane()
    check(r.rc in (0, 1), "budget %d: exit %d" % (lower, r.rc))
    if r.rc == 1:
        return
    f2 = parse_summary(r.out)
    check(int(f2["peak"]) <= int(fields["peak"]) and
          float(f2["cost"]) >= float(fields["cost"]),
          "budget %d gives peak %s cost %s, budget %d peak %s cost %s: a "
          "smaller budget must not give a larger peak or a smaller cost" %
          (lower, f2["peak"], f2["cost"], budget, fields["peak"],
           fields["cost"]))


def main():
    args = parse_args("fuzz_remat", __doc__.split("\n")[0], 300)
    driver = Driver("fuzz_remat", args)
    tool = Tool(args.bin, "memplan-remat", args.timeout)
    return driver.run(lambda rng, work, case:
                      run_case(driver, tool, rng, work, case))


if __name__ == "__main__":
    sys.exit(main())
