#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan+UBSan, torch-free) into build-fuzz and runs each
# for a bounded time. Usage: scripts/fuzz.sh [seconds per target, default 60]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER=${1:-60}
BUILD_DIR=build-fuzz
CC=clang CXX=clang++ cmake -S . -B "$BUILD_DIR" -G Ninja -DGB_FUZZ_ONLY=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
status=0
for target in "$BUILD_DIR"/fuzz/fuzz_*; do
  [ -x "$target" ] || continue
  name=$(basename "$target")
  corpus="$BUILD_DIR/corpus/$name"
  mkdir -p "$corpus"
  seeds="fuzz/seeds/${name#fuzz_}"
  echo "fuzz: $name for ${SECONDS_PER}s"
  if ! "$target" -max_total_time="$SECONDS_PER" -rss_limit_mb=2048 -print_final_stats=1 \
      "$corpus" $( [ -d "$seeds" ] && echo "$seeds" ) > "$BUILD_DIR/$name.log" 2>&1; then
    echo "fuzz: $name FAILED"; tail -n 60 "$BUILD_DIR/$name.log"; status=1
  else
    grep -E "stat::number_of_executed_units|cov:" "$BUILD_DIR/$name.log" | tail -n 2
  fi
done
exit $status
