# Shared by the bench scripts (sourced, not run).
# shellcheck shell=bash

# field NAME LINE: the value of NAME=value in a summary line (NAME must start
# the line or follow a space, so `cost` does not match `baseline_cost`).
field() { sed -E "s/(^|.* )$1=([^ ]+).*/\\2/" <<< "$2"; }

# Realistic-size zoo models (memplan-zoo knobs), shared by zoo.sh and
# zoo_remat.sh.
declare -A ZOO_MODELS=(
  [gpt2-small]="--model=transformer --layers=12 --d-model=768 --heads=12 --seq=1024 --batch=8 --vocab=50257"
  [gpt2-4layer]="--model=transformer --layers=4 --d-model=768 --heads=12 --seq=1024 --batch=8 --vocab=50257"
  [resnet-like]="--model=cnn --stages=4 --blocks=4 --channels=64 --image=56 --classes=1000 --batch=32"
  [unet]="--model=unet --levels=4 --channels=64 --image=256 --batch=8 --in-channels=3 --out-channels=2"
  [mlp-wide]="--model=mlp --depth=16 --width=4096 --inputs=1024 --classes=1000 --batch=512"
)

# ratio A B [DIGITS=4]: A / B with DIGITS decimals.
ratio() { python3 -c "print(f'{$1 / $2:.${3:-4}f}')"; }

# seconds LINE: the time_ms of a summary line, in seconds with one decimal.
seconds() { python3 -c "print(f'{$(field time_ms "$1") / 1000:.1f}')"; }

# remat_bounds REMAT GRAPH: sets P0 (the keep-all peak) and FLOOR (the
# smallest peak the `budget` planner reaches) of a node-link graph, using the
# memplan-remat binary REMAT.
remat_bounds() {
  P0=$(field peak "$("$1" --input "$2")")
  FLOOR=$( ("$1" --input "$2" --budget=0 2>&1 >/dev/null || true) |
    sed -E "s/.*reaches is ([0-9]+) bytes.*/\\1/")
}

# between FLOOR P0 F: the budget FLOOR + F (P0 - FLOOR), in whole bytes.
between() { python3 -c "print(int($1 + $3 * ($2 - $1)))"; }

# report_fields REPORT FUNCTION KEY...: values from FUNCTION's entry of a JSON
# v1 plan report, space-separated (bench/report_fields.py: dotted paths,
# defaults after '=', buffers# and buffers+size).
report_fields() { python3 "$ROOT/bench/report_fields.py" "$@"; }

# gib BYTES: BYTES in GiB with two decimals.
gib() { python3 -c "print(f'{$1 / 2**30:.2f} GiB')"; }
