#!/usr/bin/env bash
# Builds growbench-cli as on a machine without libgloo-dev (GB_WITH_GLOO=OFF: no c10d, no
# Gloo) into build-nogloo and checks that it still works: a one-process run finishes, and
# every way of asking for a distributed run (--nproc-per-node, a torchrun or srun
# environment) ends with exit status 1 and an error saying that distributed runs are
# unavailable and why, before any run is created. scripts/test.sh runs it in CI.
# Usage: scripts/check-no-gloo.sh [build dir, default build-nogloo]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-nogloo}
GB_BUILD_DIR=$dir GB_TARGETS=growbench-cli scripts/build.sh -DGB_WITH_GLOO=OFF \
  -DGB_BUILD_GUI=OFF -DGB_BUILD_TESTS=OFF -DGB_BUILD_BENCH=OFF -DGB_BUILD_FUZZ=OFF
cli=$dir/app/cli/growbench-cli
grep -q '#define GB_HAVE_GLOO 0' "$dir/core/generated/dist/dist_config.h" || {
  echo "check-no-gloo: $dir was configured with Gloo" >&2
  exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
spec=resources/experiments/quickstart.json
export GROWBENCH_CACHE_DIR=$tmp/cache OPENBLAS_NUM_THREADS=1
fail=0
expect_unavailable() {  # NAME, then the command
  local name=$1 out rc=0
  shift
  out=$("$@" 2>&1 >/dev/null) || rc=$?
  if [ "$rc" -ne 1 ] || ! grep -q 'distributed runs are unavailable: this build of GrowBench has no distributed support' <<<"$out"; then
    echo "check-no-gloo: FAIL $name: exit $rc, stderr: $out" >&2
    fail=1
  else
    echo "check-no-gloo: ok   $name: $(grep -m1 unavailable <<<"$out" | cut -c1-110)..."
  fi
}
expect_unavailable "--nproc-per-node 2" \
  "$cli" run "$spec" --smoke --db "$tmp/a.db" --nproc-per-node 2
expect_unavailable "torchrun environment" env RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 \
  LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29511 TORCHELASTIC_RESTART_COUNT=0 \
  "$cli" run "$spec" --smoke --db "$tmp/b.db"
expect_unavailable "srun environment" env SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=2 SLURM_LOCALID=0 \
  SLURM_STEP_NODELIST=localhost SLURM_JOB_ID=7 \
  "$cli" run "$spec" --smoke --db "$tmp/c.db"
for db in a b c; do
  if [ -f "$tmp/$db.db" ] && [ "$(sqlite3 "$tmp/$db.db" 'select count(*) from runs' 2>/dev/null || echo 0)" != 0 ]; then
    echo "check-no-gloo: FAIL a refused distributed run left runs in $db.db" >&2
    fail=1
  fi
done
# One process: the whole smoke experiment runs to the end.
if "$cli" run "$spec" --smoke --db "$tmp/one.db" --quiet >"$tmp/one.log" 2>&1 &&
   [ "$(sqlite3 "$tmp/one.db" "select count(*) from runs where status != 'finished'")" = 0 ] &&
   [ "$(sqlite3 "$tmp/one.db" 'select count(*) from runs')" -gt 0 ]; then
  echo "check-no-gloo: ok   one-process smoke run: $(sqlite3 "$tmp/one.db" 'select count(*) from runs') runs finished"
else
  echo "check-no-gloo: FAIL one-process smoke run" >&2
  tail -n 30 "$tmp/one.log" >&2
  fail=1
fi
exit $fail
