#!/usr/bin/env bash
# Runs ON THE GPU MACHINE (CUDA, CMake, PyTorch 2.x with its LibTorch; no Qt, no internet):
# unpacks the Debian packages fetched by scripts/gpu/fetch-debs.sh (third_party/debs/, carried
# with the working tree) into third_party/prefix, builds the core, growbench-cli, the Qt Test
# suites and the benchmarks against PyTorch's LibTorch into build-gpu, and runs the tests.
#   scripts/gpu/build.sh            build and run every test (CUDA tests included)
#   scripts/gpu/build.sh --no-test  build only
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
DEBS=third_party/debs
PREFIX=$ROOT/third_party/prefix
BUILD=${GB_BUILD_DIR:-build-gpu}
RUN_TESTS=1
[[ "${1:-}" == "--no-test" ]] && RUN_TESTS=0

ls "$DEBS"/*.deb >/dev/null 2>&1 || {
  echo "gpu/build: no .deb files in $DEBS; run scripts/gpu/fetch-debs.sh on the Debian" \
       "machine first and carry $DEBS" >&2
  exit 2
}
if [[ ! -f "$PREFIX/.unpacked" || "$DEBS" -nt "$PREFIX/.unpacked" ]]; then
  rm -rf "$PREFIX"
  mkdir -p "$PREFIX"
  for deb in "$DEBS"/*.deb; do
    if command -v dpkg-deb >/dev/null; then
      dpkg-deb -x "$deb" "$PREFIX"
    else  # a .deb is an ar archive holding data.tar.*
      tmp=$(mktemp -d)
      (cd "$tmp" && ar x "$ROOT/$deb" && tar -xf data.tar.* -C "$PREFIX")
      rm -rf "$tmp"
    fi
  done
  touch "$PREFIX/.unpacked"
fi

PY=${PYTHON:-python3}
TORCH_CMAKE=$($PY -c 'import torch; print(torch.utils.cmake_prefix_path)')
TORCH_LIB=$($PY -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
LIBDIR=$PREFIX/usr/lib/x86_64-linux-gnu
export PATH=$PREFIX/usr/bin:$PREFIX/usr/lib/qt6/bin:$PREFIX/usr/lib/qt6/libexec:$PATH
export LD_LIBRARY_PATH=$LIBDIR:$TORCH_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# pkg-config, when present, must only see the prefix (its .pc files say prefix=/usr).
export PKG_CONFIG_LIBDIR=$LIBDIR/pkgconfig:$PREFIX/usr/share/pkgconfig
export PKG_CONFIG_SYSROOT_DIR=$PREFIX
GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)
ARCHS=$($PY -c 'import torch; c=torch.cuda.get_device_capability() if torch.cuda.is_available() else (9,0); print(f"{c[0]}{c[1]}")')

start=$(date +%s)
cmake -S . -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$PREFIX/usr;$TORCH_CMAKE" \
  -DCMAKE_CUDA_ARCHITECTURES="$ARCHS" -DTORCH_CUDA_ARCH_LIST="${ARCHS:0:1}.${ARCHS:1}" \
  -DGB_BUILD_GUI=OFF -DGB_BUILD_BENCH=ON -DGB_BUILD_TESTS=ON
cmake --build "$BUILD" -j "$(nproc)"
echo "gpu/build: built in $(( $(date +%s) - start )) s"
if (( RUN_TESTS )); then
  (cd "$BUILD" && QT_QPA_PLATFORM=offscreen ctest --output-on-failure --timeout 900 -E tst_gui)
fi
