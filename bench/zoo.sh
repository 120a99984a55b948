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
  python3 - "$TMP/$name.json" "$name" "$knobs" "$start" "$end" "$pack" "$buf" <<'PY'
import json, sys
path, name, knobs, start, end, pack, buf = sys.argv[1:]
f = [g for g in json.load(open(path))["functions"] if g["name"] == "train_step"][0]
total = sum(b["size"] for b in f["buffers"])
gb = lambda x: f"{x / 2**30:.2f} GiB"
print(f"| {name} | `{knobs}` | {len(f['buffers'])} | {gb(total)} | {gb(f['lower_bound_bytes'])} | "
      f"{gb(f['arena_bytes'])} | {f['arena_bytes'] / f['lower_bound_bytes']:.4f} | "
      f"{str(f['optimal']).lower()} | {float(end) - float(start):.2f} | {float(pack):.2f} | {float(buf):.2f} |")
PY
done
