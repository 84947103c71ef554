#!/usr/bin/env bash
# One entry point for the README's commands.
#   packaging/dev.sh run [GRAPH]   install what is missing, build, start the GUI (default: a bundled example)
#   packaging/dev.sh test          install what is missing, build, run the whole test suite (ctest)
#   packaging/dev.sh build         install what is missing and build
#   packaging/dev.sh deb           install what is missing, build, pack build/checkpoint-explorer_VERSION_ARCH.deb
set -euo pipefail
cd "$(dirname "$0")/.."

build() {
  packaging/install-deps.sh
  if [[ ! -f build/CMakeCache.txt ]]; then
    cmake --preset default
  fi
  cmake --build --preset default
}

case "${1:-}" in
  run)
    build
    graph="${2:-resources/examples/residual.json}"
    if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" && "${QT_QPA_PLATFORM:-}" != offscreen ]]; then
      echo "dev.sh: no display; starting the app under Xvfb (xvfb-run)" >&2
      exec xvfb-run -a build/bin/checkpoint-explorer "$graph"
    fi
    exec build/bin/checkpoint-explorer "$graph"
    ;;
  test)
    build
    exec ctest --preset default
    ;;
  build)
    build
    ;;
  deb)
    build
    cpack --config build/CPackConfig.cmake -B build
    ;;
  *)
    echo "usage: packaging/dev.sh run [GRAPH] | test | build | deb" >&2
    exit 2
    ;;
esac
