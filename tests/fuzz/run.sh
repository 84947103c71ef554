#!/usr/bin/env bash
# Runs every libFuzzer target of a build for a while, each from its seed folders (the "// fuzz-seeds:"
# line of tests/fuzz/fuzz_NAME.cpp, relative to the repository root; missing folders are skipped).
#   tests/fuzz/run.sh BUILD_DIR SECONDS_PER_TARGET [EXTRA_LIBFUZZER_FLAGS...]
# New inputs go to BUILD_DIR/fuzz-corpus/NAME; a crash leaves BUILD_DIR/fuzz-crashes/NAME-* and exit 1.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "$1" && pwd)"
seconds="$2"
shift 2

targets=("$build"/fuzz/fuzz_*)
if [[ ! -x "${targets[0]}" ]]; then
  echo "fuzz: no fuzz targets in $build/fuzz (they need clang: cmake --preset sanitize)" >&2
  exit 1
fi
for target in "${targets[@]}"; do
  name="$(basename "$target")"
  seeds=()
  for dir in $(sed -n 's|^// fuzz-seeds:||p' "$root/tests/fuzz/$name.cpp"); do
    if [[ -d "$root/$dir" ]]; then seeds+=("$root/$dir"); fi
  done
  corpus="$build/fuzz-corpus/$name"
  log="$build/fuzz-$name.log"
  mkdir -p "$corpus" "$build/fuzz-crashes"
  echo "fuzz: $name for ${seconds}s (seeds: ${seeds[*]:-none})" >&2
  # -rss_limit_mb: the readers must refuse huge inputs, not exhaust memory.
  status=0
  "$target" "$corpus" "${seeds[@]}" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=30 \
    -artifact_prefix="$build/fuzz-crashes/$name-" -print_final_stats=1 "$@" >"$log" 2>&1 || status=$?
  grep -E '^(stat::number_of_executed_units|SUMMARY)' "$log" >&2 || true
  if ((status != 0)); then
    tail -n 40 "$log" >&2
    echo "fuzz: $name found a failing input (see $build/fuzz-crashes/, log $log)" >&2
    exit 1
  fi
done
