#!/bin/bash
# Alternates two c2lab binaries on the 2 KiB proof, both paths; one JSON per run.
# Usage: run.sh OUT_DIR ROUNDS OLD_C2LAB NEW_C2LAB (from the repository root, after setup --c1)
out=$1; rounds=$2; old=$3; new=$4
mkdir -p "$out"
for r in $(seq 1 "$rounds"); do
  for path in ifma adx; do
    for b in old new; do
      bin=$old; [ "$b" = new ] && bin=$new
      env_=""; [ "$path" = adx ] && env_="C2LAB_NO_AVX512=1"
      env $env_ "$bin" prove --c1 datasets/fixtures/porep-2kib.json -o "$out/p.bin" --json --no-history \
        > "$out/${path}_${b}_$r.json" 2>/dev/null
    done
  done
done
