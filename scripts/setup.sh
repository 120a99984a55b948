#!/usr/bin/env bash
# Installs what memplan needs on Debian 12 (when missing) and builds it in
# build/. Sourced by demo.sh and test.sh; safe to run again.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$ROOT/build"

need=()
[ -f /usr/lib/llvm-22/lib/cmake/mlir/MLIRConfig.cmake ] || need+=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools)
[ -x /usr/lib/llvm-22/bin/FileCheck ] || need+=(llvm-22-tools)
[ -x /usr/lib/llvm-22/bin/mlir-runner ] || need+=(mlir-22-tools)
command -v cmake >/dev/null || need+=(cmake)
command -v ninja >/dev/null || need+=(ninja-build)
command -v g++ >/dev/null || need+=(g++)
command -v ld.lld >/dev/null || need+=(lld)
command -v python3 >/dev/null || need+=(python3)
[ -f /usr/lib/x86_64-linux-gnu/cmake/GTest/GTestConfig.cmake ] || need+=(libgtest-dev)
# Optional for the build (the `optimal` remat policy), installed so the tests
# cover it.
command -v pkg-config >/dev/null || need+=(pkg-config)
[ -f /usr/include/coin/Cbc_C_Interface.h ] || need+=(coinor-libcbc-dev)
if [ ${#need[@]} -gt 0 ]; then
  echo "memplan: installing ${need[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_USE_LINKER=lld >/dev/null
fi
ninja -C "$BUILD" >&2
