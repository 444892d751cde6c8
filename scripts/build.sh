#!/usr/bin/env bash
# Configures and builds GrowBench into ./build (Release, Ninja). Extra arguments go to the
# CMake configure step, e.g. scripts/build.sh -DGB_BUILD_GUI=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${GB_BUILD_DIR:-build}
JOBS=${GB_JOBS:-$(nproc)}
start=$(date +%s)
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"
echo "build: done in $(( $(date +%s) - start )) s"
