#!/usr/bin/env bash
# SIGKILL soak of the worker (issue 20): bench_soak_kill kills `growbench-cli run` at random
# instants N times, checks PRAGMA integrity_check after every kill, resumes every run (from
# its newest valid checkpoint, or from the beginning) and compares the final metrics with an
# uninterrupted run. Prints the counts; exits non-zero when a check failed.
#
# Usage: scripts/soak-kill.sh [KILLS] [SEED]        (default 100 kills, seed 1)
# Needs a build (scripts/build.sh): build/bench/bench_soak_kill and build/app/cli/growbench-cli.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${GB_BUILD_DIR:-build}"
fixture="${GB_FIXTURE:-$(cd .. && pwd)/shared/fixtures/hf-reference/llama}"
[ -x "$build/bench/bench_soak_kill" ] || { echo "soak-kill: build first (scripts/build.sh)" >&2; exit 1; }
[ -f "$fixture/config.json" ] || { echo "soak-kill: no llama fixture at $fixture (set GB_FIXTURE)" >&2; exit 1; }
exec "$build/bench/bench_soak_kill" --cli "$build/app/cli/growbench-cli" --fixture "$fixture" \
  --kills "${1:-100}" --seed "${2:-1}"
