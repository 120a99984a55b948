#!/usr/bin/env bash
# fuzz.sh [-n COUNT] [-s SEED] [-b BIN] [-o SAVE] [-- DRIVER-ARGS...]
#
# Runs the three seeded fuzz drivers of bench/fuzz/ one after the other:
# fuzz_pack.py (memplan-pack), fuzz_remat.py (memplan-remat) and fuzz_ir.py
# (memplan-opt), each for COUNT cases (default 10000) of seed SEED (default
# 1), with the tools of BIN (default build/bin) and failing cases saved under
# SAVE (default /tmp/memplan-fuzz-failures). Arguments after `--` go to every
# driver (e.g. `-- -v --timeout 120`). A run is reproducible:
# the same COUNT and SEED run the same cases. Prints each driver's summary
# line; exits 1 when any driver found a failure.
#
# Rough speed on 2 cores (cases per second): pack 40, remat 20, ir 7.
set -u
here=$(cd "$(dirname "$0")" && pwd)
count=10000
seed=1
bin="$here/../build/bin"
save=/tmp/memplan-fuzz-failures
while [ $# -gt 0 ]; do
  case "$1" in
    -n) count=$2; shift 2 ;;
    -s) seed=$2; shift 2 ;;
    -b) bin=$2; shift 2 ;;
    -o) save=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fuzz.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

status=0
for driver in fuzz_pack fuzz_remat fuzz_ir; do
  start=$(date +%s)
  python3 "$here/fuzz/$driver.py" --seed "$seed" --count "$count" \
    --bin "$bin" --save "$save" "$@" || status=1
  echo "$driver: $(( $(date +%s) - start )) s"
done
[ $status -eq 0 ] || echo "fuzz.sh: failures saved under $save"
exit $status
