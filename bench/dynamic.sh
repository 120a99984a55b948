#!/usr/bin/env bash
# Dynamic batch (issue 16): one plan for every batch size. Plans a zoo model
# with --dynamic=batch through --memplan-pipeline and prints, per batch size,
# the lower bound (peak live bytes at that size) and arena/LB for
#   partitions  tract's scheme (symbolic-algorithm=partitions)
#   ordered     memplan's order kept from a packing at the representative
#               size (the bound)
#   auto        what runs: the smaller of the two, chosen at run time
#   static      a plan packed for exactly that size (what a compiler that
#               recompiles per shape gets)
#   bounded     one static plan at the bound, used for every size (XLA)
# usage: [MODEL=mlp|cnn|transformer] [BOUND=N] [SIZES="1 8 ..."]
#        bench/dynamic.sh [knobs...]
# (run after building; the default is an MNIST-sized MLP: --depth=4
# --width=1024 --inputs=784 --classes=10, bound 4096, sizes 1 8 64 512 4096)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/build/bin"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
MODEL=${MODEL:-mlp}
if [ $# -eq 0 ] && [ "$MODEL" != mlp ]; then
  echo "bench/dynamic.sh: give the $MODEL's knobs (the defaults are the MLP's)" >&2
  exit 2
fi
KNOBS=${*:-"--depth=4 --width=1024 --inputs=784 --classes=10"}
BOUND=${BOUND:-4096}
SIZES=${SIZES:-"1 8 64 512 4096"}
EVAL=$(for s in $SIZES; do printf 'B=%s;' "$s"; done)
# shellcheck disable=SC2086
"$BIN/memplan-zoo" --model="$MODEL" --dynamic=batch $KNOBS -o "$TMP/step.mlir"
"$BIN/memplan-opt" --memplan-pipeline="bounds=B=$BOUND eval=$EVAL report=$TMP/auto.json" \
  "$TMP/step.mlir" -o /dev/null
"$BIN/memplan-opt" --memplan-pipeline="bounded=true bounds=B=$BOUND report=$TMP/bounded.json" \
  "$TMP/step.mlir" -o /dev/null
python3 - "$TMP/auto.json" "$TMP/bounded.json" "$MODEL $KNOBS" "$BOUND" <<'PY'
import json, sys
auto = next(f for f in json.load(open(sys.argv[1]))["functions"] if f["name"] == "train_step")
bounded = next(f for f in json.load(open(sys.argv[2]))["functions"] if f["name"] == "train_step")
print(f"`{sys.argv[3]}`, dynamic batch B, bound B={sys.argv[4]}, "
      f"{len(auto['buffers'])} planned buffers; arena/LB per batch size:\n")
print("| B | LB | partitions | ordered | auto (runs) | static at B | bounded at B=" + sys.argv[4] + " |")
print("|---|---|---|---|---|---|---|")
seen = set()
for p in auto["symbolic"]["points"]:
    b = p["values"]["B"]
    if b in seen:
        continue
    seen.add(b)
    lb = p["lower_bound_bytes"]
    r = lambda x: f"{x / lb:.4f}"
    print(f"| {b} | {lb / 2**20:.2f} MiB | {r(p['partitions_bytes'])} | {r(p['ordered_bytes'])} | "
          f"{r(p['arena_bytes'])} | {r(p['static_bytes'])} | {r(bounded['arena_bytes'])} |")
PY
