#!/usr/bin/env bash
# Chain training graphs (bench/gen_chain_graph.py): the greedy `budget`
# planner, the `chain` policy (revolve-style DP turned into a schedule) and
# the MILP optimum (`optimal`) at B = F + f (P0 - F), F the greedy planner's
# floor. Prints a markdown table of costs and ratios to the MILP.
# usage: bench/remat_chain_graphs.sh [MILP_SECONDS=30]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/build/bin/memplan-remat"
LIMIT=${1:-30}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$ROOT/bench/common.sh"
echo "| chain | f | budget | MILP cost (proven) | MILP s | budget: cost (ratio) | chain: cost (ratio) |"
echo "|---|---|---|---|---|---|---|"
for args in "12" "12 --random" "20 --random"; do
  # shellcheck disable=SC2086
  python3 "$ROOT/bench/gen_chain_graph.py" $args > "$TMP/g.json"
  remat_bounds "$BIN" "$TMP/g.json"
  p0=$P0 floor=$FLOOR
  for f in 0.8 0.5 0.25 0; do
    b=$(between "$floor" "$p0" "$f")
    m=$("$BIN" --input "$TMP/g.json" --budget="$b" --policy=optimal --time-limit="$LIMIT")
    mc=$(field cost "$m")
    g=$(field cost "$("$BIN" --input "$TMP/g.json" --budget="$b")")
    c=$(field cost "$("$BIN" --input "$TMP/g.json" --budget="$b" --policy=chain)")
    echo "| N=${args/ --random/ random} | $f | $b | $mc ($(field optimal "$m")) | $(seconds "$m") | $g ($(ratio "$g" "$mc" 3)) | $c ($(ratio "$c" "$mc" 3)) |"
  done
done
