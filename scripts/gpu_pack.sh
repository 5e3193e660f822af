#!/usr/bin/env bash
# Prepares a GPU run on another machine: builds the CUDA backend here (nvcc needs no GPU), then
# copies the GPU tests, the benchmarks that time the device, the c2lab CLI, the shared
# libraries they need beyond glibc, and scripts/gpu_run.sh into one folder (default
# .gpu-pack/, ignored by git) that the GPU machine runs without building or installing:
#   scripts/gpu_pack.sh [DIR]          then, there:  bash DIR/gpu_run.sh OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
pack="${1:-.gpu-pack}"
scripts/setup.sh
scripts/build.sh release >/dev/null
b=build/release
if [ ! -e "$b/gpu/msm/gpu_msm_test" ]; then
  echo "gpu_pack: $b was built without CUDA (no nvcc at configure time): nothing to pack" >&2
  exit 2
fi
rm -rf "$pack"
mkdir -p "$pack/bin" "$pack/lib"
bins=(gpu/gpu_host_test gpu/msm/gpu_msm_host_test gpu/ntt/gpu_ntt_host_test gpu/msm/gpu_msm_test
      gpu/ntt/gpu_ntt_test gpu/memory/gpu_memory_test benchmarks/bench_gpu benchmarks/bench_pinning
      benchmarks/bench_prove cli/c2lab)
for f in "${bins[@]}"; do
  [ -x "$b/$f" ] || { echo "gpu_pack: $b/$f was not built" >&2; exit 2; }
  cp "$b/$f" "$pack/bin/"
done
# Shared libraries outside glibc and the CUDA driver (which the GPU machine has).
for f in "$pack"/bin/*; do
  ldd "$f" | awk '/=> \// {print $3}'
done | sort -u | grep -Ev '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*|libgcc_s|libcuda)\.so' |
  while read -r lib; do cp -L "$lib" "$pack/lib/"; done
# The C++ runtime goes aside: gpu_run.sh uses it only where the GPU machine's own is older
# (a newer system one serves these binaries, and the machine's tools need the newer one).
mkdir -p "$pack/lib/cxx"
mv "$pack"/lib/libstdc++.so.* "$pack/lib/cxx/"
cp scripts/gpu_run.sh "$pack/"
du -sh "$pack" >&2
echo "gpu_pack: $pack ready; on the GPU machine: bash $pack/gpu_run.sh OUT_DIR" >&2
