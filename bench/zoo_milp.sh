#!/usr/bin/env bash
# The MILP optimum on the compiler's own remat graphs: each toy-size zoo
# model's graph is exported by --memplan-insert-remat="export-graph=…" and
# solved by memplan-remat at B = F + f (P0 - F) (P0 the keep-all liveness
# peak, F the budget planner's floor). Prints a markdown table: nodes, MILP
# cost (proven?), budget's cost and ratio, sqrt's ratio where it fits.
# usage: bench/zoo_milp.sh [MILP_SECONDS=30]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/build/bin"
LIMIT=${1:-30}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$ROOT/bench/common.sh"
echo "| model | nodes | f | budget | MILP cost (proven) | MILP s | budget: cost (ratio) | sqrt |"
echo "|---|---|---|---|---|---|---|---|"
while read -r name knobs; do
  # shellcheck disable=SC2086
  "$BIN/memplan-zoo" $knobs > "$TMP/m.mlir"
  "$BIN/memplan-opt" --memplan-insert-remat="export-graph=$TMP/g.json" "$TMP/m.mlir" -o /dev/null
  nodes=$(python3 -c "import json; print(len(json.load(open('$TMP/g.json'))['nodes']))")
  remat_bounds "$BIN/memplan-remat" "$TMP/g.json"
  p0=$P0 floor=$FLOOR
  for f in 0.9 0.5 0.25; do
    b=$(between "$floor" "$p0" "$f")
    m=$("$BIN/memplan-remat" --input "$TMP/g.json" --budget="$b" --policy=optimal --time-limit="$LIMIT" 2>&1 || true)
    if ! grep -q "cost=" <<< "$m"; then
      echo "| $name | $nodes | $f | $b | none in ${LIMIT} s | – | – | – |"
      continue
    fi
    mc=$(field cost "$m")
    g=$(field cost "$("$BIN/memplan-remat" --input "$TMP/g.json" --budget="$b")")
    sq=$("$BIN/memplan-remat" --input "$TMP/g.json" --policy=sqrt)
    sqr=over
    [ "$(field peak "$sq")" -le "$b" ] && sqr=$(ratio "$(field cost "$sq")" "$mc")
    echo "| $name | $nodes | $f | $b | $mc ($(field optimal "$m")) | $(seconds "$m") | $g ($(ratio "$g" "$mc")) | $sqr |"
  done
done <<'MODELS'
mlp --model=mlp --depth=4 --width=32 --batch=32
transformer --model=transformer --layers=2 --batch=4 --seq=8
cnn --model=cnn --blocks=2 --batch=4
unet --model=unet --batch=2
MODELS
