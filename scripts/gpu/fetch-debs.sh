#!/usr/bin/env bash
# Runs HERE (Debian 12, with apt): downloads the Debian packages the core, growbench-cli and
# the Qt Test suites need on the GPU machine, which has CUDA, CMake and PyTorch's LibTorch
# but no Qt and no internet. The .deb files go to third_party/debs/ (git-ignored); pass that
# folder to the device tool's `carry`, then run scripts/gpu/build.sh there.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=third_party/debs
mkdir -p "$OUT"
PACKAGES=(
  # header-only or small libraries of the core, with their shared libraries
  nlohmann-json3-dev libspdlog-dev libspdlog1.10 libfmt-dev libfmt9
  libsqlite3-dev libsqlite3-0 libpcre2-dev libpcre2-8-0 libutf8proc-dev libutf8proc2
  # build tool
  ninja-build
  # Qt Test for the test executables (no GUI): Qt Core, Test and their CMake files
  qt6-base-dev qt6-base-dev-tools libqt6core6 libqt6test6 libqt6concurrent6 libqt6network6
  libqt6gui6 libqt6widgets6 libqt6dbus6 libqt6opengl6 libqt6openglwidgets6 libqt6sql6
  libqt6printsupport6 libqt6xml6 libicu72 libdouble-conversion3 libb2-1 libpcre2-16-0
  libmd4c0
)
cd "$OUT"
apt-get download "${PACKAGES[@]}"
du -sh .
echo "fetch-debs: ${#PACKAGES[@]} packages in $OUT"
