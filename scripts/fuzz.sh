#!/usr/bin/env bash
# Fuzz every parser of c2lab: build the libFuzzer targets (scripts/build.sh asan: clang,
# ASan + UBSan, the build the sanitizer tests use too, build/asan), assemble each target's seed corpus from real files of the
# repository, run each target for a bounded time, two at a time, and print one line per target.
#   scripts/fuzz.sh [--seconds N] [--targets a,b] [--jobs J] [--no-build]
# Exit status 1 when any target crashed (an escaped exception, a sanitizer report, a broken
# round trip, an allocation over the RSS limit, a timeout); the crash file's path is printed.
# Replay one with build/asan/lib/<target> <crash file> (build/asan/regressions/ for
# bench_json_fuzz and policy_fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."

all_targets=(base64_fuzz mont_field_fuzz encoding_fuzz proof_fuzz params_file_fuzz pce_fuzz c1_json_fuzz datasets_fuzz
             bench_json_fuzz policy_fuzz history_import_fuzz)
seconds=60
jobs=2  # the CI machine has 2 cores
build=1
targets=("${all_targets[@]}")

usage() {
  cat <<EOF
usage: scripts/fuzz.sh [--seconds N] [--targets a,b] [--jobs J] [--no-build]
  --seconds N   run each target N seconds (default 60; libFuzzer -max_total_time)
  --targets a,b only these targets (default: all): ${all_targets[*]}
  --jobs J      targets run at once (default 2)
  --no-build    use the existing build/asan
Every target runs with -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 on its corpus
build/asan/corpus/<target>/ (kept between runs; seeded each time from the repository's files,
fuzz_seeds and <dir>/fuzz_corpus/<target>/). Crashes go to build/asan/crashes/<target>/.
EOF
}

while (($#)); do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --targets) IFS=, read -r -a targets <<<"$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "scripts/fuzz.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || ((seconds < 1)); then echo "scripts/fuzz.sh: --seconds wants a positive integer" >&2; exit 2; fi
if ! [[ "$jobs" =~ ^[0-9]+$ ]] || ((jobs < 1)); then echo "scripts/fuzz.sh: --jobs wants a positive integer" >&2; exit 2; fi

# Where each target is built, and the directory of its source (for fuzz_corpus/ and the dictionary).
source_dir() {
  case "$1" in
    base64_fuzz) echo lib/core ;;
    mont_field_fuzz) echo lib/ff ;;
    encoding_fuzz) echo lib/ec ;;
    proof_fuzz|params_file_fuzz) echo lib/groth16 ;;
    pce_fuzz) echo lib/r1cs ;;
    c1_json_fuzz) echo lib/porep ;;
    datasets_fuzz) echo lib/pipeline ;;
    bench_json_fuzz|policy_fuzz|history_import_fuzz) echo regressions ;;
    *) return 1 ;;
  esac
}
for t in "${targets[@]}"; do
  source_dir "$t" >/dev/null || { echo "scripts/fuzz.sh: unknown target '$t' (known: ${all_targets[*]})" >&2; exit 2; }
done

if ((build)); then C2LAB_BUILD_TARGETS=c2lab_fuzz scripts/build.sh asan; fi
out=build/asan
binary() {
  case "$(source_dir "$1")" in
    regressions) echo "$out/regressions/$1" ;;
    *) echo "$out/lib/$1" ;;
  esac
}

