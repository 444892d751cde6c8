#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds everything and runs all tests.
# Usage: scripts/test.sh [ctest arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/npm-deps.sh
scripts/build.sh
# Every test executable the sources declare must be registered: a missing Qt component or
# tool (xvfb-run, desktop-file-validate, appstreamcli) would otherwise drop whole tests
# while ctest still succeeds. tests/tst_<area>.cmake registers tst_<area> (the packaging
# file registers the two validator tests instead).
expected="$(cd tests && ls tst_*.cmake | sed 's/\.cmake$//' | grep -vx tst_gui_packaging)
gui_tour_xvfb
packaging_desktop_entry
packaging_appstream_metainfo"
registered="$(cd "${GB_BUILD_DIR:-build}" && ctest -N | sed -n 's/^ *Test *#[0-9]*: //p')"
missing="$(comm -23 <(echo "$expected" | sort) <(echo "$registered" | sort))"
if [ -n "$missing" ]; then
  echo "test: these tests are not registered (is a Qt component or a tool missing? run" \
       "scripts/setup.sh):" $missing >&2
  exit 1
fi
# One test per core (each test uses one intra-op thread; tests/CMakeLists.txt gives the long
# ones a cost so that they start first). GB_TEST_JOBS=1 runs them one after another.
# A failing test's whole output comes first; its failed checks are repeated at the very end
# (where a shortened CI log still shows them).
rc=0
(cd "${GB_BUILD_DIR:-build}" &&
  ctest -j "${GB_TEST_JOBS:-$(nproc)}" --no-tests=error --output-on-failure --timeout 900 "$@") ||
  rc=$?
if [ "$rc" -ne 0 ]; then
  log="${GB_BUILD_DIR:-build}/Testing/Temporary/LastTest.log"
  echo "test: ctest failed (exit $rc); the failed checks:" >&2
  if [ -f "$log" ]; then
    grep -E -A 2 '^(FAIL!|XPASS)' "$log" | head -n 60 >&2 || true
    grep -E 'Totals: .* [1-9][0-9]* failed|Test (Failed|Timeout)|Timeout' "$log" >&2 || true
  fi
  exit "$rc"
fi
# The Debian package: cpack, unpacked into a scratch root and checked (about 15-20 s).
if [ -f "${GB_BUILD_DIR:-build}/CPackConfig.cmake" ]; then
  scripts/package-check.sh "${GB_BUILD_DIR:-build}"
else
  echo "test: no CPackConfig.cmake (GUI not built): package check skipped"
fi
# The build without Gloo (as on a machine without libgloo-dev): growbench-cli still builds and
# runs on one process, and says clearly that distributed runs are unavailable.
scripts/check-no-gloo.sh
# libFuzzer targets (safetensors header parser, tokenizer.json loader), bounded time each.
scripts/fuzz.sh "${GB_FUZZ_SECONDS:-30}"
