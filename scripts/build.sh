#!/usr/bin/env bash
# Configures and builds GrowBench into ./build (Release, Ninja). Extra arguments go to the
# CMake configure step, e.g. scripts/build.sh -DGB_BUILD_GUI=OFF. GB_TARGETS (space-separated)
# builds only those targets and what they need, e.g. GB_TARGETS="growbench-cli growbench"
# (scripts/quickstart.sh); by default everything (tests, benchmarks, fuzzers) is built.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${GB_BUILD_DIR:-build}
JOBS=${GB_JOBS:-$(nproc)}
start=$(date +%s)
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
targets=()
if [ -n "${GB_TARGETS:-}" ]; then
  # Targets this configuration does not have (the GUI without Qt) are left out.
  read -r -a names <<< "$GB_TARGETS"
  for t in "${names[@]}"; do
    if ninja -C "$BUILD_DIR" -t query "$t" >/dev/null 2>&1; then targets+=("$t"); fi
  done
  if [ ${#targets[@]} -eq 0 ]; then
    echo "build: none of the targets '$GB_TARGETS' exists in this configuration" >&2
    exit 1
  fi
  targets=(--target "${targets[@]}")
fi
cmake --build "$BUILD_DIR" -j "$JOBS" "${targets[@]}"
echo "build: done in $(( $(date +%s) - start )) s"
