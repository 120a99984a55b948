#!/usr/bin/env bash
# The demo: build memplan; print the lifetimes and peak of the bundled MLP
# training step; plan it with the one-flag pipeline (bufferize, one arena,
# verify, lower to LLVM), writing the JSON and HTML reports; then generate a
# GPT-2-small-sized training step with memplan-zoo and plan that too.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"

OUT="$ROOT/build/demo"
mkdir -p "$OUT"
BIN="$ROOT/build/bin"
rel() { echo "${1#"$ROOT"/}"; }
summary() {
  python3 - "$1" <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["functions"]:
    if not f["buffers"]:
        continue
    lb = f["lower_bound_bytes"]
    print(f"  @{f['name']}: {len(f['buffers'])} buffers, arena {f['arena_bytes']} B, "
          f"lower bound {lb} B, arena/LB {f['arena_bytes'] / lb:.4f}, "
          f"optimal {str(f['optimal']).lower()}")
PY
}

EXAMPLE="${1:-$ROOT/examples/mlp_train_step.mlir}"
NAME="$(basename "${EXAMPLE%.mlir}")"
echo "== lifetimes of $(rel "$EXAMPLE") (steps are half-open [start, end)) =="
"$BIN/memplan-opt" --test-memplan-print-lifetimes "$EXAMPLE" -o /dev/null

echo "== memplan-opt --memplan-pipeline on $(rel "$EXAMPLE") =="
"$BIN/memplan-opt" "$EXAMPLE" -o "$OUT/$NAME.llvm.mlir" \
  --memplan-pipeline="report=$OUT/$NAME.plan.json html=$OUT/$NAME.plan.html"
summary "$OUT/$NAME.plan.json"
echo "  reports: $(rel "$OUT/$NAME.plan.json"), $(rel "$OUT/$NAME.plan.html"); LLVM-dialect program: $(rel "$OUT/$NAME.llvm.mlir")"

if [ -x "$BIN/memplan-compile" ] && "$BIN/memplan-compile" --help >/dev/null 2>&1 \
   && [ -f "$ROOT/build/lib/libmemplan_cuda_runtime.a" ]; then
  echo "== memplan-compile --target=nvvm: $(rel "$EXAMPLE") and the zoo MLP with its device driver (docs/GPU.md) =="
  "$BIN/memplan-compile" "$EXAMPLE" --target=nvvm --emit=mlir -o "$OUT/$NAME.nvvm.mlir"
  "$BIN/memplan-compile" "$EXAMPLE" --target=nvvm --emit=obj -o "$OUT/$NAME.nvvm.o"
  echo "  $(grep -c 'gpu.binary @' "$OUT/$NAME.nvvm.mlir") GPU kernels (sm_90 fatbins) + host code: $(rel "$OUT/$NAME.nvvm.o")"
  "$BIN/memplan-zoo" --model=mlp --main=run --target=nvvm --steps=10 -o "$OUT/mlp-device.mlir"
  "$BIN/memplan-compile" "$OUT/mlp-device.mlir" -o "$OUT/mlp-device"
  echo "  program: $(rel "$OUT/mlp-device") (10 steps; run it on a machine with an NVIDIA driver; needs: $(readelf -d "$OUT/mlp-device" | grep -o 'libcuda[^]]*'))"
else
  echo "== (no CUDA toolkit found at build time: skipping the target=nvvm demo) =="
fi

ZOO="--model=transformer --layers=12 --d-model=768 --heads=12 --seq=1024 --batch=8 --vocab=50257"
echo "== memplan-zoo $ZOO (a GPT-2-small-sized training step) =="
# shellcheck disable=SC2086
"$BIN/memplan-zoo" $ZOO -o "$OUT/gpt2-small.mlir"
start=$(date +%s.%N)
"$BIN/memplan-opt" "$OUT/gpt2-small.mlir" -o /dev/null \
  --memplan-pipeline="report=$OUT/gpt2-small.plan.json html=$OUT/gpt2-small.plan.html explain=$OUT/gpt2-small.explain.txt"
end=$(date +%s.%N)
summary "$OUT/gpt2-small.plan.json"
python3 -c "import sys; print(f'  whole pipeline: {float(sys.argv[2]) - float(sys.argv[1]):.2f} s')" "$start" "$end"
echo "  why that much memory (explain=):"
sed 's/^/    /' "$OUT/gpt2-small.explain.txt"
echo "  reports: $(rel "$OUT/gpt2-small.plan.json"), open $(rel "$OUT/gpt2-small.plan.html") in a browser"
