# Shared by the CLI test scripts (sourced): a temporary directory $T removed on exit, a
# failure counter, and
#   expect CODE NAME CMD...   runs CMD (stdout in $T/out, stderr in $T/err), checks the exit code
#                             and prints "ok: NAME (seconds)", so a slow step of a script shows
#   has FILE NAME PATTERN     FILE contains the fixed string PATTERN
#   finish NAME               exits 1 if any check failed
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# Runs that record into the results history (prove --json) record into this test's own.
unset C2LAB_DB
export C2LAB_HISTORY="$T/history.sqlite"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
expect() {
  local want=$1 name=$2
  shift 2
  local started=$EPOCHREALTIME
  "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  local took
  took=$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  if [ "$rc" -ne "$want" ]; then
    fail "$name: exit $rc, expected $want"
    sed 's/^/    stdout: /' "$T/out" >&2
    tail -n 40 "$T/err" | sed 's/^/    stderr: /' >&2
    return 1
  fi
  echo "ok: $name ($took s)"
}
has() {
  grep -qF -- "$3" "$1" || { fail "$2: '$3' not in $(basename "$1"): $(head -c 400 "$1")"; return 1; }
}
finish() {
  if [ $failures -ne 0 ]; then
    echo "$1: $failures failure(s)" >&2
    exit 1
  fi
  echo "$1: all checks passed"
}

# bench_json FILE CPU A_CENTER B_CENTER [COMMIT]: Google Benchmark JSON with benchmarks "a" and "b",
# 6 repetitions each with +-0.5% jitter (ns); with COMMIT, its commit and a date from its last digit.
bench_json() {
  python3 - "$@" <<'PY'
import json, sys
path, cpu, a, b = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
commit = sys.argv[5] if len(sys.argv) > 5 else None
rows = []
for name, c in (("a", a), ("b", b)):
    for i, j in enumerate((-0.005, -0.003, -0.001, 0.001, 0.003, 0.005)):
        rows.append({"name": name, "run_name": name, "run_type": "iteration", "repetitions": 6,
                     "repetition_index": i, "iterations": 10, "real_time": c * (1 + j),
                     "cpu_time": c * (1 + j), "time_unit": "ns"})
ctx = {"cpu_model": cpu, "num_cpus": 2, "build_type": "Release", "compiler": "c++"}
if commit:
    ctx.update({"commit": commit, "date": "2026-12-0%sT10:00:00+00:00" % commit[-1]})
json.dump({"context": ctx, "benchmarks": rows}, open(path, "w"))
PY
}

# flip_byte FILE OFFSET: XOR the byte at OFFSET with 0x55, so the file always changes (writing a
# fixed byte left a proof unchanged whenever it already held that byte: 1 run in 256).
flip_byte() {
  python3 - "$1" "$2" <<'PY'
import sys
path, offset = sys.argv[1], int(sys.argv[2])
data = bytearray(open(path, "rb").read())
data[offset] ^= 0x55
open(path, "wb").write(data)
PY
}
