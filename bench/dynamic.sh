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
# usage: [MODEL=mlp|cnn|unet|transformer] [BOUND=N] [SIZES="1 8 ..."]
#        [SEQ=1] bench/dynamic.sh [knobs...]
# With SEQ=1 (the transformer) the sequence length is dynamic too
# (--dynamic=batch,seq; its bound is --seq, derived from the positional
# table) and SIZES are B:S pairs ("1:64 8:1024").
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
DYN=batch
[ "${SEQ:-0}" = 1 ] && DYN=batch,seq
EVAL=$(for s in $SIZES; do
  if [ "$DYN" = batch,seq ]; then printf 'B=%s,S=%s;' "${s%%:*}" "${s##*:}"; else printf 'B=%s;' "$s"; fi
done)
# shellcheck disable=SC2086
"$BIN/memplan-zoo" --model="$MODEL" --dynamic=$DYN $KNOBS -o "$TMP/step.mlir"
"$BIN/memplan-opt" --memplan-pipeline="bounds=B=$BOUND eval=$EVAL report=$TMP/auto.json" \
  "$TMP/step.mlir" -o /dev/null
"$BIN/memplan-opt" --memplan-pipeline="bounded=true bounds=B=$BOUND report=$TMP/bounded.json" \
  "$TMP/step.mlir" -o /dev/null
python3 - "$TMP/auto.json" "$TMP/bounded.json" "$MODEL $KNOBS" "$BOUND" <<'PY'
import json, sys
auto = next(f for f in json.load(open(sys.argv[1]))["functions"] if f["name"] == "train_step")
bounded = next(f for f in json.load(open(sys.argv[2]))["functions"] if f["name"] == "train_step")
names = [s["name"] for s in auto["symbolic"]["symbols"]]
bounds = ", ".join(f"{s['name']}<={s['bound']}" for s in auto["symbolic"]["symbols"] if "bound" in s)
print(f"`{sys.argv[3]}`, dynamic {', '.join(names)}, bounds {bounds}, "
      f"{len(auto['buffers'])} planned buffers; arena/LB per size:\n")
print("| " + ", ".join(names) + " | LB | partitions | ordered | auto (runs) | static there | bounded |")
print("|---|---|---|---|---|---|---|")
seen = set()
for p in auto["symbolic"]["points"]:
    b = ", ".join(str(p["values"].get(n, "?")) for n in names)
    if b in seen:
        continue
    seen.add(b)
    lb = p["lower_bound_bytes"]
    r = lambda x: f"{x / lb:.4f}"
    print(f"| {b} | {lb / 2**20:.2f} MiB | {r(p['partitions_bytes'])} | {r(p['ordered_bytes'])} | "
          f"{r(p['arena_bytes'])} | {r(p['static_bytes'])} | {r(bounded['arena_bytes'])} |")
PY
