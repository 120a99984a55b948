#!/usr/bin/env bash
# bench/gpu/prepare.sh DIR [toy|real|all]
#
# Builds, on a machine with MLIR (no GPU needed), everything the GPU suite
# and the device benchmark run on a machine that has only an NVIDIA driver:
#   DIR/bin/NAME        linked GPU programs (memplan-compile --target=nvvm;
#                       they need libc, libstdc++ and libcuda.so.1 only)
#   DIR/ref/NAME.cpu    the CPU pipeline's output of the same step
#                       (mlir-runner), for the GPU-vs-CPU comparison
#   DIR/report/NAME.json  the plan reports (arena, LB, budget)
#   DIR/programs        one line per program: NAME (run order)
#   DIR/twins           the real models, one line each: NAME and the
#                       memplan-zoo/torch_twins.py knobs (run.sh runs each
#                       twin; check.sh requires it)
#   DIR/twins.toy       the same for the toy models (run with TOY_TWINS=1)
#   DIR/bench           run.sh and torch_twins.py
# Then carry DIR to the GPU machine, run bench/gpu/run.sh there, and check
# the results here with bench/gpu/check.sh (docs/GPU.md, "Running the GPU
# suite on a machine without MLIR").
#
# toy: the GPU suite of test/Integration/GPU at the same toy sizes
#      (planned vs unplanned, GPU vs CPU, dynamic shapes at several sizes,
#      budgets 0.9/0.5, a 10-step loop);
# real: issue 19's device benchmark: the GPT-2-small-sized transformer, the
#      ResNet-like CNN and the U-Net of docs/benchmarks.md, planned at no
#      budget and at 0.5 and 0.33 of P0, each for $REAL_STEPS steps (default
#      3) printing each step's loss, and unplanned for one step.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=../common.sh
source "$ROOT/bench/common.sh" # ZOO_MODELS, report_fields
BIN="${MEMPLAN_BIN:-$ROOT/build/bin}"
LLVM_BIN=/usr/lib/llvm-22/bin
LIBS="-shared-libs=/usr/lib/llvm-22/lib/libmlir_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so"
[ $# -ge 1 ] || { sed -n '2,23p' "$0" >&2; exit 2; }
DIR="$1"
WHAT="${2:-all}"
case "$WHAT" in toy|real|all) ;; *) echo "prepare.sh: unknown set '$WHAT' (toy, real or all)" >&2; exit 2 ;; esac
REAL_STEPS="${REAL_STEPS:-3}"
# A fresh folder: stale programs or reports would be run and tabulated.
rm -rf "$DIR/bin" "$DIR/ref" "$DIR/report" "$DIR/mlir" "$DIR/bench"
mkdir -p "$DIR/bin" "$DIR/ref" "$DIR/report" "$DIR/mlir" "$DIR/bench"
: >"$DIR/programs"
: >"$DIR/twins"
: >"$DIR/twins.toy"
cp "$ROOT"/bench/gpu/run.sh "$ROOT"/bench/gpu/torch_twins.py "$DIR/bench/"

log() { echo "prepare: $*" >&2; }

# compile NAME ZOO-MLIR [memplan-compile options...]
compile() {
  local name="$1" mlir="$2"
  shift 2
  local t0=$SECONDS
  "$BIN/memplan-compile" "$mlir" -o "$DIR/bin/$name" "$@" || return 1
  strip "$DIR/bin/$name" || return 1
  echo "$name" >>"$DIR/programs"
  log "$name: $((SECONDS - t0)) s, $(stat -c %s "$DIR/bin/$name") bytes"
}

# cpuref NAME ZOO-ARGS...: the CPU pipeline's output of the same step.
cpuref() {
  local name="$1"
  shift
  "$BIN/memplan-zoo" "$@" --main=run | "$BIN/memplan-opt" --memplan-pipeline |
    "$LLVM_BIN/mlir-runner" -e main -entry-point-result=void "$LIBS" >"$DIR/ref/$name.cpu"
}

