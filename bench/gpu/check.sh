#!/usr/bin/env bash
# bench/gpu/check.sh DIR RESULTS
#
# Checks, on a machine with memplan's sources, what bench/gpu/run.sh brought
# back from the GPU (RESULTS: the unpacked results/ folder) against DIR made
# by bench/gpu/prepare.sh. The same checks as test/Integration/GPU's lit
# tests: every program exited 0; planned vs unplanned GPU output
# bit-identical (the runtime prints 9 significant digits, which round-trip
# f32); GPU vs the CPU pipeline within rtol 2e-4 / atol 1e-6; budgeted
# programs' outputs identical to the unplanned GPU program's and their
# arenas within the budget; the 10-step loop's counters; for the real
# models, planned/budgeted losses identical to the unplanned program's and
# the PyTorch twin's loss of the same step within rtol 1e-3; the arena the
# runtime allocated equals the planned one. Prints one line per check and
# "N checks passed, M failed, K skipped" (skipped: budgets refused at
# compile time); exit 1 if any failed or none passed, 2 on bad arguments.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=../common.sh
source "$ROOT/bench/common.sh" # report_fields
[ $# -eq 2 ] || { sed -n '2,14p' "$0" >&2; exit 2; }
DIR="$1"
RES="$2"
UTILS="$ROOT/test/Utils"
[ -f "$DIR/programs" ] || { echo "check.sh: $DIR/programs is missing (not a bench/gpu/prepare.sh folder)" >&2; exit 2; }
[ -d "$RES" ] || { echo "check.sh: no results folder $RES" >&2; exit 2; }
pass=0 fail=0 skip=0
ok() { echo "PASS: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
skipped() { echo "SKIP: $*"; skip=$((skip + 1)); }

values() { grep -v '^memplan-runtime:' "$RES/$1.out"; }
# same A B: both programs printed memrefs, and the same text (bit-identical
# values: 9 significant digits round-trip f32).
same() {
  grep -q 'data=' "$RES/$1.out" 2>/dev/null && grep -q 'data=' "$RES/$2.out" 2>/dev/null &&
    diff <(values "$1") <(values "$2") >/dev/null
}

while read -r name; do
  if [ ! -f "$RES/$name.status" ]; then bad "$name: no result"; continue; fi
  read -r rc wall <"$RES/$name.status"
  if [ "$rc" = 0 ]; then ok "$name ran (exit 0, $wall s)"; else bad "$name: exit $rc: $(tail -2 "$RES/$name.err" | tr '\n' ' ')"; fi
done <"$DIR/programs"
# Budgets memplan refused at compile time (below the smallest it reaches).
for refused in "$DIR"/report/*.refused; do
  [ -f "$refused" ] || continue
  skipped "$(basename "$refused" .refused): refused at compile time: $(cut -c1-200 "$refused")"
done

# Planned vs unplanned, GPU vs CPU (zoo-gpu.test): the models with a CPU
# reference.
for ref in "$DIR"/ref/*.cpu; do
  [ -f "$ref" ] || continue
  m=$(basename "$ref" .cpu)
  if same "$m.unplanned" "$m.planned"; then
    ok "$m: planned = unplanned on the GPU (bit-identical)"
  else
    bad "$m: planned and unplanned GPU outputs differ"
  fi
  if python3 "$UTILS/compare-outputs.py" "$DIR/ref/$m.cpu" "$RES/$m.planned.out" --rtol 2e-4 --atol 1e-6 >"$RES/$m.cmp" 2>&1; then
    ok "$m: GPU = CPU within rtol 2e-4 atol 1e-6"
  else
    bad "$m: GPU vs CPU: $(tail -3 "$RES/$m.cmp" | tr '\n' ' ')"
  fi
done

# The first memref a program printed (the loss of its first step).
first() {
  python3 - "$RES/$1.out" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"memref rank=\d+ sizes=\[[^\]]*\] data=\n(.*?)(?=\nmemref |\nmemplan-runtime:|\Z)", t, re.S)
print(m.group(1).strip() if m else "")
PY
}

# Budgets (budgets-and-steps.test, and the real models of issue 19 whose
# unplanned reference runs one step: step 1's loss must be the same, and the
# budgets' losses of every step the same as the unbudgeted plan's).
REAL=$(cut -d' ' -f1 "$DIR/twins")
for ref in "$RES"/*.unplanned.out; do
  m=$(basename "$ref" .unplanned.out)
  [ -f "$DIR/ref/$m.cpu" ] && continue # checked above
  real=0
  grep -qxF "$m" <<<"$REAL" && real=1
  for v in p0 090 050 033; do
    [ -f "$RES/$m.$v.out" ] || continue
    if [ "$real" = 1 ]; then
      a=$(first "$m.unplanned") b=$(first "$m.$v")
      if [ -n "$a" ] && [ "$a" = "$b" ]; then
        ok "$m.$v: step 1's loss $b = the unplanned GPU program's (bit-identical)"
      else
        bad "$m.$v: step 1's loss '$b' vs the unplanned GPU program's '$a'"
      fi
      if [ "$v" != p0 ]; then
        if same "$m.p0" "$m.$v"; then
          ok "$m.$v: every step's loss = the unbudgeted plan's"
        else
          bad "$m.$v: losses differ from the unbudgeted plan's"
        fi
      fi
    elif same "$m.unplanned" "$m.$v"; then
      ok "$m.$v: output = unplanned GPU output (bit-identical)"
    else
      bad "$m.$v: output differs from the unplanned GPU program's"
    fi
    # The arena the runtime allocated on the device is the planned one.
    ran=$(grep -oE '^memplan-runtime: arena_allocations=[0-9]+ arena_bytes=[0-9]+' "$RES/$m.$v.out" | grep -oE '[0-9]+$')
    planned=$(report_fields "$DIR/report/$m.$v.json" train_step arena_bytes 2>/dev/null)
    if [ -n "$ran" ] && [ "$ran" = "$planned" ]; then
      ok "$m.$v: the device arena is the planned one ($ran bytes)"
    else
      bad "$m.$v: device arena '$ran' bytes, planned '$planned'"
    fi
    [ "$v" = p0 ] && continue
    if line=$(python3 "$UTILS/check-budget.py" "$DIR/report/$m.$v.json"); then
      ok "$m.$v: $line"
    else
      bad "$m.$v: $line"
    fi
  done
done

# A dynamic batch run at 2, 7 and 16 in one process: the arena grows at
# each size (one allocation each), the step allocates nothing else.
if [ -f "$RES/mlpdyn.planned.out" ]; then
  growth=$(grep -oE '^memplan-runtime: arena_allocations=[0-9]+' "$RES/mlpdyn.planned.out" | grep -oE '[0-9]+$' | tr '\n' ' ')
  if [ "$growth" = "1 2 3 " ]; then
    ok "mlpdyn: the device arena grew at each larger size (allocations 1 2 3)"
  else
    bad "mlpdyn: arena allocations after each size: '$growth' (expected 1 2 3)"
  fi
fi

# The transformer read its sizes from the environment: the sizes really
# differ (zoo-gpu-dynamic.test's "not diff").
if [ -f "$RES/gptenv13.planned.out" ] && [ -f "$RES/gptenv35.planned.out" ]; then
  if ! grep -q 'data=' "$RES/gptenv13.planned.out" || ! grep -q 'data=' "$RES/gptenv35.planned.out"; then
    bad "gptenv: (1, 3) or (3, 5) printed no values"
  elif same gptenv13.planned gptenv35.planned; then
    bad "gptenv: (B, S) = (1, 3) and (3, 5) printed the same values (the sizes were not read)"
  else
    ok "gptenv: (B, S) = (1, 3) and (3, 5) print different values"
  fi
fi

# The 10-step loop.
if [ -f "$RES/steps.out" ]; then
  if grep -q '^memplan-runtime: arena_allocations=1 ' "$RES/steps.out"; then
    ok "steps: one arena allocation"
  else
    bad "steps: $(grep arena_allocations "$RES/steps.out")"
  fi
  if grep -q '^memplan-runtime: steps=10 step1_allocations=1 later_step_allocations=0$' "$RES/steps.out"; then
    ok "steps: 10 steps, 1 allocation in step 1, none later"
  else
    bad "steps: $(grep 'steps=' "$RES/steps.out")"
  fi
fi

# PyTorch twins: the same loss (docs/GPU.md states the tolerance). Every
# real model's twin must have run; a toy model's is checked when it ran
# (run.sh TOY_TWINS=1).
twin_check() {
  local m="$1" twin="$RES/twin.$1.out" prog="$1.planned"
  [ -f "$RES/$prog.out" ] || prog="$m.p0"
  # Step 1's loss on both sides.
  local mine theirs
  mine=$([ -f "$RES/$prog.out" ] && first "$prog" | tr -d '[]')
  theirs=$(grep -oE 'loss_step1=[^ ]+' "$twin" | cut -d= -f2)
  if [ -n "$mine" ] && [ -n "$theirs" ] &&
    python3 -c "import sys; a,b=float('$mine'),float('$theirs'); sys.exit(0 if abs(a-b) <= 1e-3*max(abs(a),abs(b)) else 1)"; then
    ok "$m: PyTorch twin's loss $theirs = memplan's $mine (rtol 1e-3)"
  else
    bad "$m: PyTorch twin's loss '$theirs' vs memplan's '$mine'"
  fi
}
while read -r m _; do
  if [ -f "$RES/twin.$m.out" ]; then twin_check "$m"; else bad "$m: the PyTorch twin did not run"; fi
done <"$DIR/twins"
if [ -f "$DIR/twins.toy" ]; then
  while read -r m _; do
    [ -f "$RES/twin.$m.out" ] && twin_check "$m"
  done <"$DIR/twins.toy"
fi
echo "$pass checks passed, $fail failed, $skip skipped"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
