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
