#!/usr/bin/env bash
# Dynamic batch for the zoo models memplan-zoo cannot yet emit with a dynamic
# batch (issue 16): each model is planned at batch 64 and 128, each buffer's
# size is recovered as a + c * B from the two exported traces, and
# memplan-bench-symbolic-traces plans the symbolic buffers as
# memplan-pack-arena does and prints arena/LB per batch size for tract's
# partitions, the ordered plan, what runs (the smaller), a static plan for
# exactly that size, and one static plan at the bound B=64 (XLA).
# usage: bench/dynamic_traces.sh [model...]   (names from bench/common.sh)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/build/bin"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$ROOT/bench/common.sh"
trace() { # knobs batch out.csv
  # shellcheck disable=SC2086
  "$BIN/memplan-zoo" $1 --batch="$2" -o "$TMP/m.mlir"
  "$BIN/memplan-opt" --memplan-prepare --memplan-remove-dead-work \
    --memplan-bufferize-modules \
    --memplan-pack-arena="algorithm=greedy-size export-csv=$3" "$TMP/m.mlir" -o /dev/null
}
for name in "${@:-gpt2-small resnet-like unet}"; do
  for model in $name; do
    knobs=$(sed -E 's/--batch=[0-9]+//' <<< "${ZOO_MODELS[$model]}")
    trace "$knobs" 64 "$TMP/a.csv"
    trace "$knobs" 128 "$TMP/b.csv"
    echo "### $model (\`$knobs\`), dynamic batch B"
    "$BIN/memplan-bench-symbolic-traces" "$TMP/a.csv" 64 "$TMP/b.csv" 128 \
      --bound=64 --sizes=1,4,16,64
    echo
  done
done
