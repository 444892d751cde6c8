#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds everything and runs all tests.
# Usage: scripts/test.sh [ctest arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/npm-deps.sh
scripts/build.sh
(cd "${GB_BUILD_DIR:-build}" && ctest --output-on-failure --timeout 900 "$@")
# The Debian package: cpack, unpacked into a scratch root and checked (about 15-20 s).
if [ -f "${GB_BUILD_DIR:-build}/CPackConfig.cmake" ]; then
  scripts/package-check.sh "${GB_BUILD_DIR:-build}"
else
  echo "test: no CPackConfig.cmake (GUI not built): package check skipped"
fi
# libFuzzer targets (safetensors header parser, tokenizer.json loader), bounded time each.
scripts/fuzz.sh "${GB_FUZZ_SECONDS:-30}"
