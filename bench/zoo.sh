#!/usr/bin/env bash
# Plans realistic-size zoo models with --memplan-pipeline and prints a
# markdown table: buffers, sum of buffer sizes (no reuse), LB, arena,
# arena/LB, whole-pipeline time, and the slowest stages (--mlir-timing).
# usage: bench/zoo.sh   (run after building)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/build/bin"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$ROOT/bench/common.sh"
echo "| model | knobs | buffers | sum of sizes (no reuse) | LB | arena | arena/LB | optimal | pipeline s | pack s | bufferize s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for name in gpt2-small resnet-like unet; do
  knobs=${ZOO_MODELS[$name]}
  # shellcheck disable=SC2086
  "$BIN/memplan-zoo" $knobs -o "$TMP/$name.mlir"
  start=$(date +%s.%N)
  "$BIN/memplan-opt" --memplan-pipeline="report=$TMP/$name.json" --mlir-timing \
    "$TMP/$name.mlir" -o /dev/null 2> "$TMP/$name.timing"
  end=$(date +%s.%N)
  pack=$(awk '/PackArenaPass/ {print $1}' "$TMP/$name.timing")
  buf=$(awk '/OneShotBufferizePass/ {print $1}' "$TMP/$name.timing")
  read -r n total lb arena optimal <<< "$(report_fields "$TMP/$name.json" train_step \
    'buffers#' 'buffers+size' lower_bound_bytes arena_bytes optimal)"
  echo "| $name | \`$knobs\` | $n | $(gib "$total") | $(gib "$lb") | $(gib "$arena") |" \
    "$(ratio "$arena" "$lb") | $optimal | $(python3 -c "print(f'{$end - $start:.2f}')") |" \
    "$(python3 -c "print(f'{$pack:.2f}')") | $(python3 -c "print(f'{$buf:.2f}')") |"
done
