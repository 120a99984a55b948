#!/usr/bin/env bash
# Packs every MiniMalloc "challenging" instance with each algorithm and prints
# a markdown table: arena, lower bound, ratio, time, work, optimal.
# usage: MINIMALLOC_CHALLENGING=<dir> bench/minimalloc.sh [work-limit]
#   (work units of best and exact, default 500000000 = memplan-pack's default,
#   about 1 s on the CI machine; the plans are the same on any machine)
#   <dir>: the *.csv instances of MiniMalloc's "challenging" suite (published
#   with MiniMalloc, not part of this repository). Run after building.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
source "$ROOT/bench/common.sh"
PACK="$ROOT/build/bin/memplan-pack"
DIR="${MINIMALLOC_CHALLENGING:-}"
if [ -z "$DIR" ] || ! ls "$DIR"/*.csv >/dev/null 2>&1; then
  echo "bench/minimalloc.sh: set MINIMALLOC_CHALLENGING to the directory of" \
    "MiniMalloc's challenging-suite CSV files" >&2
  exit 2
fi
LIMIT="${1:-500000000}"
echo "| instance | buffers | LB | algorithm | arena | arena/LB | ms | work | optimal |"
echo "|---|---|---|---|---|---|---|---|---|"
for f in "$DIR"/*.csv; do
  name=$(basename "$f" .csv)
  n=$(($(wc -l < "$f") - 1))
  for algo in greedy-size greedy-time best exact; do
    line=$("$PACK" --input "$f" --algorithm="$algo" --work-limit="$LIMIT" --validate)
    arena=$(field arena "$line")
    lb=$(field lower_bound "$line")
    ratio=$(field ratio "$line")
    opt=$(field optimal "$line")
    ms=$(field time_ms "$line")
    echo "| ${name%%.*} | $n | $lb | $algo | $arena | $ratio | $ms | $(field work "$line") | $opt |"
  done
done
