#!/bin/bash
# Both arithmetic paths on this machine, alternated: IFMA (as is) and C2LAB_NO_AVX512=1.
cd "$(dirname "$0")/../../.."
B=build/release/benchmarks
out=${1:?usage: run.sh OUTDIR}; mkdir -p $out
for rep in 1 2; do
  for path in ifma noavx512; do
    if [ $path = noavx512 ]; then E="env C2LAB_NO_AVX512=1"; else E="env"; fi
    $E $B/bench_prove --benchmark_filter='prove/porep/porep-2kib' --benchmark_format=json > $out/prove-$path-$rep.json 2>/dev/null
    $E $B/bench_msm --benchmark_filter='msm/g1/table/log_n:(16|20)/density:100/threads:(1|2)/' --benchmark_min_time=0.5 --benchmark_format=json > $out/msm-$path-$rep.json 2>/dev/null
    $E $B/bench_ntt --benchmark_filter='ntt/(forward/log_n:22/threads:(1|2)|floor/log_n:22)' --benchmark_format=json > $out/ntt-$path-$rep.json 2>/dev/null
    $E $B/bench_ff --benchmark_filter='ff/(fp_mul|fr_mul|fp_inverse)$|ff/fp_mul_batch/path:(scalar|ifma)/n:4096' --benchmark_format=json > $out/ff-$path-$rep.json 2>/dev/null
    $E $B/bench_params --benchmark_filter='porep-2kib/params_io:mmap/cache:warm' --benchmark_format=json > $out/params-$path-$rep.json 2>/dev/null
  done
done
echo done > $out/done
