#!/usr/bin/env bash
# The README's main command: sets up a fresh Debian 12 machine, builds GrowBench, runs the
# built-in quickstart experiment headless (tiny English Llama-shaped model adapted to German
# by six methods) and opens the workbench on the results when a display is available.
# Results go to the default workspace (override with GROWBENCH_WORKSPACE).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD_DIR=${GB_BUILD_DIR:-build}
# Only what runs here: the worker and the workbench (scripts/test.sh builds everything).
GB_TARGETS="growbench-cli growbench" scripts/build.sh
WORKSPACE=${GROWBENCH_WORKSPACE:-${XDG_DATA_HOME:-$HOME/.local/share}/growbench}
mkdir -p "$WORKSPACE"
DB="$WORKSPACE/growbench.db"
"$BUILD_DIR/app/cli/growbench-cli" quickstart --db "$DB" "$@"
if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" && -x "$BUILD_DIR/app/gui/growbench" ]]; then
  exec "$BUILD_DIR/app/gui/growbench" --workspace "$WORKSPACE"
fi
echo "quickstart: results are in $DB (workspace $WORKSPACE);"
echo "  open them with: $BUILD_DIR/app/gui/growbench --workspace $WORKSPACE"
