#!/usr/bin/env bash
# Builds the Debian package of a configured and built build folder and checks it without
# installing it (no root needed): cpack -G DEB, then dpkg-deb -x into a scratch root, then
# the expected files, the declared dependencies, the RPATH, the desktop entry and the
# AppStream metainfo (validated from the extracted tree), and the extracted programs run.
#
# Usage: scripts/package-check.sh [BUILD_DIR]        (default: ./build)
# Leaves the package in BUILD_DIR/packages/; exits non-zero on the first broken step or
# after listing every failed check.
set -euo pipefail
cd "$(dirname "$0")/.."
build="$(cd "${1:-build}" && pwd)"
start=$(date +%s)

die() { echo "package-check: $*" >&2; exit 1; }
[ -f "$build/CPackConfig.cmake" ] ||
  die "$build has no CPackConfig.cmake (configure with the GUI enabled: packaging/)"
for tool in cpack dpkg-deb readelf strings ldd desktop-file-validate appstreamcli; do
  command -v "$tool" >/dev/null || die "$tool not found (scripts/setup.sh installs it)"
done

scratch="$(mktemp -d "${TMPDIR:-/tmp}/growbench-package.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

echo "package-check: cpack -G DEB in $build"
rm -rf "$build/packages"
if ! (cd "$build" && cpack -G DEB -B "$build/packages" >"$scratch/cpack.log" 2>&1); then
  cat "$scratch/cpack.log" >&2
  die "cpack failed"
