#!/usr/bin/env bash
# Faults of long, unattended runs, on the built c2lab: fault_test.sh /path/to/c2lab
#   interruption  SIGINT / SIGTERM during setup (named and unnamed temporaries), gen, prove, a
#                 parameters-cache entry and scripts/bench.sh: exit 130 / 143, no *.tmp.* left,
#                 the old file unchanged, and a rerun that succeeds with a file that loads
#   full disk     a file-size limit (ulimit -f: write() fails as on a full disk) on setup, gen,
#                 a cache entry and a baseline: exit 2, a message naming the file and the reason,
#                 the old file unchanged
#   memory        --memory-budget below the estimate: setup and prove refuse before allocating,
#                 naming the estimate and the budget, and write nothing
#   concurrency   two setups sharing one empty cache: both succeed, one makes the entry, the
#                 other waits and uses it, and the entry proves and verifies
# The signal is sent once the run is in the phase that matters: a temporary file exists
# (C2LAB_NAMED_TEMP_FILES=1 makes it visible by name) or a progress line was printed.
# About a minute on 2 cores (hash-chain circuits of 2^15 steps), so ctest labels it e2e.
set -u
BIN=${1:?usage: fault_test.sh /path/to/c2lab}
SRC=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=cli/test_lib.sh
source "$(dirname "$0")/test_lib.sh"
# Job control: commands started with & keep SIGINT at its default (a shell without it starts
# them with SIGINT ignored, and c2lab leaves an ignored SIGINT ignored).
set -m
export C2LAB_CACHE_DIR="$T/cache"
S=32768       # hash-chain steps: setup about 4 s here (2 cores, loaded), a 22 MB parameters file
S_SMALL=4096  # where the run only has to reach its write: a 2.8 MB parameters file

# no_temps NAME DIR...: no temporary file left under the directories.
no_temps() {
  local name=$1 left
  shift
  left=$(find "$@" -name '*.tmp.*' 2>/dev/null)
  [ -z "$left" ] || fail "$name: temporary files left: $left"
}
# same NAME FILE TEXT: FILE holds exactly TEXT (the old content).
same() {
  [ "$(cat "$2" 2>/dev/null)" = "$3" ] || fail "$1: $2 changed: $(head -c 80 "$2" 2>/dev/null | tr -c '[:print:]' .)"
}
# signal_when SIG CONDITION CMD...: runs CMD in the background (stdout $T/out, stderr $T/err),
# polls CONDITION (a shell command) every 10 ms until it holds, then sends SIG; sets rc to
# CMD's exit status and waited_ms to how long the condition took. A CMD that ends first is
# reported by the caller's check of rc.
signal_when() {
  local sig=$1 cond=$2 i
  shift 2
  "$@" >"$T/out" 2>"$T/err" &
  local pid=$!
  local t0=$(date +%s%N)
  for ((i = 0; i < 12000; i++)); do  # 120 s at most
    eval "$cond" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
  done
  waited_ms=$((($(date +%s%N) - t0) / 1000000))
  kill -s "$sig" "$pid" 2>/dev/null
  wait "$pid"
  rc=$?
}
# expect_signal NAME WANT: rc is WANT (130 for SIGINT, 143 for SIGTERM).
expect_signal() {
  if [ "$rc" -eq "$2" ]; then
    echo "ok: $1 (exit $rc after ${waited_ms} ms)"
  else
    fail "$1: exit $rc, expected $2 (the command ended before the signal, or died otherwise)"
    tail -n 20 "$T/err" | sed 's/^/    stderr: /' >&2
  fi
}

# --- setup, prove, verify: the reference run -------------------------------------------------
t0=$(date +%s%N)
expect 0 "setup" "$BIN" setup --circuit hash-chain --steps $S -o "$T/params.bin" --seed 5
echo "  (setup of $S steps: $((($(date +%s%N) - t0) / 1000000)) ms, $(stat -c %s "$T/params.bin") bytes)"

# --- interruption ------------------------------------------------------------------------------
# setup, named temporary: SIGINT while params.bin.tmp.XXXXXX is being written.
echo old >"$T/out1.params"
C2LAB_NAMED_TEMP_FILES=1 signal_when INT 'compgen -G "$T/out1.params.tmp.*" >/dev/null' \
  "$BIN" setup --circuit hash-chain --steps $S -o "$T/out1.params" --seed 5