# ---- seed corpora -------------------------------------------------------------------------
seeds="$out/seeds"
rm -rf "$seeds"
mkdir -p "$seeds"
"$out/lib/fuzz_seeds" "$seeds"  # mont_field, encoding, proof, params_file, pce: valid encodings
mkdir -p "$seeds"/{c1_json_fuzz,base64_fuzz,bench_json_fuzz,policy_fuzz,datasets_fuzz,history_import_fuzz}
# C1: the committed fixtures, and the inner JSON of each (Phase1Out decoded); base64: a piece
# of each Phase1Out (a multiple of 4 characters) and the short RFC 4648 test vectors.
python3 - "$seeds" datasets/fixtures/*.json <<'EOF'
import base64, json, os, sys
seeds = sys.argv[1]
for path in sys.argv[2:]:
    name = os.path.basename(path)
    text = open(path, 'rb').read()
    open(os.path.join(seeds, 'c1_json_fuzz', name), 'wb').write(text)
    phase1 = json.loads(text)['Phase1Out']
    open(os.path.join(seeds, 'c1_json_fuzz', 'inner-' + name), 'wb').write(base64.b64decode(phase1))
    open(os.path.join(seeds, 'base64_fuzz', 'phase1-' + name), 'w').write(phase1[:4000])
for i, v in enumerate(['', 'Zg==', 'Zm8=', 'Zm9v', 'Zm9vYg==', 'Zm9vYmE=', 'Zm9vYmFy']):
    open(os.path.join(seeds, 'base64_fuzz', 'rfc4648-%d' % i), 'w').write(v)
EOF
# Gate inputs: stored baselines and runs (files up to 16 KiB: the large ones add length, not
# structure, and slow every run), the policies; the dataset manifest.
# (results/runs is not in a fresh clone: only the folders that exist are searched.)
gate_dirs=()
for d in results/baselines results/runs; do [ -d "$d" ] && gate_dirs+=("$d"); done
find "${gate_dirs[@]}" -name '*.json' -size -17k | while read -r f; do
  cp "$f" "$seeds/bench_json_fuzz/$(echo "$f" | tr / _)"
  cp "$f" "$seeds/history_import_fuzz/$(echo "$f" | tr / _)"
done
cp results/policies/*.json "$seeds/policy_fuzz/"
cp datasets/manifest.json "$seeds/datasets_fuzz/"
# Committed hand-made seeds.
for t in "${targets[@]}"; do
  d="$(source_dir "$t")/fuzz_corpus/$t"
  if [ -d "$d" ]; then mkdir -p "$seeds/$t"; cp "$d"/* "$seeds/$t/"; fi
done

# ---- runs ---------------------------------------------------------------------------------
logs="$out/fuzz-logs"
mkdir -p "$logs"
run_one() {
  local t="$1" corpus="$out/corpus/$1" crashes="$out/crashes/$1/" dict
  mkdir -p "$corpus" "$crashes"
  local args=(-max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1
              -artifact_prefix="$crashes")
  dict="$(source_dir "$t")/fuzz_corpus/$t.dict"
  if [ -f "$dict" ]; then args+=(-dict="$dict"); fi
  # The 134 KB C1 fixture would set the length limit: inputs that long run at about 60/s, short
  # ones at thousands per second, and the hand-made small C1 seeds reach the same code.
  if [ "$t" = c1_json_fuzz ]; then args+=(-max_len=16384); fi
  # The first directory receives new inputs; the seeds are read only.
  local rc=0
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:symbolize=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$(binary "$t")" "${args[@]}" "$corpus" "$seeds/$t" >"$logs/$t.log" 2>&1 || rc=$?
  echo "$rc" >"$logs/$t.rc"
}

summary() {
  local t="$1" rc="$2" log="$logs/$1.log" execs cov ft corpus result
  execs="$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | awk '{print $2}')"
  cov="$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')"
  ft="$(grep -o 'ft: [0-9]*' "$log" | tail -1 | awk '{print $2}')"
  corpus="$(find "$out/corpus/$t" -type f | wc -l)"
  if [ "$rc" = 0 ]; then
    result=ok
  else
    local unit
    unit="$(grep -o 'Test unit written to .*' "$log" | tail -1 | sed 's/Test unit written to //')"
    result="CRASH (exit $rc) ${unit:-see $log}; log $log"
  fi
  printf '%-18s execs %-9s cov %-6s ft %-6s corpus %-6s %s\n' "$t" "${execs:--}" "${cov:--}" "${ft:--}" "$corpus" "$result"
}

echo "== c2lab fuzz: ${#targets[@]} targets, ${seconds} s each, $jobs at a time =="
failed=0
pending=("${targets[@]}")
running=()
for t in "${targets[@]}"; do rm -f "$logs/$t.rc"; done
while ((${#pending[@]})) || ((${#running[@]})); do
  while ((${#pending[@]})) && ((${#running[@]} < jobs)); do
    t="${pending[0]}"
    pending=("${pending[@]:1}")
    run_one "$t" &
    running+=("$t")
  done
  wait -n || true
  still=()
  for t in "${running[@]}"; do
    if [ -f "$logs/$t.rc" ]; then
      rc="$(cat "$logs/$t.rc")"
      if [ "$rc" != 0 ]; then failed=1; fi
      summary "$t" "$rc"
    else
      still+=("$t")
    fi
  done
  running=("${still[@]+"${still[@]}"}")
done
if ((failed)); then
  echo "scripts/fuzz.sh: a target crashed; reproduce with the binary and the crash file above, then add the" \
       "input as a regression test beside the parser's tests" >&2
  exit 1
fi
