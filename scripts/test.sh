#!/usr/bin/env bash
# Set up, build and run the whole test suite (ctest) in two builds, then the fuzz targets and the
# instruction-count gate. Each step's wall time is printed at the end (also when a step fails).
#   scripts/test.sh            every step: release asan fuzz icount
#   scripts/test.sh release    the optimised build (gcc -O3, benchmarks and the CUDA backend where
#                              nvcc is found) with the tests an optimised build adds something to
#                              (C2LAB_TEST_SET=optimised, CMakeLists.txt): the suites labelled
#                              `codegen` (the field kernels), `whole_circuit` and `gpu` (the CUDA
#                              device's; they skip without one) and the e2e ones (PoRep C2 gen ->
#                              setup -> prove -> verify on 2 KiB, the 32 GiB circuit's shape,
#                              faults), then the `arith` suites among them once more with
#                              C2LAB_PORTABLE=1, the portable field arithmetic. Every other test
#                              runs in the asan step; C2LAB_TEST_SET=all builds and runs them here too
#   scripts/test.sh asan       one clang build with AddressSanitizer + UndefinedBehaviorSanitizer
#                              (libFuzzer's coverage in the parsers' libraries): every test but the
#                              e2e ones and nine heavy whole-circuit cases (asan_left_out below); on
#                              a CPU with AVX-512 IFMA the `arith` suites once more with C2LAB_NO_AVX512=1
#   scripts/test.sh fuzz       every parser's libFuzzer target from build/asan for
#                              C2LAB_FUZZ_SECONDS each (10 by default), two at a time (scripts/fuzz.sh)
#   scripts/test.sh icount     instruction counts under valgrind (scripts/icount.sh --gate) against the
#                              toolchain's baseline, results/baselines/toolchain-*/icount.json (any
#                              CPU); after release, beside the asan step; C2LAB_SKIP_ICOUNT=1 leaves it out
# Several names run those steps in the order given.
set -euo pipefail
cd "$(dirname "$0")/.."

