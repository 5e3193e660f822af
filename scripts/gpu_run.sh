#!/usr/bin/env bash
# The GPU checks of c2lab in one run, from a folder made by scripts/gpu_pack.sh:
#   bash .gpu-pack/gpu_run.sh OUT_DIR
# 1. the device description (c2lab gpu-info);
# 2. the GPU tests: the device MSM, NTT, h and host-memory results against the CPU;
# 3. the GPU benchmarks as Google Benchmark JSON (manual time from CUDA events):
#    G1 MSM 2^20..2^26, G2 MSM 2^20..2^24, NTT and h 2^20..2^27, pinning 64 MiB..64 GiB
#    (cudaHostRegister, cudaMallocHost, copies each way, pageable vs pinned);
# 4. a hash-chain proof with --backend cuda, verified.
# Everything lands in OUT_DIR (logs, *.json); copy it to results/gpu/<gpu name>/.
# C2LAB_GPU_QUICK=1 keeps the smallest sizes only (a first try on a new machine).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: gpu_run.sh OUT_DIR}"
mkdir -p "$out"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
bin="$here/bin"
status=0
step() { echo "== $* ==" >&2; }

step "device"
"$bin/c2lab" gpu-info | tee "$out/device.txt" || { echo "gpu_run: no usable GPU" >&2; exit 2; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv >>"$out/device.txt" 2>/dev/null

step "tests"
for t in gpu_host_test gpu_msm_host_test gpu_ntt_host_test gpu_memory_test gpu_ntt_test gpu_msm_test; do
  "$bin/$t" --gtest_brief=1 >"$out/test-$t.log" 2>&1 && echo "pass $t" || { echo "FAIL $t" ; status=1; }
done | tee "$out/tests.txt"
grep -q FAIL "$out/tests.txt" && status=1

step "benchmarks"
msm_g1='gpu/msm/g1/log_n:(2[0-6])/' msm_g2='gpu/msm/g2/log_n:(2[0-4])/' ntt='gpu/(ntt/forward|h)/log_n:(2[0-7])/'
pin_max=65536
if [ "${C2LAB_GPU_QUICK:-0}" = 1 ]; then
  msm_g1='gpu/msm/g1/log_n:20/' msm_g2='gpu/msm/g2/log_n:20/' ntt='gpu/(ntt/forward|h)/log_n:20/' pin_max=1024
fi
"$bin/bench_gpu" --benchmark_filter="$msm_g1|$msm_g2|$ntt" --benchmark_repetitions=3 \
  --benchmark_out="$out/bench_gpu.json" --benchmark_out_format=json >"$out/bench_gpu.txt" 2>&1 || status=1
C2LAB_PINNING_MAX_MIB=$pin_max "$bin/bench_pinning" --benchmark_out="$out/bench_pinning.json" \
  --benchmark_out_format=json >"$out/bench_pinning.txt" 2>&1 || status=1

step "prove --backend cuda"
w="$(mktemp -d)"
{ "$bin/c2lab" setup --circuit hash-chain --steps 100000 -o "$w/p.bin" --seed 1 &&
  "$bin/c2lab" prove --params "$w/p.bin" --steps 100000 --x0 5 -o "$w/cpu.bin" --json > "$out/prove_cpu.json" &&
  "$bin/c2lab" prove --params "$w/p.bin" --steps 100000 --x0 5 -o "$w/cuda.bin" --backend cuda --json > "$out/prove_cuda.json" &&
  "$bin/c2lab" verify --params "$w/p.bin" --proof "$w/cuda.bin" --inputs "$w/cuda.bin.inputs"; } >"$out/prove.txt" 2>&1 ||
  { echo "FAIL prove --backend cuda (see prove.txt)" >&2; status=1; }
rm -rf "$w"
echo "gpu_run: exit $status; results in $out" >&2
exit $status
