#!/usr/bin/env bash
# The demo: build memplan, print the lifetimes and the peak of the bundled MLP
# training step, then bufferize it (upstream), pack each function's buffers
# into one arena, verify the plan, and write the JSON and HTML reports.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"

EXAMPLE="${1:-$ROOT/examples/mlp_train_step.mlir}"
NAME="$(basename "${EXAMPLE%.mlir}")"
OUT="$ROOT/build/demo"
mkdir -p "$OUT"
OPT="$ROOT/build/bin/memplan-opt"
rel() { echo "${1#"$ROOT"/}"; }

echo "== lifetimes of $(rel "$EXAMPLE") (steps are half-open [start, end)) =="
"$OPT" --test-memplan-print-lifetimes "$EXAMPLE" -o /dev/null

echo "== packing: one-shot-bufferize, memplan-pack-arena, memplan-verify-plan =="
/usr/lib/llvm-22/bin/mlir-opt \
  --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
  "$EXAMPLE" |
  "$OPT" --memplan-pack-arena="report=$OUT/$NAME.plan.json html=$OUT/$NAME.plan.html" \
    --memplan-verify-plan -o "$OUT/$NAME.planned.mlir"
python3 - "$OUT/$NAME.plan.json" <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["functions"]:
    lb = f["lower_bound_bytes"]
    ratio = f["arena_bytes"] / lb if lb else 1.0
    print(f"@{f['name']}: {len(f['buffers'])} buffers, arena {f['arena_bytes']} B, "
          f"lower bound {lb} B, arena/LB {ratio:.4f}, optimal {str(f['optimal']).lower()}")
PY
echo "== plan written to $(rel "$OUT/$NAME.plan.json"), picture to $(rel "$OUT/$NAME.plan.html"), planned IR to $(rel "$OUT/$NAME.planned.mlir") =="
