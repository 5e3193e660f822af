#!/usr/bin/env bash
# Configure and build one configuration into build/<name>.
#   scripts/build.sh [release|asan|debug] [extra cmake -D options...]
#   release: -O3, everything: library, CLI, tests, benchmarks, the CUDA backend where nvcc is found
#   asan:    clang, AddressSanitizer + UndefinedBehaviorSanitizer, -O1, with libFuzzer's coverage
#            instrumentation in the parsers' libraries: the test suite and every parser's fuzz
#            target from one build (scripts/fuzz.sh runs the targets of build/asan); no
#            benchmarks, no CUDA
#   debug:   -O0 -g, without the precompiled headers (C2LAB_PCH=OFF): every file parses its own
#            includes, so a missing #include of a standard or third-party header shows here
# A compiler cache (ccache, installed by scripts/setup.sh) is used where present; C2LAB_NO_CCACHE=1
# leaves it out. Its keys are made relative to the checkout (CCACHE_BASEDIR), so another clone of
# the same commits reuses the objects.
set -euo pipefail
cd "$(dirname "$0")/.."
config="${1:-release}"
shift || true
case "$config" in
  release) opts=(-DCMAKE_BUILD_TYPE=Release) ;;
  asan|fuzz) config=asan  # "fuzz" names the same build: the fuzz targets live in build/asan
        export CC=clang CXX=clang++
        # Line tables only: the sanitizers' reports keep file and line, and clang spends about 10%
        # less time on a test file than with full debug info (clang 14, -O1). Unity builds (up to
        # 16 files of a target in one translation unit): the CLI's objects 159 -> 119 s and
        # history_test's 80 -> 58 s, one after the other on the family-23 EPYC; the optimised
        # build stays one file at a time, as its users build it. Test files at -O0 were tried:
        # their compile about halves, but the asan ctest went from 5 to 14 minutes (the gadget,
        # GPU-emulation and C1 tests instantiate the library's templates in the test file).
        opts=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DC2LAB_SANITIZE=ON -DC2LAB_FUZZ=ON -DC2LAB_BUILD_BENCHMARKS=OFF
              -DC2LAB_CUDA=OFF -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only"
              -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only"
              -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16) ;;
  debug) opts=(-DCMAKE_BUILD_TYPE=Debug -DC2LAB_PCH=OFF) ;;
  *) echo "usage: scripts/build.sh [release|asan|debug] [cmake options...]" >&2; exit 2 ;;
esac
generator=()
if command -v ninja >/dev/null 2>&1 && [ ! -f "build/$config/Makefile" ]; then generator=(-G Ninja); fi
if [ "${C2LAB_NO_CCACHE:-0}" != 1 ] && command -v ccache >/dev/null 2>&1; then
  # The sloppiness lets ccache cache the files compiled with the precompiled headers (C2LAB_PCH):
  # without it every such compile is "uncacheable".
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
  opts+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
targets=()
if [ -n "${C2LAB_BUILD_TARGETS:-}" ]; then read -r -a targets <<<"--target $C2LAB_BUILD_TARGETS"; fi
jobs="$(nproc 2>/dev/null || echo 2)"
# C2LAB_TEST_SET=optimised builds only the suites scripts/test.sh runs in the optimised build
# (CMakeLists.txt); every configure says which set, so a later plain build has them all again.
opts+=(-DC2LAB_TEST_SET="${C2LAB_TEST_SET:-all}")
cmake -S . -B "build/$config" "${generator[@]}" "${opts[@]}" "$@" >/dev/null
cmake --build "build/$config" -j "$jobs" "${targets[@]}"
