#!/usr/bin/env bash
# memplan-remat's policies against the MILP optimum (policy `optimal`, CBC)
# on generated layered graphs (bench/gen_remat_graph.py). Budgets
# B = F + f (P0 - F), P0 the keep-all peak, F the smallest peak the greedy
# `budget` planner reaches. A fixed policy counts only where its peak fits B.
# Prints a markdown table; ratio = policy cost / MILP cost.
# usage: bench/remat_milp.sh [MILP_SECONDS=30] [NODES...=20 30 40 60 100]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/build/bin/memplan-remat"
LIMIT=${1:-30}
shift || true
SIZES=${*:-20 30 40 60 100}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$ROOT/bench/common.sh"
echo "| nodes | f | budget | MILP cost | MILP proven | MILP s | budget ratio | budget ms | sqrt | every-3 | recompute-all |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for n in $SIZES; do
  python3 "$ROOT/bench/gen_remat_graph.py" "$n" > "$TMP/g.json"
  remat_bounds "$BIN" "$TMP/g.json"
  p0=$P0 floor=$FLOOR
  for f in 0.9 0.8 0.5 0.33 0.25; do
    b=$(between "$floor" "$p0" "$f")
    milp=$("$BIN" --input "$TMP/g.json" --budget="$b" --policy=optimal --time-limit="$LIMIT" 2>&1 || true)
    if ! grep -q "cost=" <<< "$milp"; then
      echo "| $n | $f | $b | none in ${LIMIT} s | – | – | – | – | – | – | – |"
      continue
    fi
    mc=$(field cost "$milp")
    row="| $n | $f | $b | $mc | $(field optimal "$milp") | $(seconds "$milp")"
    g=$("$BIN" --input "$TMP/g.json" --budget="$b")
    row="$row | $(ratio "$(field cost "$g")" "$mc") | $(field time_ms "$g")"
    for p in sqrt "every-n --every=3" recompute-all; do
      # shellcheck disable=SC2086
      line=$("$BIN" --input "$TMP/g.json" --policy=$p)
      if [ "$(field peak "$line")" -le "$b" ]; then
        row="$row | $(ratio "$(field cost "$line")" "$mc")"
      else
        row="$row | over"
      fi
    done
    echo "$row |"
  done
done
