#!/usr/bin/env bash
# Builds and tests GrowBench against LibTorch 2.x on a CPU-only machine. Debian 12 ships only
# LibTorch 1.13.1; Debian 13 (trixie) ships libtorch-dev 2.6 (and Qt 6.8). This script makes a
# trixie root with debootstrap (once, ~30 s plus ~2 min of packages), copies the working tree
# and ../shared into it and runs the README's test command (scripts/test.sh) there in a chroot:
# set-up, build, every CTest test, the package check and the fuzzers, all against LibTorch 2.x.
# Needs root (debootstrap, mount, chroot) and Debian's mirror.
#
#   scripts/check-libtorch2.sh                 everything scripts/test.sh does
#   scripts/check-libtorch2.sh --build-only    set-up and build only
#   scripts/check-libtorch2.sh --shell         an interactive shell in the tree inside the root
#
# GB_TRIXIE_ROOT: where the root lives (default /var/tmp/growbench-trixie; it is reused, and a
# build inside it is incremental). GB_DEBIAN_MIRROR: the mirror (default deb.debian.org).
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$PWD
ROOT=${GB_TRIXIE_ROOT:-/var/tmp/growbench-trixie}
MIRROR=${GB_DEBIAN_MIRROR:-http://deb.debian.org/debian}
MODE=${1:-test}

if [ "$(id -u)" -ne 0 ]; then
  echo "check-libtorch2: needs root (debootstrap, mount and chroot)" >&2
  exit 2
fi
if [ ! -d ../shared ]; then
  echo "check-libtorch2: ../shared is missing beside the repository (the tests need its fixtures)" >&2
  exit 2
fi
command -v debootstrap >/dev/null || {
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap
}

if [ ! -f "$ROOT/.growbench-root" ]; then
  echo "check-libtorch2: debootstrap trixie into $ROOT"
  rm -rf "$ROOT"
  debootstrap --variant=minbase --include=ca-certificates trixie "$ROOT" "$MIRROR" >/dev/null
  touch "$ROOT/.growbench-root"
fi

MOUNTED=()
cleanup() {
  local i
  for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do umount -l "${MOUNTED[i]}" || true; done
}
trap cleanup EXIT
for m in proc sys dev dev/pts; do
  if ! mountpoint -q "$ROOT/$m"; then
    mount --bind "/$m" "$ROOT/$m"
    MOUNTED+=("$ROOT/$m")
  fi
done
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
# Certificate authorities this machine trusts locally (an egress proxy's, for npm) are trusted
# inside too.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$ROOT/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$ROOT/usr/local/share/ca-certificates/"
  chroot "$ROOT" update-ca-certificates >/dev/null
fi

# The working tree as git sees it (tracked and untracked, not ignored), copied over the previous
# copy so that the build directory inside survives; files deleted here are deleted there.
DEST=$ROOT/src/growbench
mkdir -p "$DEST" "$ROOT/src/shared"
if [ -f "$DEST/.growbench-files" ]; then
  comm -23 <(sort "$DEST/.growbench-files") <(git ls-files -co --exclude-standard | sort) |
    while IFS= read -r gone; do rm -f "$DEST/$gone"; done
fi
git ls-files -co --exclude-standard > "$DEST/.growbench-files"
tar -cf - -T "$DEST/.growbench-files" | tar -xf - -C "$DEST"
cp -a ../shared/. "$ROOT/src/shared/"

case "$MODE" in
  test) STEPS='scripts/test.sh' ;;
  --build-only) STEPS='scripts/setup.sh && scripts/build.sh' ;;
  --shell) STEPS='scripts/setup.sh && exec bash -i' ;;
  *) echo "check-libtorch2: unknown argument '$MODE' (see the header of this script)" >&2; exit 2 ;;
esac

start=$(date +%s)
chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  GB_FUZZ_SECONDS="${GB_FUZZ_SECONDS:-30}" CCACHE_DISABLE="${CCACHE_DISABLE:-}" \
  NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
  bash -c "cd /src/growbench && . /etc/os-release && echo \"check-libtorch2: \$PRETTY_NAME\" &&
    $STEPS && echo \"check-libtorch2: LibTorch \$(dpkg-query -W -f='\${Version}' libtorch-dev)\""
echo "check-libtorch2: done in $(($(date +%s) - start)) s"
