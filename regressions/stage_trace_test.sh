#!/usr/bin/env bash
# The gate's stage tracing end to end: bench_prove on a small hash chain, once as it is and
# once with the test-only flag inject_stage_slowdown=msm_h (the H MSM takes four times as long,
# every other stage unchanged); `c2lab gate` on the two runs must name msm_h as the stage that
# got slower, with the command of its own benchmark, and no other stage. The H MSM, not the NTT:
# at 2^13 the NTT is 5-10 ms of a 220-380 ms proof, and its doubling was lost in the noise of a
# loaded 2-core machine (a ratio of 1.15 in one run, not judged at all in another); the H MSM is
# about 15% of the proof.
#   regressions/stage_trace_test.sh C2LAB_BINARY BENCH_PROVE_BINARY
set -uo pipefail
BIN="${1:?usage: stage_trace_test.sh C2LAB BENCH_PROVE}"
BENCH="${2:?usage: stage_trace_test.sh C2LAB BENCH_PROVE}"
source "$(dirname "$0")/../cli/test_lib.sh"

run() {  # run OUT [flags...]
  local out=$1
  shift
  "$BENCH" "$@" --benchmark_filter='prove/hash_chain/b_g2:serial/log_n:13/' --benchmark_repetitions=1 \
    --benchmark_min_time=0.05 --benchmark_out="$out" --benchmark_out_format=json >/dev/null 2>"$T/bench.err"
}
# Baseline and slowed runs alternate, one repetition at a time, so that a change of the
# machine's load meets both sides alike; each side's runs are merged into one. In rounds of
# three repetitions a neighbour busy on one of the two cores for the first two thirds of the
# test doubled the baseline's msm_h (14 -> 28 ms, its two threads on one core) and had gone
# before the last slowed round (28 ms again): the gate, rightly, could not call msm_h slower.
mkdir -p "$T/base" "$T/slow"
for round in 1 2 3 4 5 6 7 8 9; do
  run "$T/base/$round.json" || fail "bench_prove (baseline) failed: $(cat "$T/bench.err")"
  run "$T/slow/$round.json" --flag inject_stage_slowdown=msm_h || fail "bench_prove (msm_h slowed) failed: $(cat "$T/bench.err")"
  [ -s "$T/base/$round.json" ] && [ -s "$T/slow/$round.json" ] || fail "bench_prove wrote no results (the filter matched nothing)"
done

merge() {  # merge SIDE: the rounds' repetitions (aggregates dropped) in one file, SIDE.json
  python3 - "$T/$1" >"$T/$1.json" <<'PY' || fail "merging the $1 rounds"
import json, pathlib, sys
files = sorted(pathlib.Path(sys.argv[1]).glob("*.json"))
runs = [json.loads(f.read_text()) for f in files]
out, reps = runs[0], [b for r in runs for b in r["benchmarks"] if b.get("run_type") == "iteration"]
for i, b in enumerate(reps):
    b["repetition_index"], b["repetitions"] = i, len(reps)
out["benchmarks"] = reps
json.dump(out, sys.stdout)
PY
}
merge base
merge slow
"$BIN" gate --baseline "$T/base.json" --current "$T/slow.json" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "gate: exit $rc: $(cat "$T/err")"
has "$T/out" "gate names msm_h" "- msm_h: **slower**" && echo "ok: gate names msm_h"
has "$T/out" "gate points at msm_h's benchmark" "bench_msm --benchmark_filter='msm/g1/(ln|table)/'" &&
  echo "ok: msm_h's benchmark command"
# No other stage slower by anything like the injected doubling. A stage of 80 ms on a shared
# 2-core machine can still drift by 10-20% between the alternated rounds, and the gate rightly
# calls that slower (once: msm_b_g2, ratio 1.156 [1.055, 1.295], after the e2e test had run);
# what this test checks is that the regression is pinned on msm_h, so another stage fails it
# only at a ratio of 1.3 or more.
for other in ntt msm_l msm_a msm_b_g1 msm_b_g2 assemble; do
  line=$(grep -F -- "- $other: **slower**" "$T/out") || continue
  r=$(sed -n 's/.*ratio \([0-9.]*\).*/\1/p' <<<"$line")
  python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 1.3 else 1)" "$r" ||
    { fail "gate calls $other slower too: $line"; continue; }
  echo "note: gate calls $other slower at ratio $r (noise, below 1.3)"
done
# The ratio of the msm_h stage: about 4 (it takes four times as long); wide bounds, as other load
# on the machine blurs it (a neighbour on one core doubles the samples it meets: 2.86 to 4.25
# in ten runs with a busy loop started beside them for 1-5 s).
ratio=$(grep -F -- "- msm_h: **slower**" "$T/out" | sed -n 's/.*ratio \([0-9.]*\).*/\1/p')
python3 -c "import sys; r=float(sys.argv[1]); sys.exit(0 if 2.0 < r < 8.0 else 1)" "$ratio" ||
  fail "msm_h ratio $ratio, expected about 4"
finish stage_trace_test
