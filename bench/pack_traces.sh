#!/usr/bin/env bash
# Every packing rule memplan-pack offers, `best` and `exact` (both at their
# default work bound) on three kinds of traces, as issue 15 asks:
#   - zoo exports: the buffers of a zoo model's planned @train_step
#     (memplan-pack-arena's export-csv), and the CNN, U-Net, MLP and CNN
#     again in one trace, each starting halfway through the one before
#     ("overlap": several peaks, lifetimes crossing from one into the next);
#   - irregular traces (bench/gen_irregular_trace.py): optimum unknown;
#   - planted traces (bench/gen_planted_trace.py): irregular traces built
#     from a packing at the lower bound, so LB is the optimum.
# Prints a markdown table: arena/LB, arena/proven lower bound (the proven
# gap), packing time, work units.
# usage: bench/pack_traces.sh [zoo|irregular|planted ...]   (default: all)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/build/bin"
source "$ROOT/bench/common.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ALGORITHMS="greedy-time greedy-size first-fit-size first-fit-start best exact"

export_zoo() { # model out.csv
  local knobs=${ZOO_MODELS[$1]}
  # shellcheck disable=SC2086
  "$BIN/memplan-zoo" $knobs -o "$TMP/m.mlir"
  "$BIN/memplan-opt" --memplan-prepare --memplan-remove-dead-work \
    --memplan-bufferize-modules \
    --memplan-pack-arena="algorithm=greedy-time export-csv=$TMP/x.csv" \
    "$TMP/m.mlir" -o /dev/null
  # One file per arena when there are several: keep the step's.
  if [ -f "$TMP/x.train_step.csv" ]; then
    mv "$TMP/x.train_step.csv" "$2"
  elif [ -f "$TMP/x.csv" ]; then
    mv "$TMP/x.csv" "$2"
  else
    echo "pack_traces.sh: $1: no arena for @train_step was exported" >&2
    exit 1
  fi
  rm -f "$TMP"/x.*.csv
}

row() { # name csv
  local buffers
  buffers=$(($(wc -l < "$2") - 1))
  for algo in $ALGORITHMS; do
    local line
    line=$("$BIN/memplan-pack" --input "$2" --algorithm="$algo" --validate --quiet)
    local arena lb proven
    arena=$(field arena "$line")
    lb=$(field lower_bound "$line")
    proven=$(field proven_lower_bound "$line")
    echo "| $1 | $buffers | $algo | $arena | $lb | $(field ratio "$line") | $(ratio "$arena" "$proven") | $(field time_ms "$line") | $(field work "$line") |"
  done
}

echo "| trace | buffers | algorithm | arena | LB | arena/LB | proven gap | pack ms | work |"
echo "|---|---|---|---|---|---|---|---|---|"
for kind in "${@:-zoo irregular planted}"; do
  for k in $kind; do
    case $k in
    zoo)
      parts=()
      for model in gpt2-small resnet-like unet mlp-wide; do
        export_zoo "$model" "$TMP/$model.csv"
        row "$model" "$TMP/$model.csv"
        [ "$model" = gpt2-small ] || parts+=("$TMP/$model.csv")
      done
      # GPT-2's peak would dwarf the others': overlap the three others, and
      # the CNN again after them.
      python3 "$ROOT/test/Utils/concat-traces.py" --overlap "${parts[@]}" \
        "${parts[0]}" > "$TMP/overlap.csv"
      row "overlap" "$TMP/overlap.csv"
      ;;
    irregular)
      for n in 1000 10000 100000; do
        python3 "$ROOT/bench/gen_irregular_trace.py" "$n" --seed 1 > "$TMP/i.csv"
        row "irregular $n" "$TMP/i.csv"
      done
      ;;
    planted)
      # Pieces cut so that about 10^3, 10^4 and 10^5 buffers are kept (about
      # half of them at drop 0.5, a fifth at drop 0.8).
      for n in 1000 10000 100000; do
        for drop in 0.5 0.8; do
          pieces=$((n * 2))
          [ "$drop" = 0.8 ] && pieces=$((n * 5))
          python3 "$ROOT/bench/gen_planted_trace.py" "$pieces" --seed 1 \
            --drop "$drop" > "$TMP/p.csv" 2> /dev/null
          row "planted $pieces pieces, drop $drop" "$TMP/p.csv"
        done
      done
      ;;
    *)
      echo "pack_traces.sh: unknown kind '$k' (zoo, irregular, planted)" >&2
      exit 2
      ;;
    esac
  done
done