expect_signal "setup SIGINT mid-write (named temporary)" 130
same "setup SIGINT mid-write" "$T/out1.params" old
no_temps "setup SIGINT mid-write" "$T"
# setup, unnamed temporary (O_TMPFILE): SIGTERM once it says it is writing.
signal_when TERM 'grep -q "\[setup\] writing" "$T/err"' \
  "$BIN" setup --circuit hash-chain --steps $S -o "$T/out1.params" --seed 5
expect_signal "setup SIGTERM while writing (unnamed temporary)" 143
same "setup SIGTERM while writing" "$T/out1.params" old
no_temps "setup SIGTERM while writing" "$T"
# The rerun replaces the old file with parameters that prove and verify.
expect 0 "setup rerun" "$BIN" setup --circuit hash-chain --steps $S -o "$T/out1.params" --seed 5
cmp -s "$T/out1.params" "$T/params.bin" || fail "setup rerun: not the same parameters as the reference run"

# prove: SIGTERM during synthesis / proving; the old proof stays, a rerun verifies.
echo old >"$T/proof.bin"
echo old >"$T/proof.bin.inputs"
signal_when TERM 'grep -q "\[prove\] synthesizing" "$T/err"' \
  "$BIN" prove --params "$T/params.bin" --steps $S --x0 3 -o "$T/proof.bin"
expect_signal "prove SIGTERM" 143
same "prove SIGTERM" "$T/proof.bin" old
same "prove SIGTERM (inputs)" "$T/proof.bin.inputs" old
no_temps "prove SIGTERM" "$T"
expect 0 "prove rerun" "$BIN" prove --params "$T/params.bin" --steps $S --x0 3 -o "$T/proof.bin"
expect 0 "verify rerun" "$BIN" verify --params "$T/params.bin" --proof "$T/proof.bin" --inputs "$T/proof.bin.inputs"

# gen of a 32 GiB sector (a 51 MB C1 file): SIGINT during generation, SIGTERM while the file is
# written; the old C1 file stays, a rerun loads.
echo old >"$T/c1.json"
signal_when INT 'grep -q "\[gen\] " "$T/err"' "$BIN" gen --sector 32GiB --seed 1 -o "$T/c1.json"
expect_signal "gen SIGINT" 130
same "gen SIGINT" "$T/c1.json" old
no_temps "gen SIGINT" "$T"
C2LAB_NAMED_TEMP_FILES=1 signal_when TERM 'compgen -G "$T/c1.json.tmp.*" >/dev/null' \
  "$BIN" gen --sector 32GiB --seed 1 -o "$T/c1.json"
expect_signal "gen SIGTERM mid-write (named temporary)" 143
same "gen SIGTERM mid-write" "$T/c1.json" old
no_temps "gen SIGTERM mid-write" "$T"
expect 0 "gen 2KiB rerun" "$BIN" gen --sector 2KiB --seed 1 -o "$T/c1.json"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["Phase1Out"]' "$T/c1.json" ||
  fail "gen rerun: $T/c1.json does not load as a C1 file"

# A parameters-cache entry: SIGINT while it is written; no entry, no temporary; the rerun makes
# it (not "cached") and it proves.
C2LAB_NAMED_TEMP_FILES=1 signal_when INT 'compgen -G "$C2LAB_CACHE_DIR/params/*.tmp.*" >/dev/null' \
  "$BIN" setup --circuit hash-chain --steps $S --seed 5
expect_signal "cache entry SIGINT mid-write" 130
entry=$(compgen -G "$C2LAB_CACHE_DIR/params/hash-chain-*.params")
[ -z "$entry" ] || fail "cache entry SIGINT: an entry was left: $entry"
no_temps "cache entry SIGINT" "$T"
expect 0 "cache entry rerun" "$BIN" setup --circuit hash-chain --steps $S --seed 5 &&
  has "$T/err" "cache entry rerun" "writing"
entry=$(compgen -G "$C2LAB_CACHE_DIR/params/hash-chain-*.params")
cmp -s "$entry" "$T/params.bin" || fail "cache entry rerun: not the reference parameters"
expect 0 "setup cached" "$BIN" setup --circuit hash-chain --steps $S --seed 5 && has "$T/out" "setup cached" "cached" &&
  has "$T/err" "setup cached" "parameters: cached $entry"

