#!/usr/bin/env bash
# Packs generated training-trace-like instances of 10^3 .. 10^6 buffers and
# prints a markdown table: time, peak RSS, arena/LB.
# usage: bench/scale.sh   (run after building; needs /usr/bin/time)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
source "$ROOT/bench/common.sh"
PACK="$ROOT/build/bin/memplan-pack"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "| buffers | algorithm | arena | LB | arena/LB | pack ms | whole run s | peak RSS MB |"
echo "|---|---|---|---|---|---|---|---|"
for n in 1000 10000 100000 1000000; do
  python3 "$ROOT/bench/gen_trace.py" "$n" > "$TMP/t.csv"
  rows=$(($(wc -l < "$TMP/t.csv") - 1))
  for algo in greedy-size greedy-time best; do
    out=$( { /usr/bin/time -f "TIME %e %M" "$PACK" --input "$TMP/t.csv" --algorithm="$algo" --validate; } 2>&1 )
    line=$(grep arena= <<< "$out")
    read -r _ wall rss <<< "$(grep '^TIME' <<< "$out")"
    arena=$(field arena "$line")
    lb=$(field lower_bound "$line")
    ratio=$(field ratio "$line")
    ms=$(field time_ms "$line")
    echo "| $rows | $algo | $arena | $lb | $ratio | $ms | $wall | $((rss / 1024)) |"
  done
done
