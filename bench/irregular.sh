#!/usr/bin/env bash
# Packs irregular traces (bench/gen_irregular_trace.py: several peaks,
# long-lived crossing buffers, sizes over six orders of magnitude, odd sizes)
# of 10^3, 10^4 and 10^5 buffers with the classic greedy rules (best fit and
# first fit, by size and by start) and `best`,
# and prints a markdown table: arena/LB, pack time, whole run.
# usage: bench/irregular.sh [seed]   (run after building; needs /usr/bin/time)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
source "$ROOT/bench/common.sh"
PACK="$ROOT/build/bin/memplan-pack"
SEED="${1:-1}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "| buffers | algorithm | arena | LB | arena/LB | pack ms | work | whole run s |"
echo "|---|---|---|---|---|---|---|---|"
for n in 1000 10000 100000; do
  python3 "$ROOT/bench/gen_irregular_trace.py" "$n" --seed "$SEED" > "$TMP/t.csv"
  for algo in greedy-time greedy-size first-fit-size first-fit-start best; do
    out=$( { /usr/bin/time -f "TIME %e" "$PACK" --input "$TMP/t.csv" --algorithm="$algo" --validate; } 2>&1 )
    line=$(grep arena= <<< "$out")
    wall=$(grep '^TIME' <<< "$out" | cut -d' ' -f2)
    echo "| $n | $algo | $(field arena "$line") | $(field lower_bound "$line") | $(field ratio "$line") | $(field time_ms "$line") | $(field work "$line") | $wall |"
  done
done
