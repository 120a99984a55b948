#!/usr/bin/env bash
# The demo: build memplan, then print the lifetimes and the peak of the
# bundled MLP training step (examples/mlp_train_step.mlir).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"

EXAMPLE="${1:-$ROOT/examples/mlp_train_step.mlir}"
echo "== lifetimes of ${EXAMPLE#"$ROOT"/} (steps are half-open [start, end)) =="
"$ROOT/build/bin/memplan-opt" --test-memplan-print-lifetimes "$EXAMPLE" -o /dev/null
OUT="$ROOT/build/demo/$(basename "${EXAMPLE%.mlir}").lifetimes.mlir"
mkdir -p "$(dirname "$OUT")"
"$ROOT/build/bin/memplan-opt" --memplan-annotate-lifetimes "$EXAMPLE" -o "$OUT"
echo "== annotated IR written to ${OUT#"$ROOT"/} =="
