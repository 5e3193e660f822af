#!/usr/bin/env bash
# Configure and build one configuration into build/<name>.
#   scripts/build.sh [release|asan|debug|fuzz] [extra cmake -D options...]
#   release: -O3 benchmarks and tests (default)
#   asan:    AddressSanitizer + UndefinedBehaviorSanitizer, -O1, for the test suite
#   fuzz:    clang, libFuzzer + ASan + UBSan, -O1: the fuzz targets only (scripts/fuzz.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
config="${1:-release}"
shift || true
case "$config" in
  release) opts=(-DCMAKE_BUILD_TYPE=Release) ;;
  asan) opts=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DC2LAB_SANITIZE=ON -DC2LAB_BUILD_BENCHMARKS=OFF
              -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g") ;;
  debug) opts=(-DCMAKE_BUILD_TYPE=Debug) ;;
  fuzz) export CC=clang CXX=clang++
        opts=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DC2LAB_FUZZ=ON -DC2LAB_BUILD_BENCHMARKS=OFF -DC2LAB_BUILD_TESTS=OFF
              -DC2LAB_CUDA=OFF -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g") ;;
  *) echo "usage: scripts/build.sh [release|asan|debug|fuzz] [cmake options...]" >&2; exit 2 ;;
esac
targets=()
if [ "$config" = fuzz ]; then targets=(--target c2lab_fuzz); fi
jobs="$(nproc 2>/dev/null || echo 2)"
cmake -S . -B "build/$config" "${opts[@]}" "$@" >/dev/null
cmake --build "build/$config" -j "$jobs" "${targets[@]}"