fi
debs=("$build"/packages/*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || die "expected one .deb in $build/packages"
deb="${debs[0]}"
echo "package-check: $deb ($(du -h "$deb" | cut -f1))"

passes=0
failures=0
check() {  # check DESCRIPTION COMMAND...: runs COMMAND, records a failure if it fails
  local what="$1"
  shift
  if "$@" >"$scratch/check.log" 2>&1; then
    echo "  ok    $what"
    passes=$((passes + 1))
  else
    echo "  FAIL  $what" >&2
    sed 's/^/        /' "$scratch/check.log" >&2
    failures=$((failures + 1))
  fi
}

# Control fields: the name, and dependencies from dpkg-shlibdeps plus the explicit ones.
field() { dpkg-deb -f "$deb" "$1"; }
has_dep() { field "$1" | tr ',' '\n' | sed 's/^ *//' | grep -q "^$2\b"; }
check "Package is growbench" test "$(field Package)" = growbench
# The LibTorch runtime package this build linked against (libtorch1.13 on Debian 12,
# libtorch2.6 on Debian 13): the owner of the library libtorch.so points to.
torch_pkg=$(dpkg -S "$(readlink -f /usr/lib/x86_64-linux-gnu/libtorch.so)" 2>/dev/null |
            cut -d: -f1 | head -n 1)
for dep in libc6 libstdc++6 libqt6widgets6 libqt6svg6 libqcustomplot2.1-qt6 \
           "${torch_pkg:-libtorch (package of libtorch.so not found)}" libsqlite3-0; do
  check "Depends: $dep" has_dep Depends "$dep"
done
for rec in libopenblas0-pthread fortunes fortunes-de; do
  check "Recommends: $rec" has_dep Recommends "$rec"
done
check "no file outside /usr" \
  bash -c "! dpkg-deb -c '$deb' | awk '{print \$6}' | grep -v '^\./usr\(/\|$\)' | grep -v '^\./$'"

root="$scratch/root"
dpkg-deb -x "$deb" "$root"
usr="$root/usr"
for f in bin/growbench bin/growbench-cli lib/growbench/libgrowbench_core.so \
         share/growbench/experiments/quickstart.json \
         share/growbench/translations/growbench_de.qm \
         share/growbench/translations/growbench_zh_CN.qm \
         share/applications/growbench.desktop \
         share/man/man1/growbench-cli.1.gz share/man/man1/growbench.1.gz \
         share/icons/hicolor/scalable/apps/growbench.svg; do
  check "file /usr/$f" test -s "$usr/$f"
done
for exe in growbench growbench-cli; do
  check "executable /usr/bin/$exe" test -x "$usr/bin/$exe"
done
metainfo=("$usr"/share/metainfo/*.metainfo.xml)
check "one metainfo file" test ${#metainfo[@]} -eq 1 -a -s "${metainfo[0]}"

# RPATH: the private library next to the package's own bin/, never the build tree.
for exe in growbench growbench-cli; do
  check "RPATH of $exe is \$ORIGIN/../lib/growbench" \
    bash -c "readelf -d '$usr/bin/$exe' | grep -E 'R(UN)?PATH' |
             grep -qF '[\$ORIGIN/../lib/growbench]'"
done
check "ldd finds libgrowbench_core.so in the extracted tree" \
  bash -c "env -u LD_LIBRARY_PATH ldd '$usr/bin/growbench-cli' |
           grep -F 'libgrowbench_core.so => $usr/bin/../lib/growbench/libgrowbench_core.so'"
check "every library of growbench resolves" \
  bash -c "! env -u LD_LIBRARY_PATH ldd '$usr/bin/growbench' | grep -F 'not found'"

# Desktop entry and AppStream metadata, from the extracted tree.
check "desktop-file-validate growbench.desktop" \
  bash -c "out=\$(desktop-file-validate '$usr/share/applications/growbench.desktop' 2>&1);
           echo \"\$out\"; [ -z \"\$out\" ]"
check "desktop entry runs growbench with icon growbench" \
  bash -c "grep -qxE 'Exec=growbench( %F)?' '$usr/share/applications/growbench.desktop' &&
           grep -qx 'Icon=growbench' '$usr/share/applications/growbench.desktop'"
check "appstreamcli validate --no-net $(basename "${metainfo[0]}")" \
  appstreamcli validate --no-net "${metainfo[0]}"
check "metainfo launches growbench.desktop" \
  grep -q '<launchable type="desktop-id">growbench.desktop</launchable>' "${metainfo[0]}"

# Man pages (help2man from --help): a NAME line, the commands of growbench-cli, and they
# render without warnings.
check "man page growbench-cli.1 lists its commands" \
  bash -c "zcat '$usr/share/man/man1/growbench-cli.1.gz' | grep -q '^\.SH NAME' &&
           zcat '$usr/share/man/man1/growbench-cli.1.gz' | grep -q '^\.SS eval'"
check "man page growbench.1 documents --log-level" \
  bash -c "zcat '$usr/share/man/man1/growbench.1.gz' | grep -q 'log\\\\-level'"
for page in growbench-cli growbench; do
  check "man -l $page.1.gz renders" \
    bash -c "out=\$(LC_ALL=C MANWIDTH=80 man -l '$usr/share/man/man1/$page.1.gz' 2>&1 >/dev/null);
             echo \"\$out\"; [ -z \"\$out\" ]"
done

# The extracted programs run (libraries found through RPATH, not LD_LIBRARY_PATH).
check "growbench-cli --help" \
  bash -c "env -u LD_LIBRARY_PATH '$usr/bin/growbench-cli' --help | grep -q 'Usage: growbench-cli'"
check "growbench-cli --version" \
  bash -c "env -u LD_LIBRARY_PATH '$usr/bin/growbench-cli' --version | grep -q '[0-9]'"
check "growbench --version (offscreen)" \
  bash -c "env -u LD_LIBRARY_PATH QT_QPA_PLATFORM=offscreen '$usr/bin/growbench' --version |
           grep -q '[0-9]'"

# growbench-cli finds its resources (quickstart spec, presets) in the data folder compiled in
# from CMAKE_INSTALL_PREFIX; the package installs them in /usr/share/growbench.
# A wrong compiled-in folder is a failure, not a warning (the default prefix is /usr since
# the top-level CMakeLists.txt sets it; an explicit other prefix is what this catches).
datadir="$(strings "$usr/lib/growbench/libgrowbench_core.so" |
           grep -E '^/.*/share/growbench$' | head -n 1 || true)"
check "compiled-in resource folder is /usr/share/growbench (got '$datadir'; configure package builds with -DCMAKE_INSTALL_PREFIX=/usr)" \
      test "$datadir" = /usr/share/growbench

echo "package-check: $deb checked in $(($(date +%s) - start)) s"
echo "package-check: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
