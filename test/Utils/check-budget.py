#!/usr/bin/env python3
"""check-budget.py REPORT.json: for every function of a memplan JSON v1 report
that carries a `remat` section, prints `<name>: arena <A> <= budget <B>` and
fails (exit 1) when the packed arena exceeds the budget recorded there, or
when no function has a budget at all. Independent of the pipeline's own
verifier: it reads only the report."""
import json
import sys

with open(sys.argv[1]) as f:
    report = json.load(f)
checked = 0
ok = True
for fn in report["functions"]:
    remat = fn.get("remat")
    if not remat or "budget_bytes" not in remat:
        continue
    arena, budget = fn["arena_bytes"], remat["budget_bytes"]
    checked += 1
    if arena <= budget:
        print(f"{fn['name']}: arena {arena} <= budget {budget}")
    else:
        print(f"{fn['name']}: arena {arena} EXCEEDS budget {budget}")
        ok = False
if checked == 0:
    print("no function with a remat budget in the report")
    ok = False
sys.exit(0 if ok else 1)
