#!/usr/bin/env bash
# The GPU checks of c2lab in one run, from a folder made by scripts/gpu_pack.sh:
#   bash .gpu-pack/gpu_run.sh OUT_DIR
# Steps, most telling first (a step that fails does not stop the ones after it):
# 1. the device and host description (c2lab gpu-info, nvidia-smi, the CPU);
# 2. the GPU tests: the device MSM, NTT, h and host-memory results against the CPU
#    (a failing device test is run again under compute-sanitizer where it is installed);
# 3. a hash-chain proof with --backend cuda beside the CPU's, verified;
# 4. the GPU benchmarks as Google Benchmark JSON (manual time from CUDA events), mid sizes;
# 5. a 2 KiB PoRep partition: setup, then prove on the CPU and with --backend cuda, both verified;
# 6. bench_pinning (cudaHostRegister, cudaMallocHost, copies each way, pageable vs pinned);
# 7. the GPU benchmarks at the largest sizes (G1 2^25..2^26, G2 2^23..2^24, NTT and h 2^25..2^27);
# 8. c2lab ab of host_pinning=off,register,malloc_host on the 2 KiB PoRep job with --backend cuda;
# 9. c2lab ab of synth=direct,pce on the 2 KiB PoRep job, CPU and CUDA backends (many cores).
# Everything lands in OUT_DIR (run.log, *.json, *.txt); copy it to results/gpu/<gpu name>/.
# C2LAB_GPU_BUDGET_S=N: a step whose estimate no longer fits in N seconds from the start is
#   skipped (and says so), and every step runs under a timeout that ends by the deadline.
# C2LAB_GPU_QUICK=1 keeps the smallest sizes only (a first try on a new machine).
# C2LAB_GPU_STEPS="device tests ..." runs only the steps named (device tests chain bench porep
#   pinning large ab ab_synth; default: all of them; device always runs).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: gpu_run.sh OUT_DIR}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
# The packed C++ runtime only where the system's lacks the newest symbol version it provides.
cxx_lib="$here/lib/cxx"
newest="$(grep -a -o 'GLIBCXX_3\.4\.[0-9]*' "$cxx_lib"/libstdc++.so.* 2>/dev/null | sort -t. -k3 -n | tail -1)"
sys_cxx="$(ldconfig -p 2>/dev/null | awk '/libstdc\+\+\.so\.6 .*x86-64/ {print $NF; exit}')"
if [ -n "$sys_cxx" ] && [ -n "$newest" ] && grep -a -q "$newest" "$sys_cxx"; then cxx_lib=""; fi
export LD_LIBRARY_PATH="$here/lib${cxx_lib:+:$cxx_lib}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
bin="$here/bin"
budget="${C2LAB_GPU_BUDGET_S:-0}"
t0=$(date +%s)
status=0
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

steps="${C2LAB_GPU_STEPS:-tests chain bench porep pinning large ab ab_synth}"
wanted() { case " $steps " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
elapsed() { echo $(( $(date +%s) - t0 )); }
# step NAME ESTIMATE_S TIMEOUT_S LOG COMMAND...: runs COMMAND, its output into OUT_DIR/LOG (the
# tail of it shown on a failure), under a timeout cut to the deadline; or skips it when its
# estimate does not fit in what is left of the budget.
step() {
  local name="$1" est="$2" lim="$3" log="$out/$4"; shift 4
  if [ "$budget" -gt 0 ]; then
    local left=$(( budget - $(elapsed) ))
    if [ "$left" -lt "$est" ]; then
      echo "== $name: skipped, ${left}s of the budget left, estimate ${est}s =="
      return 0
    fi
    [ "$lim" -gt "$left" ] && lim=$left
  fi
  echo "== $name (t=$(elapsed)s, timeout ${lim}s) =="
  local s=$(date +%s)
  timeout -k 5 "$lim" bash -c '"$@"' step "$@" >"$log" 2>&1  # bash -c: COMMAND may be a function
  local rc=$?
  echo "== $name: exit $rc after $(( $(date +%s) - s ))s =="
  if [ "$rc" -ne 0 ]; then status=1; tail -40 "$log"; fi
  return $rc
}

describe() {
  "$bin/c2lab" gpu-info || return 2
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv 2>/dev/null
  grep -m1 'model name' /proc/cpuinfo; echo "cores: $(nproc)"; grep -m1 MemTotal /proc/meminfo
  grep -m1 -o -E 'avx512ifma' /proc/cpuinfo || echo "no avx512ifma"
}
export bin out work
export -f describe
step device 5 30 device.txt describe || { echo "gpu_run: no usable GPU" >&2; exit 2; }
cat "$out/device.txt"

gpu_tests() {
  local t fails=0
  for t in gpu_memory_test gpu_ntt_test gpu_msm_test gpu_host_test gpu_msm_host_test gpu_ntt_host_test; do
    if timeout -k 5 240 "$bin/$t" --gtest_brief=1 >"$out/test-$t.log" 2>&1; then echo "pass $t"
    else
      echo "FAIL $t (exit $?)"; fails=1; tail -30 "$out/test-$t.log"
      case "$t" in gpu_*_host_test) ;;
        *) if command -v compute-sanitizer >/dev/null; then
             timeout -k 5 120 compute-sanitizer --tool memcheck --print-limit 20 "$bin/$t" --gtest_brief=1 \
               >"$out/sanitizer-$t.log" 2>&1
             tail -40 "$out/sanitizer-$t.log"
           fi ;;
      esac
    fi
  done
  return $fails
}
export -f gpu_tests
wanted tests && step tests 30 400 tests.txt gpu_tests && cat "$out/tests.txt"