# arena NAME: train_step's packed arena in the report of NAME.
arena() { report_fields "$DIR/report/$1.json" train_step arena_bytes; }

if [ "$WHAT" != real ]; then
  # lit's cuda-gpu probe: a PTX kernel loaded, launched and read back.
  cp "$BIN/memplan-cuda-probe" "$DIR/bin/probe"
  echo probe >>"$DIR/programs"
  # test/Integration/GPU/zoo-gpu.test, and zoo-gpu-dynamic.test (the *dyn
  # programs: dynamic shapes, several sizes in one run, the arena growing at
  # run time; they have no PyTorch twins).
  for spec in "mlp:--model=mlp --depth=3 --width=12" \
              "gpt:--model=transformer --layers=2" \
              "cnn:--model=cnn --stages=2 --blocks=2" \
              "unet:--model=unet --levels=2" \
              "mlpdyn:--model=mlp --depth=3 --width=12 --dynamic=batch --run-batches=2,7,16" \
              "cnndyn:--model=cnn --stages=2 --blocks=2 --dynamic=batch --run-batches=1,3" \
              "gptdyn:--model=transformer --layers=1 --d-model=16 --heads=2 --seq=8 --vocab=11 --dynamic=batch,seq --run-batches=1,3"; do
    name="${spec%%:*}"
    args="${spec#*:}"
    # shellcheck disable=SC2086
    "$BIN/memplan-zoo" $args --main=run --target=nvvm >"$DIR/mlir/$name.mlir"
    compile "$name.planned" "$DIR/mlir/$name.mlir"
    compile "$name.unplanned" "$DIR/mlir/$name.mlir" --no-plan
    # shellcheck disable=SC2086
    cpuref "$name" $args
    case "$name" in
    *dyn) ;;
    *) echo "$name $args" >>"$DIR/twins.toy" ;;
    esac
  done
  # zoo-gpu-dynamic.test's transformer: one program per variant, its batch
  # and sequence length read from the environment at run time. Each size is
  # a small wrapper (gptenvBS.planned / .unplanned, listed in DIR/programs)
  # that sets MEMPLAN_BATCH=B MEMPLAN_SEQ=S and runs the one program; the
  # CPU reference is memplan-compile --target=cpu's program at the same size.
  envargs="--model=transformer --layers=1 --d-model=16 --heads=2 --seq=8 --vocab=11 --dynamic=batch,seq"
  # shellcheck disable=SC2086
  "$BIN/memplan-zoo" $envargs --main=run --target=nvvm >"$DIR/mlir/gptenv.mlir"
  # shellcheck disable=SC2086
  "$BIN/memplan-zoo" $envargs --main=run >"$DIR/mlir/gptenv.cpu.mlir"
  "$BIN/memplan-compile" "$DIR/mlir/gptenv.mlir" -o "$DIR/bin/gptenv.planned"
  "$BIN/memplan-compile" "$DIR/mlir/gptenv.mlir" --no-plan -o "$DIR/bin/gptenv.unplanned"
  "$BIN/memplan-compile" "$DIR/mlir/gptenv.cpu.mlir" --target=cpu -o "$DIR/mlir/gptenv.cpu"
  strip "$DIR/bin/gptenv.planned" "$DIR/bin/gptenv.unplanned"
  for bs in "1 3" "2 8" "3 5"; do
    read -r b s <<<"$bs"
    for v in planned unplanned; do
      printf '#!/bin/sh\nMEMPLAN_BATCH=%s MEMPLAN_SEQ=%s exec "$(dirname "$0")/gptenv.%s" "$@"\n' \
        "$b" "$s" "$v" >"$DIR/bin/gptenv$b$s.$v"
      chmod +x "$DIR/bin/gptenv$b$s.$v"
      echo "gptenv$b$s.$v" >>"$DIR/programs"
    done
    MEMPLAN_BATCH=$b MEMPLAN_SEQ=$s "$DIR/mlir/gptenv.cpu" >"$DIR/ref/gptenv$b$s.cpu"
  done
  log "gptenv: one planned and one unplanned program, run at (B, S) = (1, 3), (2, 8), (3, 5)"
  # test/Integration/GPU/budgets-and-steps.test
  for spec in "mlpb:--model=mlp --depth=8 --width=32 --batch=128" \
              "cnnb:--model=cnn --blocks=4 --batch=4"; do
    name="${spec%%:*}"
    args="${spec#*:}"
    # shellcheck disable=SC2086
    "$BIN/memplan-zoo" $args --main=run --target=nvvm >"$DIR/mlir/$name.mlir"
    compile "$name.unplanned" "$DIR/mlir/$name.mlir" --no-plan
    compile "$name.p0" "$DIR/mlir/$name.mlir" --options="report=$DIR/report/$name.p0.json"
    p0=$(arena "$name.p0")
    for f in 090 050; do
      budget=$(( p0 * 10#$f / 100 ))
      compile "$name.$f" "$DIR/mlir/$name.mlir" --options="budget=$budget report=$DIR/report/$name.$f.json"
    done
  done
  "$BIN/memplan-zoo" --model=mlp --depth=3 --width=12 --main=run --target=nvvm --steps=10 >"$DIR/mlir/steps.mlir"
  compile steps "$DIR/mlir/steps.mlir"
fi

if [ "$WHAT" != toy ]; then
  # The realistic sizes of bench/common.sh (the U-Net as unet-real, apart
  # from the toy unet's programs).
  for model in gpt2-small resnet-like unet; do
    name=$model
    [ "$model" = unet ] && name=unet-real
    args="${ZOO_MODELS[$model]}"
    # shellcheck disable=SC2086
    "$BIN/memplan-zoo" $args --main=run --target=nvvm --steps="$REAL_STEPS" --print=loss >"$DIR/mlir/$name.mlir"
    # The unplanned reference runs one step: it allocates every buffer of
    # the step and frees none (57 GB for GPT-2-small), so a second step
    # would not fit; its loss is compared with step 1's of the others.
    # shellcheck disable=SC2086
    "$BIN/memplan-zoo" $args --main=run --target=nvvm --steps=1 --print=loss >"$DIR/mlir/$name.1.mlir"
    compile "$name.p0" "$DIR/mlir/$name.mlir" --options="report=$DIR/report/$name.p0.json"
    compile "$name.unplanned" "$DIR/mlir/$name.1.mlir" --no-plan
    p0=$(arena "$name.p0")
    for f in 050 033; do
      budget=$(( p0 * 10#$f / 100 ))
      # A budget below what remat can reach is refused (the error names the
      # smallest budget memplan reaches): recorded, and the rest goes on.
      if compile "$name.$f" "$DIR/mlir/$name.mlir" --options="budget=$budget report=$DIR/report/$name.$f.json" \
        2>"$DIR/report/$name.$f.log"; then
        cat "$DIR/report/$name.$f.log" >&2
      elif grep -q 'is infeasible for .*the smallest budget' "$DIR/report/$name.$f.log"; then
        grep -m1 'error:' "$DIR/report/$name.$f.log" | cut -c1-300 >"$DIR/report/$name.$f.refused"
        rm -f "$DIR/report/$name.$f.json"
        log "$name.$f: refused: $(cat "$DIR/report/$name.$f.refused")"
      else
        cat "$DIR/report/$name.$f.log" >&2
        log "$name.$f: the compile failed"
        exit 1
      fi
    done
    echo "$name $args --steps=$REAL_STEPS" >>"$DIR/twins"
  done
fi
rm -rf "$DIR/mlir"
log "done: $(wc -l <"$DIR/programs") programs, $(du -sh "$DIR" | cut -f1)"
