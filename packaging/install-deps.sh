#!/usr/bin/env bash
# Installs the Debian 12 packages Checkpoint Explorer needs, only those missing.
# Safe to run again: a second run with everything present does nothing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  qt6-base-dev qt6-base-dev-tools qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev
  libgraphviz-dev
  libtorch-dev python3-torch python3-torchvision
  # libtorch's recommended BLAS, which --no-install-recommends leaves out: without it torch falls back
  # on the reference BLAS, whose sgemm runs at a fourteenth of OpenBLAS's here (docs/BENCHMARKS.md)
  libopenblas0-pthread
  nlohmann-json3-dev
  coinor-libcbc-dev
  xvfb xauth fonts-dejavu-core
  # packaging/dev.sh deb and its checks: the icon's PNG, the .deb's Depends (dpkg-shlibdeps, file),
  # the Python package (pip in a venv), and the validators of desktop entry, AppStream data and package
  librsvg2-bin dpkg-dev file python3-setuptools python3-venv python3-pip
  desktop-file-utils appstream lintian
  # the sanitizer build and the libFuzzer targets (.ci/run)
  clang libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
