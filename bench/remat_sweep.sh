#!/usr/bin/env bash
# memplan-remat on generated layered graphs (bench/gen_remat_graph.py): each
# fixed policy, then the budget planner at B = F + f (P0 - F) for f in
# {0.9, 0.8, 0.5, 0.33, 0.25}, where P0 is the keep-all peak and F the
# smallest peak the planner reaches. Prints a markdown table.
# usage: bench/remat_sweep.sh   (run after building)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/build/bin/memplan-remat"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$ROOT/bench/common.sh"
echo "| nodes | policy | budget | peak | overhead | ms |"
echo "|---|---|---|---|---|---|"
for n in 100 350 1000; do
  python3 "$ROOT/bench/gen_remat_graph.py" "$n" > "$TMP/g.json"
  for p in keep-all recompute-all sqrt "every-n --every=3"; do
    # shellcheck disable=SC2086
    line=$("$BIN" --input "$TMP/g.json" --policy=$p)
    echo "| $n | ${p/ --every=/ n=} | none | $(field peak "$line") | $(field overhead "$line") | $(field time_ms "$line") |"
  done
  remat_bounds "$BIN" "$TMP/g.json"
  p0=$P0 floor=$FLOOR
  for f in 0.9 0.8 0.5 0.33 0.25; do
    b=$(between "$floor" "$p0" "$f")
    line=$("$BIN" --input "$TMP/g.json" --budget="$b")
    echo "| $n | budget f=$f | $b | $(field peak "$line") | $(field overhead "$line") | $(field time_ms "$line") |"
  done
  echo "| $n | budget (floor) | $floor | – | – | – |"
done
