#!/usr/bin/env bash
# The main job: set up, build (Release) and run the per-stage benchmarks, write Google
# Benchmark JSON under results/runs/<timestamp>/ and print a readable table.
#   scripts/bench.sh                     the quick suite (a few minutes on 2 cores)
#   scripts/bench.sh --suite full        every size of every benchmark (much longer)
#   scripts/bench.sh --filter 'ff/.*'    only matching benchmarks (a regex, overrides --suite)
#   scripts/bench.sh --repetitions 10    repetitions per benchmark (rows kept per repetition)
#   scripts/bench.sh --min-time 0.5      seconds per benchmark (default 0.1)
#   scripts/bench.sh --flag lc_indexer=smallvec4   only that variant where a benchmark has one
#                                        (repeatable; `c2lab flags`); recorded in the JSON context
#   scripts/bench.sh --dataset porep-32gib         the C1 dataset of the PoRep stage benchmarks
# Interrupted (INT or TERM), it stops the running benchmark and removes its partial output:
# results/runs/<stamp>/ only ever holds complete JSON files.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each binary writes to a temporary name (<name>.json.tmp.<pid>), moved into place when it
# succeeds. The binary runs in the background so that a signal to this script is handled at
# once (bash runs a trap only after a foreground child ends), and is stopped by the trap.
child="" tmp="" log=""
on_signal() {
  if [ -n "$child" ]; then
    kill -s TERM "$child" 2>/dev/null || true
    wait "$child" 2>/dev/null || true
  fi
  rm -f ${tmp:+"$tmp"} ${log:+"$log"}
  trap - "$1"
  kill -s "$1" "$$"
}
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
filter="" suite=quick reps=1 min_time=0.1
c2lab_args=()
while (($#)); do
  case "$1" in
    --filter) filter="$2"; shift 2 ;;
    --suite) suite="$2"; shift 2
      case "$suite" in quick|full) ;; *) echo "--suite must be quick or full, not '$suite'" >&2; exit 2 ;; esac ;;
    --repetitions) reps="$2"; shift 2 ;;
    --min-time) min_time="$2"; shift 2 ;;
    --flag) c2lab_args+=(--flag "$2"); shift 2 ;;
    --dataset) c2lab_args+=(--dataset "$2"); shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
done
scripts/setup.sh
# The build's output goes to a log; its progress ([done/total] steps) to the terminal, every tenth
# of the way where stderr is not one. A first build takes about 5 minutes on 2 cores.
mkdir -p build
echo "building build/release (log: build/release.log) ..." >&2
set +e
scripts/build.sh release 2>&1 | tee build/release.log |
  awk -v tty="$([ -t 2 ] && echo 1 || echo 0)" '
    match($0, /^\[[0-9]+\/[0-9]+\]/) {
      split(substr($0, 2, RLENGTH - 2), k, "/")
      if (tty) printf "\r  [%s/%s]", k[1], k[2] > "/dev/stderr"
      else if (int(10 * k[1] / k[2]) > shown) { shown = int(10 * k[1] / k[2]); printf "  [%s/%s]\n", k[1], k[2] > "/dev/stderr" }
      seen = 1
    }
    END { if (tty && seen) printf "\n" > "/dev/stderr" }'
build_status=${PIPESTATUS[0]}
set -e
if [ "$build_status" -ne 0 ]; then
  tail -n 40 build/release.log >&2
  echo "the build failed (exit $build_status); the whole log: build/release.log" >&2
  exit 1