# scripts/bench.sh (and `c2lab bench`, which runs it): a copy in a scratch tree whose set-up and
# build steps do nothing and whose one benchmark writes half its JSON, then sleeps; SIGTERM
# and SIGINT to the script stop it and leave no partial JSON in the run directory.
fake="$T/tree"
mkdir -p "$fake/scripts" "$fake/build/release/benchmarks"
cp "$SRC/scripts/bench.sh" "$fake/scripts/bench.sh"
printf '#!/bin/sh\nexit 0\n' >"$fake/scripts/setup.sh"
printf '#!/bin/sh\nexit 0\n' >"$fake/scripts/build.sh"
cat >"$fake/build/release/benchmarks/bench_fake" <<'EOF'
#!/usr/bin/env bash
for a in "$@"; do case "$a" in --benchmark_out=*) out=${a#--benchmark_out=} ;; esac; done
printf '{"context": {' >"$out"
echo $$ >"$FAKE_PID_FILE"
exec sleep 60
EOF
chmod +x "$fake/scripts/"*.sh "$fake/build/release/benchmarks/bench_fake"
for sig in TERM INT; do
  rm -f "$T/fake.pid"
  FAKE_PID_FILE="$T/fake.pid" signal_when $sig 'compgen -G "$fake/results/runs/*/bench_fake.json.tmp.*" >/dev/null' \
    bash "$fake/scripts/bench.sh"
  expect_signal "bench.sh SIG$sig" $([ $sig = INT ] && echo 130 || echo 143)
  no_temps "bench.sh SIG$sig" "$fake/results"
  left=$(find "$fake/results" -type f)
  [ -z "$left" ] || fail "bench.sh SIG$sig: files left in the run directory: $left"
  if kill -0 "$(cat "$T/fake.pid" 2>/dev/null)" 2>/dev/null; then
    fail "bench.sh SIG$sig: the benchmark still runs"
    kill "$(cat "$T/fake.pid")"
  fi
done

# --- full disk (a file-size limit: write() fails with EFBIG as it does with ENOSPC) -------------
# bash's ulimit -f counts 1024-byte blocks. c2lab ignores SIGXFSZ, so the write fails and is reported.
echo old >"$T/limited.params"
expect 2 "setup over ulimit -f" bash -c 'ulimit -f 64; exec "$@"' _ \
  "$BIN" setup --circuit hash-chain --steps $S_SMALL -o "$T/limited.params" --seed 5 &&
  has "$T/err" "setup over ulimit -f" "cannot write $T/limited.params: File too large" &&
  has "$T/err" "setup over ulimit -f" "$T/limited.params is left as it was"
same "setup over ulimit -f" "$T/limited.params" old
echo old >"$T/limited.json"
expect 2 "gen over ulimit -f" bash -c 'ulimit -f 4; exec "$@"' _ "$BIN" gen --sector 2KiB --seed 1 -o "$T/limited.json" &&
  has "$T/err" "gen over ulimit -f" "File too large" && has "$T/err" "gen over ulimit -f" "$T/limited.json"
same "gen over ulimit -f" "$T/limited.json" old
expect 2 "cache entry over ulimit -f" env C2LAB_CACHE_DIR="$T/cache-limited" bash -c 'ulimit -f 64; exec "$@"' _ \
  "$BIN" setup --circuit hash-chain --steps $S_SMALL --seed 5 && has "$T/err" "cache entry over ulimit -f" "File too large" &&
  has "$T/err" "cache entry over ulimit -f" "was not written"
[ -z "$(compgen -G "$T/cache-limited/params/*.params")" ] || fail "cache entry over ulimit -f: an entry was left"
# A baseline: `c2lab baseline update` of a run of 12 rows (2.3 KB) under a 1 KiB limit.
mkdir -p "$T/run" "$T/results/baselines/test-cpu-2cpu-release"
python3 - "$T/run/bench_a.json" <<'PY'
import json, sys
rows = [{"name": n, "run_name": n, "run_type": "iteration", "repetitions": 6, "repetition_index": i,
         "iterations": 10, "real_time": 100.0 + i, "cpu_time": 100.0 + i, "time_unit": "ns"}
        for n in ("a", "b") for i in range(6)]
ctx = {"cpu_model": "Test CPU", "num_cpus": 2, "build_type": "Release", "compiler": "c++"}
json.dump({"context": ctx, "benchmarks": rows}, open(sys.argv[1], "w"))
PY
echo old >"$T/results/baselines/test-cpu-2cpu-release/bench_a.json"
expect 2 "baseline update over ulimit -f" bash -c 'ulimit -f 1; exec "$@"' _ \
  "$BIN" baseline update --from "$T/run" --results "$T/results" &&
  has "$T/err" "baseline update over ulimit -f" "File too large" &&
  has "$T/err" "baseline update over ulimit -f" "bench_a.json is left as it was"
same "baseline update over ulimit -f" "$T/results/baselines/test-cpu-2cpu-release/bench_a.json" old
expect 0 "baseline update rerun" "$BIN" baseline update --from "$T/run" --results "$T/results"
cmp -s "$T/run/bench_a.json" "$T/results/baselines/test-cpu-2cpu-release/bench_a.json" ||
  fail "baseline update rerun: not a copy of the run"
no_temps "full disk" "$T"

# --- memory ------------------------------------------------------------------------------------
expect 2 "setup over --memory-budget" "$BIN" setup --circuit hash-chain --steps $S_SMALL -o "$T/mem.params" \
  --memory-budget 1MiB && has "$T/err" "setup over --memory-budget" "setup of hash-chain needs about" &&
  has "$T/err" "setup over --memory-budget" "more than the 1.00 MiB of the memory budget"
[ -e "$T/mem.params" ] && fail "setup over --memory-budget wrote $T/mem.params"
grep -q "recording" "$T/err" && fail "setup over --memory-budget: refused only after recording the matrices"
expect 2 "cache setup over --memory-budget" env C2LAB_CACHE_DIR="$T/cache-mem" "$BIN" setup --circuit hash-chain \
  --steps $S_SMALL --memory-budget 0.001 && has "$T/err" "cache setup over --memory-budget" "the memory budget"
[ -z "$(compgen -G "$T/cache-mem/params/*.params")" ] || fail "cache setup over --memory-budget: an entry was made"
expect 2 "prove over --memory-budget" "$BIN" prove --params "$T/params.bin" --steps $S --x0 3 -o "$T/mem.proof" \
  --memory-budget 1MiB && has "$T/err" "prove over --memory-budget" "needs about" &&
  has "$T/err" "prove over --memory-budget" "parameters" && has "$T/err" "prove over --memory-budget" "1.00 MiB"
[ -e "$T/mem.proof" ] && fail "prove over --memory-budget wrote $T/mem.proof"
expect 2 "prove --c1 over --memory-budget" "$BIN" prove --c1 "$T/c1.json" -o "$T/mem.proof" --memory-budget 64MiB &&
  has "$T/err" "prove --c1 over --memory-budget" "StackedDrg2KiBV1_1" &&
  has "$T/err" "prove --c1 over --memory-budget" "more than the 64.00 MiB of the memory budget"
[ -e "$T/mem.proof" ] && fail "prove --c1 over --memory-budget wrote $T/mem.proof"
expect 2 "bad --memory-budget" "$BIN" prove --params "$T/params.bin" --steps $S --x0 3 -o "$T/mem.proof" \
  --memory-budget 1XB && has "$T/err" "bad --memory-budget" "not a memory size"

# --- two processes, one cache ------------------------------------------------------------------
export C2LAB_CACHE_DIR="$T/shared"
"$BIN" setup --circuit hash-chain --steps $S --seed 5 >"$T/a.out" 2>"$T/a.err" &
pa=$!
"$BIN" setup --circuit hash-chain --steps $S --seed 5 >"$T/b.out" 2>"$T/b.err" &
pb=$!
wait $pa
ra=$?
wait $pb
rb=$?
[ $ra -eq 0 ] && [ $rb -eq 0 ] && echo "ok: two setups at once" || fail "two setups at once: exit $ra and $rb"
made=$(grep -l "\[setup\] writing" "$T/a.err" "$T/b.err" | wc -l)
reused=$(grep -l "parameters: cached" "$T/a.err" "$T/b.err" | wc -l)
[ "$made" -eq 1 ] && [ "$reused" -eq 1 ] && echo "ok: one made the entry, one reused it" ||
  fail "two setups at once: $made made the entry, $reused reused it (expected 1 and 1)"
grep -h "waiting for another c2lab process" "$T/a.err" "$T/b.err" | sed 's/^/  note: /'
entry=$(compgen -G "$C2LAB_CACHE_DIR/params/hash-chain-*.params")
no_temps "two setups at once" "$C2LAB_CACHE_DIR"
expect 0 "prove with the shared entry" "$BIN" prove --params "$entry" --steps $S --x0 9 -o "$T/shared.proof"
expect 0 "verify with the shared entry" "$BIN" verify --params "$entry" --proof "$T/shared.proof" \
  --inputs "$T/shared.proof.inputs"

finish fault_test