hash_chain() {
  "$bin/c2lab" setup --circuit hash-chain --steps 100000 -o "$work/p.bin" --seed 1 &&
  "$bin/c2lab" prove --params "$work/p.bin" --steps 100000 --x0 5 -o "$work/cpu.bin" --json --no-history > "$out/prove_chain_cpu.json" &&
  "$bin/c2lab" prove --params "$work/p.bin" --steps 100000 --x0 5 -o "$work/cuda.bin" --backend cuda --json --no-history > "$out/prove_chain_cuda.json" &&
  "$bin/c2lab" verify --params "$work/p.bin" --proof "$work/cuda.bin" --inputs "$work/cuda.bin.inputs" &&
  "$bin/c2lab" verify --params "$work/p.bin" --proof "$work/cpu.bin" --inputs "$work/cpu.bin.inputs"
}
export -f hash_chain
wanted chain && step "prove hash-chain --backend cuda" 30 180 prove_chain.txt hash_chain

msm_g1='gpu/msm/g1/log_n:(16|18|20|22|24)/' msm_g2='gpu/msm/g2/log_n:(16|18|20|22)/' ntt='gpu/(ntt/forward|h)/log_n:(20|22|24)/'
big_g1='gpu/msm/g1/log_n:(25|26)/' big_g2='gpu/msm/g2/log_n:(23|24)/' big_ntt='gpu/(ntt/forward|h)/log_n:(25|26|27)/'
pin_max="${C2LAB_PINNING_MAX_MIB:-16384}"
if [ "${C2LAB_GPU_QUICK:-0}" = 1 ]; then
  msm_g1='gpu/msm/g1/log_n:20/' msm_g2='gpu/msm/g2/log_n:20/' ntt='gpu/(ntt/forward|h)/log_n:20/' pin_max=1024
fi
bench_gpu() {  # NAME FILTER
  "$bin/bench_gpu" --benchmark_filter="$2" --benchmark_repetitions=3 --benchmark_min_time=0.2 \
    --benchmark_out="$out/$1.json" --benchmark_out_format=json
}
export -f bench_gpu
wanted bench && step "bench_gpu mid sizes" 60 240 bench_gpu.txt bench_gpu bench_gpu "$msm_g1|$msm_g2|$ntt"

porep() {
  export C2LAB_CACHE_DIR="$work/cache"
  "$bin/c2lab" gen --sector 2KiB --seed 7 -o "$work/c1.json" &&
  "$bin/c2lab" setup --c1 "$work/c1.json" &&
  "$bin/c2lab" prove --c1 "$work/c1.json" -o "$work/porep_cpu.bin" --json --no-history > "$out/prove_porep_cpu.json" &&
  "$bin/c2lab" prove --c1 "$work/c1.json" -o "$work/porep_cuda.bin" --backend cuda --json --no-history > "$out/prove_porep_cuda.json" &&
  "$bin/c2lab" verify --c1 "$work/c1.json" --proof "$work/porep_cuda.bin" &&
  "$bin/c2lab" verify --c1 "$work/c1.json" --proof "$work/porep_cpu.bin"
}
export -f porep
wanted porep && step "prove porep-2kib --backend cuda" 90 300 prove_porep.txt porep

wanted pinning && step bench_pinning 40 120 bench_pinning.txt env C2LAB_PINNING_MAX_MIB=$pin_max "$bin/bench_pinning" \
  --benchmark_out="$out/bench_pinning.json" --benchmark_out_format=json

if [ "${C2LAB_GPU_QUICK:-0}" != 1 ] && wanted large; then
  step "bench_gpu largest sizes" 90 300 bench_gpu_large.txt bench_gpu bench_gpu_large "$big_g1|$big_g2|$big_ntt"
fi
# ab_porep OUT_NAME FILTER FLAG=V1,V2,...: c2lab ab of one flag on the 2 KiB PoRep job (bench_prove).
ab_porep() {
  export C2LAB_CACHE_DIR="$work/cache"
  "$bin/c2lab" ab --binary bench_prove --bench-dir "$bin" --filter "$2" --dataset porep-2kib --flag "$3" \
    --rounds "${C2LAB_GPU_AB_ROUNDS:-8}" --warmup 1 --min-time 0.01 --no-history --out "$out/$1"
}
export -f ab_porep
if [ "${C2LAB_GPU_QUICK:-0}" != 1 ] && wanted ab; then
  step "c2lab ab host_pinning, 2 KiB PoRep job with --backend cuda" 120 400 ab_host_pinning.txt \
    ab_porep ab-host-pinning 'prove/porep/porep-2kib/backend:cuda' host_pinning=off,register,malloc_host
fi
if [ "${C2LAB_GPU_QUICK:-0}" != 1 ] && wanted ab_synth; then
  step "c2lab ab synth, 2 KiB PoRep job on the CPU and with --backend cuda" 120 400 ab_synth.txt \
    ab_porep ab-synth 'prove/porep/porep-2kib/backend:(cpu|cuda)' synth=direct,pce
fi
echo "gpu_run: exit $status after $(elapsed)s; results in $out" >&2
exit $status