fi
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
out="results/runs/$stamp"
mkdir -p "$out"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
dirty="$(git status --porcelain 2>/dev/null | grep -q . && echo yes || echo no)"
cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//' || echo unknown)"
# The CPU's family and model: virtual machines often show one model name ("AMD EPYC") for
# several generations; the gate compares baselines of the same cpu_id only.
cpu_id="$(awk -F': *' '/^cpu family/ && !f {f=$2} /^model[ \t]*:/ && !m {m=$2} END {if (f != "" && m != "") print "family " f " model " m}' /proc/cpuinfo 2>/dev/null || true)"
cpu_id_args=()
if [ -n "$cpu_id" ]; then cpu_id_args=(--benchmark_context=cpu_id="$cpu_id"); fi
# The quick suite: small sizes of the stage benchmarks, everything of bench_ff.
quick_filter() {
  case "$1" in
    bench_ntt) echo 'log_n:1[0-6]/' ;;
    bench_msm) echo '/(ln|table)/log_n:1[0-4]/' ;;
    bench_c1_decode | bench_construct) echo 'porep-(2kib|512mib)' ;;
    bench_synth) echo 'synth/porep-2kib/lc_indexer:vec/|synth_shape/porep-2kib' ;;
    bench_pinning) echo 'mib:64/' ;;
    bench_probe) echo 'inject_slowdown:off' ;;
    bench_prove) echo 'prove/hash_chain' ;;
    bench_params) echo 'params/load/hash_chain' ;;
    bench_verify) echo 'verify/hash_chain' ;;
    *) echo '.' ;;
  esac
}
for bench in build/release/benchmarks/bench_*; do
  name="$(basename "$bench")"
  f="$filter"
  if [ -z "$f" ]; then
    if [ "$suite" = full ]; then f='.'; else f="$(quick_filter "$name")"; fi
  fi
  echo "running $name ..." >&2
  tmp="$out/$name.json.tmp.$$"
  log="$out/$name.log.tmp.$$"
  "$bench" ${c2lab_args[@]+"${c2lab_args[@]}"} --benchmark_filter="$f" --benchmark_min_time="$min_time" \
    --benchmark_repetitions="$reps" --benchmark_out="$tmp" --benchmark_out_format=json \
    --benchmark_context=commit="$commit" --benchmark_context=dirty="$dirty" \
    --benchmark_context=cpu_model="$cpu" ${cpu_id_args[@]+"${cpu_id_args[@]}"} --benchmark_context=build_type=Release \
    --benchmark_context=compiler="$(c++ --version | head -1)" --benchmark_context=suite="$suite" \
    >/dev/null 2>"$log" &
  child=$!
  status=0
  wait "$child" || status=$?
  child=""
  if [ "$status" -ne 0 ]; then
    echo "$name failed:" >&2
    cat "$log" >&2
    rm -f "$tmp" "$log"
    exit 1
  fi
  # Benchmarks a binary left out say why (the GPU ones without a GPU).
  grep -h "registered" "$log" 2>/dev/null | sed "s/^/  note: /" >&2 || true
  rm -f "$log"
  if [ ! -s "$tmp" ]; then  # the filter matched nothing in this binary
    rm -f "$tmp"
    tmp=""
    continue
  fi
  mv "$tmp" "$out/$name.json"
  tmp=""
done
python3 scripts/report.py "$out"/*.json
echo "JSON written to $out/" >&2

# Recorded in the results history ($C2LAB_HISTORY, else results/history.sqlite; `c2lab history`).
# A failure to record is a warning: the benchmarks ran and their JSON is written.
c2lab=build/release/cli/c2lab
branch="$(git rev-parse --abbrev-ref HEAD 2>/dev/null || true)"
if ! msg="$("$c2lab" history record --from "$out" --kind bench ${branch:+--branch "$branch"} 2>&1 >/dev/null)"; then
  echo "warning: the run was not recorded in the results history: ${msg:-c2lab history record failed}" >&2
fi

# Compared with this machine's stored baseline, when there is one (advisory here: the gate's
# exit code does not fail the job; with one repetition the verdicts are inconclusive and the
# ratios are what to read; `--repetitions 10` for verdicts).
if dir="$("$c2lab" baseline path --from "$out" 2>/dev/null)" && [ -d "$dir" ]; then
  echo
  echo "== compared with the baseline in $dir =="
  "$c2lab" gate --baseline "$dir" --current "$out" --policy results/policies/default.json \
    --markdown "$out/gate.md" --html "$out/gate.html" --rows 20 || true
  echo "(every row: $out/gate.md, and as a plot: $out/gate.html)"
else
  echo "(no stored baseline for this machine; \`$c2lab baseline update --from $out\` makes this run one)" >&2
fi

# And with the last runs on this machine in the history, when there are any besides this one
# (advisory: `c2lab gate --baseline history:5`, noise-aware margins, ancestors of HEAD only).
if "$c2lab" gate --baseline history:5 --current "$out" --policy results/policies/default.json \
     --markdown "$out/gate-history.md" --rows 20 >"$out/gate-history.out" 2>"$out/gate-history.err"; then rc=0; else rc=$?; fi
if [ "$rc" -le 1 ]; then
  echo
  echo "== compared with the last runs on this machine (results history) =="
  cat "$out/gate-history.out"
  echo "(every row: $out/gate-history.md)"
else
  echo "(no earlier run of these benchmarks on this machine in the history: $(tail -n 1 "$out/gate-history.err" | sed "s/^c2lab: error: //"))" >&2
fi
