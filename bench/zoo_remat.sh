#!/usr/bin/env bash
# Remat in the compiler on realistic-size zoo models: --memplan-pipeline with
# budget B = F + f (P0 - F), P0 the packed arena without a budget and F the
# smallest budget memplan reaches (named by its refusal of budget=1). Prints a
# markdown table: arena, liveness peak (the report's lower bound), arena /
# liveness - 1, recompute overhead (recompute cost / baseline cost), compile
# time. Monotone = a smaller f never gives a larger arena nor a smaller
# overhead.
# usage: bench/zoo_remat.sh [MODEL...]   (run after building)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/build/bin"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$ROOT/bench/common.sh"
NAMES=${*:-mlp-wide resnet-like unet gpt2-4layer gpt2-small}
report() {
  report_fields "$1" train_step arena_bytes lower_bound_bytes \
    remat.recompute_cost=0 remat.baseline_cost=1
}
mib() { python3 -c "print(f'{$1 / 2**20:.1f}')"; }
echo "| model | f | budget MiB | arena MiB | liveness MiB | arena/liveness − 1 | recompute overhead | compile s |"
echo "|---|---|---|---|---|---|---|---|"
for name in $NAMES; do
  # shellcheck disable=SC2086
  "$BIN/memplan-zoo" ${ZOO_MODELS[$name]} -o "$TMP/m.mlir"
  "$BIN/memplan-opt" --memplan-pipeline="report=$TMP/r.json" "$TMP/m.mlir" -o /dev/null
  read -r p0 _ _ _ <<< "$(report "$TMP/r.json")"
  floor=$( ("$BIN/memplan-opt" --memplan-pipeline="budget=1" "$TMP/m.mlir" -o /dev/null 2>&1 || true) |
    sed -nE "s/.*the smallest budget .* reaches is ([0-9]+) bytes.*/\\1/p" | head -1)
  echo "| $name | (P0, F) | – | $(mib "$p0") | – | – | – | – |"
  for f in 0.9 0.8 0.5 0.33 0.25; do
    b=$(python3 -c "print(int($floor + $f * ($p0 - $floor)))")
    start=$(date +%s.%N)
    if "$BIN/memplan-opt" --memplan-pipeline="budget=$b report=$TMP/r.json" "$TMP/m.mlir" -o /dev/null 2> "$TMP/err"; then
      end=$(date +%s.%N)
      read -r arena live rc base <<< "$(report "$TMP/r.json")"
      python3 -c "print(f'| $name | $f | {$b / 2**20:.1f} | {$arena / 2**20:.1f} | {$live / 2**20:.1f} | {$arena / $live - 1:.4f} | {$rc / $base:.4f} | {$end - $start:.1f} |')"
    else
      echo "| $name | $f | $(mib "$b") | refused: $(head -c 160 "$TMP/err") | | | | |"
    fi
  done
  echo "| $name | floor | $(mib "$floor") | | | | | |"
done
