#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds everything and runs all tests.
# Usage: scripts/test.sh [ctest arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/npm-deps.sh
scripts/build.sh
(cd "${GB_BUILD_DIR:-build}" && ctest --output-on-failure --timeout 900 "$@")
# libFuzzer targets (safetensors header parser, tokenizer.json loader), bounded time each.
scripts/fuzz.sh "${GB_FUZZ_SECONDS:-30}"
