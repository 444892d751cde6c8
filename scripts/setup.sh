#!/usr/bin/env bash
# Installs every Debian package GrowBench needs: Debian 12, and Debian 13 for the LibTorch 2.x
# check (scripts/check-libtorch2.sh). Idempotent: it runs `apt-get update` (once) and
# `apt-get install` only when something is missing.
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential cmake ninja-build ccache pkg-config git clang libclang-rt-dev
  # core
  libtorch-dev libopenblas0-pthread libspdlog-dev libfmt-dev nlohmann-json3-dev
  libsqlite3-dev sqlite3 libpcre2-dev libutf8proc-dev libcli11-dev
  # data-parallel runs: Gloo's headers for LibTorch's c10d (libtorch-dev does not pull them in)
  libgloo-dev
  # GUI
  qt6-base-dev qt6-base-dev-tools libqcustomplot-dev qt6-tools-dev qt6-tools-dev-tools
  qt6-l10n-tools qt6-translations-l10n libgl-dev qt6-svg-dev
  # tests, benchmarks, packaging, default corpora
  xvfb xauth python3-torch fortunes fortunes-de fortunes-it fortunes-es appstream
  desktop-file-utils
  dpkg-dev file
  # man pages generated from the programs' --help at build time (packaging/man.cmake)
  help2man
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# Node.js and npm (tokenizer parity tests): a machine may already have them from elsewhere.
if ! command -v node >/dev/null 2>&1; then missing+=(nodejs); fi
if ! command -v npm >/dev/null 2>&1; then missing+=(npm); fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${#missing[@]} packages: ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup: done"
