#!/usr/bin/env bash
# bench/gpu/run.sh DIR OUT [SECONDS]
#
# On the GPU machine (needs only the NVIDIA driver, and python3 with PyTorch
# for the twins): runs every program of DIR/programs (made by
# bench/gpu/prepare.sh) and every PyTorch twin of DIR/twins, each under a
# time limit (SECONDS, default 300, for the whole run: a program gets what
# is left, at most $PER_PROGRAM seconds, default 150), and writes
# OUT/results.tgz (NAME.out, NAME.err, NAME.status: exit code and wall
# seconds) and OUT/summary.txt. Check the results on a machine with MLIR
# with bench/gpu/check.sh.
set -uo pipefail
[ $# -ge 2 ] || { sed -n '2,11p' "$0" >&2; exit 2; }
DIR="$(cd "$1" 2>/dev/null && pwd)"
[ -n "$DIR" ] && [ -f "$DIR/programs" ] || { echo "run.sh: '$1' is not a bench/gpu/prepare.sh folder (no programs list)" >&2; exit 2; }
OUT="$2"
LIMIT="${3:-300}"
PER_PROGRAM="${PER_PROGRAM:-150}"
RES="$OUT/results"
mkdir -p "$RES"
export MEMPLAN_VERBOSE_STEPS=1
start=$SECONDS
summary="$OUT/summary.txt"
{
  echo "host: $(uname -srm)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
} >"$summary"

left() { echo $((LIMIT - (SECONDS - start))); }

# one CAP NAME CMD...: runs CMD with the time left, at most CAP seconds.
one() {
  local cap="$1" name="$2"
  shift 2
  local budget
  budget=$(left)
  [ "$budget" -gt "$cap" ] && budget=$cap
  if [ "$budget" -le 1 ]; then
    echo "$name: not run (time limit)" >>"$summary"
    echo "skipped 0" >"$RES/$name.status"
    return
  fi
  local t0 t1 rc
  t0=$(date +%s.%N)
  timeout -k 5 "$budget" "$@" </dev/null >"$RES/$name.out" 2>"$RES/$name.err"
  rc=$?
  t1=$(date +%s.%N)
  local wall
  wall=$(python3 -c "print(f'{$t1 - $t0:.2f}')" 2>/dev/null || echo "?")
  echo "$rc $wall" >"$RES/$name.status"
  echo "$name: exit $rc, $wall s $(grep -h -m1 -E 'median_later_step_ms|error' "$RES/$name.out" "$RES/$name.err" 2>/dev/null | head -1)" >>"$summary"
}

# The real models are the ones with a twin line (DIR/twins); the rest of
# DIR/programs is the toy suite, run first (seconds each: at most $TOY_CAP).
# Nothing else runs when the probe (lit's cuda-gpu feature) fails.
REAL=$(cut -d' ' -f1 "$DIR/twins")
is_real() { grep -qxF "${1%.*}" <<<"$REAL"; }
TOY_CAP="${TOY_CAP:-30}"
if grep -qx probe "$DIR/programs"; then
  one "$TOY_CAP" probe "$DIR/bin/probe"
  if [ "$(cut -d' ' -f1 "$RES/probe.status")" != 0 ]; then
    echo "the probe failed: nothing else was run" >>"$summary"
    tar czf "$OUT/results.tgz" -C "$OUT" results
    cat "$summary" "$RES/probe.err"
    exit 1
  fi
fi
# Toy programs: the planned ones and the loop, then the references and
# budgets.
toy_programs() {
  while read -r name; do
    [ "$name" = probe ] || is_real "$name" || echo "$name"
  done <"$DIR/programs"
}
for name in $(toy_programs | grep -vE '\.(p0|unplanned|[0-9]{3})$') \
            $(toy_programs | grep -E '\.(p0|unplanned|[0-9]{3})$'); do
  one "$TOY_CAP" "$name" "$DIR/bin/$name"
done
# The toy models' twins only with TOY_TWINS=1 (checked on the CPU by
# bench/gpu/torch_twins.py's author; each costs a CUDA start-up).
have_torch=0
python3 -c "import torch" 2>/dev/null && have_torch=1
[ "$have_torch" = 1 ] || echo "python3 has no torch here: no PyTorch twin runs" >>"$summary"
if [ "${TOY_TWINS:-0}" = 1 ] && [ "$have_torch" = 1 ] && [ -f "$DIR/twins.toy" ]; then
  while read -r name args; do
    # shellcheck disable=SC2086
    one 120 "twin.$name" python3 "$DIR/bench/torch_twins.py" $args
  done <"$DIR/twins.toy"
fi
# The real models: every model's planned program and its twin first, then
# the unplanned programs, then the budgets, so that a slow model leaves the
# others their first numbers.
for model in $REAL; do
  grep -qx "$model.p0" "$DIR/programs" || continue
  one "$PER_PROGRAM" "$model.p0" "$DIR/bin/$model.p0"
  args=$(awk -v m="$model" '$1 == m { $1 = ""; print }' "$DIR/twins")
  # shellcheck disable=SC2086
  [ -n "$args" ] && [ "$have_torch" = 1 ] &&
    one "$PER_PROGRAM" "twin.$model" python3 "$DIR/bench/torch_twins.py" $args
done
for v in unplanned 050 033; do
  for model in $REAL; do
    grep -qx "$model.$v" "$DIR/programs" && one "$PER_PROGRAM" "$model.$v" "$DIR/bin/$model.$v"
  done
done
echo "total: $((SECONDS - start)) s" >>"$summary"
tar czf "$OUT/results.tgz" -C "$OUT" results && rm -rf "$RES"
cat "$summary"