steps=("$@")
if ((${#steps[@]} == 0)); then steps=(release asan fuzz icount); fi
for s in "${steps[@]}"; do
  case "$s" in
    release|asan|fuzz|icount) ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "scripts/test.sh: unknown step '$s' (release, asan, fuzz, icount)" >&2; exit 2 ;;
  esac
done
jobs="$(nproc 2>/dev/null || echo 2)"

icount_beside=0 icount_pid="" icount_log=""

# ---- step timing -------------------------------------------------------------------------------
timing_names=()
timing_secs=()
started_all=$(date +%s)
step_name="" step_start=0
begin() {
  step_name="$1"
  step_start=$(date +%s)
  echo "== c2lab tests: $1 =="
}
end() {
  timing_names+=("$step_name")
  timing_secs+=($(($(date +%s) - step_start)))
  step_name=""
}
print_times() {
  local rc=$?
  # The icount run beside the asan step may have finished already: pkill and kill then fail, and
  # under set -e that would end this handler before the table.
  if [ -n "$icount_pid" ]; then
    pkill -P "$icount_pid" 2>/dev/null || true
    kill "$icount_pid" 2>/dev/null || true
    rm -f "$icount_log"
  fi
  if [ -n "$step_name" ]; then timing_names+=("$step_name (failed)"); timing_secs+=($(($(date +%s) - step_start))); fi
  echo
  echo "== c2lab tests: time per step (wall) =="
  local i
  for i in "${!timing_names[@]}"; do
    printf '  %-58s %4d:%02d\n' "${timing_names[$i]}" $((timing_secs[i] / 60)) $((timing_secs[i] % 60))
  done
  local total=$(($(date +%s) - started_all))
  printf '  %-58s %4d:%02d\n' "total" $((total / 60)) $((total % 60))
  return $rc
}
trap print_times EXIT

# Cases that synthesize the whole 2 KiB PoRep circuit again and again (30-130 s each under ASan,
# 300 CPU-seconds together on the 2-core AMD EPYC of family 25; the two parallel-synthesis ones
# 135 and 100 s on one of family 23): the sanitizer run leaves them to the optimised one (their
# suites are labelled whole_circuit). It keeps
# stacked_circuit.generated_2kib_is_satisfied_with_the_derived_inputs, the same synthesis code on
# one input, pce.random_circuits_match_serial_and_parallel, the parallel parts on small circuits,
# and every smaller circuit, gadget and pre-compiled-circuit test.
asan_left_out='^(stacked_circuit\.tampered_witness_is_unsatisfied|stacked_circuit\.named_constraints_one_challenge|stacked_circuit\.parallel_challenges_give_the_serial_assignment|label\.gadget_matches_native_on_random_inputs|pce_cache\.builds_reloads_and_rebuilds_a_corrupt_file|pce_cache\.pce_and_direct_jobs_give_the_prover_the_same_witness|pce\.porep_2kib_matches_the_proving_assignment|porep_shape\.pass_matches_the_proving_assignment_2kib|with_cache\.shape_memo_round_trip_refusals_and_use)$'

run_ctest() {  # run_ctest BUILD [ctest options...]
  local build="$1"
  shift
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"
}

begin "set-up (Debian packages)"
scripts/setup.sh
end

# Without a CUDA device nothing runs the kernels: nvcc makes their PTX only (the compiler's checks,
# not ptxas's machine code, which took msm_g1.cu from 35 to 99 s on the family-23 EPYC).
cuda_arch=90-virtual
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then cuda_arch=90; fi

# The icount step counts instructions under valgrind on one core; with the asan step after the
# release one it runs beside the sanitizer build (its counts do not depend on the load).
seen=""  # the steps so far, in order: an icount step after release, then asan, runs beside asan
for s in "${steps[@]}"; do
  if [ "$s" = icount ] && [[ "$seen" == *" release "*" asan "* ]] && [ "${C2LAB_SKIP_ICOUNT:-0}" != 1 ]; then
    icount_beside=1
  fi
  seen+=" $s "
done

asan_built=0
for s in "${steps[@]}"; do
  case "$s" in
    release)
      begin "release: build"
      C2LAB_TEST_SET="${C2LAB_TEST_SET:-optimised}" scripts/build.sh release -DCMAKE_CUDA_ARCHITECTURES="$cuda_arch"
      end
      begin "release: ctest (e2e included)"
      run_ctest build/release
      end
      begin "release: ctest -L arith, portable field arithmetic (C2LAB_PORTABLE=1)"
      C2LAB_PORTABLE=1 run_ctest build/release -L arith -LE e2e
      end
      ;;
    asan)
      if ((icount_beside)) && [ -z "$icount_pid" ]; then
        icount_log="$(mktemp)"
        scripts/icount.sh --gate >"$icount_log" 2>&1 &
        icount_pid=$!
        echo "(icount: started beside the asan step, output at the icount step)"
      fi
      begin "asan: build (clang, ASan + UBSan, libFuzzer coverage in the parsers)"
      scripts/build.sh asan
      asan_built=1
      end
      begin "asan: ctest (e2e and the heaviest whole-circuit cases left out)"
      run_ctest build/asan -LE e2e -E "$asan_left_out"
      end
      # Where the CPU has IFMA the run above took the AVX-512 paths; the curve, NTT, MSM and
      # Groth16 suites run once more on the mulx/adcx/adox ones (the only ones elsewhere).
      if grep -qw avx512ifma /proc/cpuinfo 2>/dev/null && [ "${C2LAB_NO_AVX512:-0}" != 1 ] &&
        [ "${C2LAB_PORTABLE:-0}" != 1 ]; then
        begin "asan: ctest -L arith without AVX-512 (C2LAB_NO_AVX512=1)"
        C2LAB_NO_AVX512=1 run_ctest build/asan -L arith -LE e2e -E "$asan_left_out"
        end
      fi
      ;;
    fuzz)
      fuzz_args=(--seconds "${C2LAB_FUZZ_SECONDS:-10}")
      if ((asan_built)); then fuzz_args+=(--no-build); fi
      begin "fuzz: every parser's target, ${C2LAB_FUZZ_SECONDS:-10} s each"
      scripts/fuzz.sh "${fuzz_args[@]}"
      end
      ;;
    icount)
      if [ "${C2LAB_SKIP_ICOUNT:-0}" = 1 ]; then continue; fi
      if [ -n "$icount_pid" ]; then
        begin "icount: instruction counts (the rest of the run beside asan)"
        icount_rc=0
        wait "$icount_pid" || icount_rc=$?
        icount_pid=""
        cat "$icount_log"
        rm -f "$icount_log"
        if ((icount_rc != 0)); then echo "icount: failed (exit $icount_rc)" >&2; exit "$icount_rc"; fi
      else
        begin "icount: instruction counts against the stored baseline"
        scripts/icount.sh --gate
      fi
      end
      ;;
  esac
done
