#!/usr/bin/env bash
# Set up, build and run the whole test suite (ctest): the optimised build (once as it is,
# once more with C2LAB_PORTABLE=1, so the portable field arithmetic carries every test too)
# and an AddressSanitizer + UndefinedBehaviorSanitizer build; then every parser's libFuzzer
# target for a short while (scripts/fuzz.sh, C2LAB_FUZZ_SECONDS per target, 30 by default:
# 9 targets two at a time, about 2.5 minutes, after a build of about 4 CPU-minutes).
#   scripts/test.sh            all three: release asan fuzz
#   scripts/test.sh release    only the optimised build
#   scripts/test.sh asan       only the sanitizer build
#   scripts/test.sh fuzz       only the fuzz step
# Tests labelled e2e (PoRep C2 gen -> setup -> prove -> verify on 2 KiB, minutes) run once, in
# the optimised build; the portable rerun and the sanitizer build leave them out.
# With the optimised build, a last step gates instruction counts (scripts/icount.sh --gate,
# valgrind, about a minute on 2 cores) against results/baselines/<machine>/icount.json; a
# machine without a stored baseline passes with a note. C2LAB_SKIP_ICOUNT=1 leaves it out.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
configs=("$@")
if ((${#configs[@]} == 0)); then configs=(release asan fuzz); fi
jobs="$(nproc 2>/dev/null || echo 2)"
for config in "${configs[@]}"; do
  if [ "$config" = fuzz ]; then
    echo "== c2lab tests: fuzz targets, ${C2LAB_FUZZ_SECONDS:-30} s each (scripts/fuzz.sh) =="
    scripts/fuzz.sh --seconds "${C2LAB_FUZZ_SECONDS:-30}"
    continue
  fi
  echo "== c2lab tests: $config build =="
  scripts/build.sh "$config"
  skip=()
  if [ "$config" != release ]; then skip=(-LE e2e); fi
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "build/$config" --output-on-failure -j "$jobs" "${skip[@]}"
  if [ "$config" = release ]; then
    echo "== c2lab tests: release build, portable field arithmetic (C2LAB_PORTABLE=1) =="
    C2LAB_PORTABLE=1 ctest --test-dir "build/$config" --output-on-failure -j "$jobs" -LE e2e
  fi
done
for config in "${configs[@]}"; do
  if [ "$config" = release ] && [ "${C2LAB_SKIP_ICOUNT:-0}" != 1 ]; then
    echo "== c2lab tests: instruction counts against the stored baseline (scripts/icount.sh --gate) =="
    scripts/icount.sh --gate
  fi
done
