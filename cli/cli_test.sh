#!/usr/bin/env bash
# End-to-end test of the c2lab CLI: cli_test.sh /path/to/c2lab (ctest passes the built binary).
# Every check compares an exit code and, where it matters, the output; any failure makes the
# script exit 1 after running the remaining checks.
set -u
BIN=${1:?usage: cli_test.sh /path/to/c2lab}
# shellcheck source=cli/test_lib.sh
source "$(dirname "$0")/test_lib.sh"

# help
expect 0 "--help" "$BIN" --help && has "$T/out" "--help" "circuit-info"
for sub in circuit-info gen setup prove verify export-vk flags gate "baseline update" ab gpu-info; do
  # shellcheck disable=SC2086 # "baseline update" is two words
  expect 0 "$sub --help" "$BIN" $sub --help && has "$T/out" "$sub --help" "Example"
done
expect 2 "no subcommand" "$BIN" && has "$T/err" "no subcommand" "c2lab: error:"
expect 2 "bench bad option" "$BIN" bench --bogus && has "$T/err" "bench bad option" "--bogus"

# circuit-info: hash_chain has `steps` constraints + one input constraint per input variable
# (the one and the output): 10 + 2; one public input; `steps` aux variables.
expect 0 "circuit-info" "$BIN" circuit-info --circuit hash-chain --steps 10 &&
  has "$T/out" "circuit-info" "constraints: 12" && has "$T/out" "circuit-info" "public inputs: 1" &&
  has "$T/out" "circuit-info" "aux: 10"
expect 0 "circuit-info 1000" "$BIN" circuit-info --steps 1000 && has "$T/out" "circuit-info 1000" "constraints: 1002"
expect 2 "circuit-info steps 0" "$BIN" circuit-info --steps 0
expect 2 "circuit-info bad steps" "$BIN" circuit-info --steps 12x && has "$T/err" "bad steps" "--steps"
expect 2 "circuit-info unknown circuit" "$BIN" circuit-info --circuit porep --steps 1

# PoRep: circuit-info --sector (rust-fil-proofs' layout: 2,687,921 constraints + 40 input
# constraints for 2 KiB), gen (deterministic), malformed C1 files refused with the field named.
expect 0 "circuit-info 2KiB" "$BIN" circuit-info --sector 2KiB &&
  has "$T/out" "circuit-info 2KiB" "constraints: 2687961" && has "$T/out" "circuit-info 2KiB" "public inputs: 39"
expect 2 "circuit-info bad sector" "$BIN" circuit-info --sector 3KiB && has "$T/err" "bad sector" "3KiB"
expect 0 "gen" "$BIN" gen --sector 2KiB --seed 3 -o "$T/c1.json" && has "$T/out" "gen" "comm_r:" &&
  has "$T/err" "gen progress" "[gen]"
expect 0 "gen again" "$BIN" gen --sector 2KiB --seed 3 -o "$T/c1b.json"
cmp -s "$T/c1.json" "$T/c1b.json" || fail "gen: the same sector and seed gave different files"
expect 0 "gen seed 4" "$BIN" gen --sector 2KiB --seed 4 -o "$T/c1c.json"
cmp -s "$T/c1.json" "$T/c1c.json" && fail "gen: seeds 3 and 4 gave the same file"
expect 2 "gen bad sector" "$BIN" gen --sector 1TiB --seed 1 -o "$T/nope.json"
head -c 5000 "$T/c1.json" >"$T/trunc.json"
expect 2 "truncated c1" "$BIN" prove --c1 "$T/trunc.json" -o "$T/p.bin" && has "$T/err" "truncated c1" "trunc.json"
python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); o["Phase1Out"]="!"+o["Phase1Out"][1:]; json.dump(o,open(sys.argv[2],"w"))' \
  "$T/c1.json" "$T/badb64.json"
expect 2 "bad base64" "$BIN" setup --c1 "$T/badb64.json" && has "$T/err" "bad base64" "Phase1Out"
expect 2 "verify without params" "$BIN" verify --c1 "$T/c1.json" --proof "$T/c1.json" 
expect 2 "c1 with --input" "$BIN" verify --c1 "$T/c1.json" --proof "$T/c1.json" --input 00
# A non-interactive PoRep C1 (filecoin-proofs-api's StackedDrg<size>V1_2_Feat_NonInteractivePoRep):
# refused on decoding, with the reason, before anything else is done.
python3 -c 'import base64,json,sys; o=json.load(open(sys.argv[1])); i=json.loads(base64.b64decode(o["Phase1Out"])); i["registered_proof"]="StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"; o["Phase1Out"]=base64.b64encode(json.dumps(i,separators=(",",":")).encode()).decode(); json.dump(o,open(sys.argv[2],"w"))' \
  "$T/c1.json" "$T/ni.json"
for args in "setup" "prove -o $T/ni.bin" "verify --proof $T/c1.json" "export-vk"; do
  # shellcheck disable=SC2086 # the subcommand and its options
  expect 2 "NI-PoRep C1 (${args%% *})" "$BIN" $args --c1 "$T/ni.json" &&
    has "$T/err" "NI-PoRep C1 (${args%% *})" "NI-PoRep (non-interactive PoRep) is not supported" &&
    has "$T/err" "NI-PoRep C1 (${args%% *})" "$T/ni.json: Phase1Out.registered_proof"
done

# flags
expect 0 "flags" "$BIN" flags
for f in lc_indexer presize msm_window b_g2_msm c1_json simdjson smallvec4 fixed:N windows:N parallel synthesize msm; do has "$T/out" "flags" "$f"; done

# setup -> prove -> verify
S=16
expect 0 "setup" "$BIN" setup --circuit hash-chain --steps $S -o "$T/params.bin" --seed 3 &&
  has "$T/out" "setup" "bytes" && has "$T/err" "setup progress" "[setup]" &&
  has "$T/out" "setup" "verifying key: $T/params.bin.vk"
# The .vk beside the parameters: bellperson's layout, 868 bytes + 96 per ic point (the one and the output).
[ "$(stat -c %s "$T/params.bin.vk" 2>/dev/null)" = $((868 + 2 * 96)) ] || fail "params.bin.vk is not 1060 bytes"
expect 0 "prove" "$BIN" prove --params "$T/params.bin" --steps $S --x0 42 -o "$T/proof.bin" &&
  has "$T/out" "prove" "msm_b_g2" && has "$T/out" "prove" "synthesize"
[ "$(stat -c %s "$T/proof.bin" 2>/dev/null)" = 192 ] || fail "proof.bin is not 192 bytes"
[ "$(grep -c . "$T/proof.bin.inputs" 2>/dev/null)" = 1 ] || fail "proof.bin.inputs does not hold one line"
expect 0 "verify" "$BIN" verify --params "$T/params.bin" --proof "$T/proof.bin" --inputs "$T/proof.bin.inputs" &&
  { [ "$(cat "$T/out")" = valid ] || fail "verify: printed '$(cat "$T/out")', expected 'valid'"; }
IN=$(head -n1 "$T/proof.bin.inputs")
expect 0 "verify --input" "$BIN" verify --params "$T/params.bin" --proof "$T/proof.bin" --input "$IN"

# every flag set, JSON output
expect 0 "prove flags --json" "$BIN" prove --params "$T/params.bin" --steps $S --x0 7 -o "$T/proof2.bin" --json \
  --flag lc_indexer=smallvec2 --flag presize=off --flag msm_window=fixed:4 --flag b_g2_msm=parallel --flag msm_split=off &&
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["flags"]["lc_indexer"]=="smallvec2"; assert j["flags"]["msm_window"]=="fixed:4"; assert j["flags"]["msm_split"]=="off"; assert j["flags"]["presize"]=="off"; assert any(s["name"]=="synthesize" for s in j["stages"]); assert j["cpu_path"] in ("avx512-ifma","adx","portable"), j["cpu_path"]' "$T/out" ||
  fail "prove --json: output is not the expected JSON"
C2LAB_PORTABLE=1 expect 0 "prove --json portable" "$BIN" prove --params "$T/params.bin" --steps $S --x0 7 -o "$T/proof3.bin" --json &&
  python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["cpu_path"]=="portable"' "$T/out" ||
  fail "prove --json under C2LAB_PORTABLE=1: cpu_path is not portable"
expect 0 "verify proof2" "$BIN" verify --params "$T/params.bin" --proof "$T/proof2.bin" --inputs "$T/proof2.bin.inputs"
# prove --json is recorded in the history (kind prove, a <stage>_ms counter per stage); --no-history is not.
expect 0 "prove --json recorded" "$BIN" history list --bench "^prove/hash-chain/steps:$S\$" --metric msm_h_ms &&
  [ "$(grep -cE '^ +[0-9]+  20[0-9-]+T' "$T/out")" = 2 ] || fail "prove --json: not two recorded runs with msm_h_ms: $(cat "$T/out")"
expect 0 "history list kinds" "$BIN" history list && has "$T/out" "history list kinds" " prove "
expect 0 "prove --json --no-history" "$BIN" prove --params "$T/params.bin" --steps $S --x0 7 -o "$T/proof4.bin" --json --no-history
expect 0 "history after --no-history" "$BIN" history list && has "$T/out" "history after --no-history" "2 run(s)"
# --backend: cuda proves (and verifies) where a GPU is usable, else refuses with the reason
if "$BIN" gpu-info >/dev/null 2>&1; then
  expect 0 "prove --backend cuda" "$BIN" prove --params "$T/params.bin" --steps $S --x0 9 -o "$T/proof_cuda.bin" --backend cuda &&
    expect 0 "verify proof_cuda" "$BIN" verify --params "$T/params.bin" --proof "$T/proof_cuda.bin" --inputs "$T/proof_cuda.bin.inputs"
else
  expect 2 "prove --backend cuda without a GPU" "$BIN" prove --params "$T/params.bin" --steps $S --x0 9 \
    -o "$T/proof_cuda.bin" --backend cuda && has "$T/err" "backend cuda refusal" "--backend cuda:"
  [ -e "$T/proof_cuda.bin" ] && fail "a refused --backend cuda left $T/proof_cuda.bin"
fi
expect 2 "unknown backend" "$BIN" prove --params "$T/params.bin" --steps $S --x0 9 -o "$T/p6.bin" --backend tpu &&
  has "$T/err" "unknown backend" "expected cpu or cuda"
expect 0 "prove msm_window=table" "$BIN" prove --params "$T/params.bin" --steps $S --x0 7 -o "$T/proof3.bin" \
  --flag lc_indexer=smallvec1 --flag msm_window=table
expect 0 "verify proof3" "$BIN" verify --params "$T/params.bin" --proof "$T/proof3.bin" --inputs "$T/proof3.bin.inputs"

# wrong public input -> invalid (1); a proof for another x0 with the first one's inputs -> 1
printf '0100000000000000000000000000000000000000000000000000000000000000\n' >"$T/wrong.inputs"
expect 1 "wrong input" "$BIN" verify --params "$T/params.bin" --proof "$T/proof.bin" --inputs "$T/wrong.inputs" &&
  { [ "$(cat "$T/out")" = invalid ] || fail "wrong input: printed '$(cat "$T/out")', expected 'invalid'"; }
expect 1 "proof2 with proof's inputs" "$BIN" verify --params "$T/params.bin" --proof "$T/proof2.bin" --inputs "$T/proof.bin.inputs"

# tampered proof byte -> 1 (still a point, wrong proof) or 2 (malformed point)
cp "$T/proof.bin" "$T/tampered.bin"
flip_byte "$T/tampered.bin" 100
cmp -s "$T/proof.bin" "$T/tampered.bin" && fail "tampering did not change the proof"
"$BIN" verify --params "$T/params.bin" --proof "$T/tampered.bin" --inputs "$T/proof.bin.inputs" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 1 ] || [ $rc -eq 2 ]; then echo "ok: tampered proof (exit $rc)"; else fail "tampered proof: exit $rc"; fi
# swapping A and C keeps valid points but breaks the proof -> 1
{ tail -c 48 "$T/proof.bin"; head -c 144 "$T/proof.bin" | tail -c 96; head -c 48 "$T/proof.bin"; } >"$T/swapped.bin"
expect 1 "swapped A and C" "$BIN" verify --params "$T/params.bin" --proof "$T/swapped.bin" --inputs "$T/proof.bin.inputs"
head -c 191 "$T/proof.bin" >"$T/short.bin"
expect 2 "short proof" "$BIN" verify --params "$T/params.bin" --proof "$T/short.bin" --inputs "$T/proof.bin.inputs" &&
  has "$T/err" "short proof" "192"

# bad input -> 2, with a message naming what is wrong
expect 2 "missing params" "$BIN" verify --params "$T/nope.bin" --proof "$T/proof.bin" --inputs "$T/proof.bin.inputs" &&
  has "$T/err" "missing params" "c2lab: error:" && has "$T/err" "missing params" "$T/nope.bin"
expect 2 "missing proof" "$BIN" verify --params "$T/params.bin" --proof "$T/nope.proof" --inputs "$T/proof.bin.inputs" &&
  has "$T/err" "missing proof" "$T/nope.proof"
expect 2 "missing params (prove)" "$BIN" prove --params "$T/nope.bin" --steps $S --x0 1 -o "$T/p4.bin" &&
  has "$T/err" "missing params (prove)" "$T/nope.bin"
printf '%s\n%s\n' "$IN" "$IN" >"$T/two.inputs"
expect 2 "wrong input count" "$BIN" verify --params "$T/params.bin" --proof "$T/proof.bin" --inputs "$T/two.inputs" &&
  has "$T/err" "wrong input count" "number of public inputs"
expect 2 "malformed input hex" "$BIN" verify --params "$T/params.bin" --proof "$T/proof.bin" --input zz
expect 2 "non-canonical input" "$BIN" verify --params "$T/params.bin" --proof "$T/proof.bin" \
  --input ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff
expect 2 "no inputs" "$BIN" verify --params "$T/params.bin" --proof "$T/proof.bin"
expect 2 "unknown flag" "$BIN" prove --params "$T/params.bin" --steps $S --x0 1 -o "$T/p5.bin" --flag bogus=1 &&
  has "$T/err" "unknown flag" "bogus"
expect 2 "bad flag value" "$BIN" prove --params "$T/params.bin" --steps $S --x0 1 -o "$T/p5.bin" --flag lc_indexer=list &&
  has "$T/err" "bad flag value" "lc_indexer"
expect 2 "flag without =" "$BIN" prove --params "$T/params.bin" --steps $S --x0 1 -o "$T/p5.bin" --flag presize
expect 2 "steps mismatch" "$BIN" prove --params "$T/params.bin" --steps $((S + 1)) --x0 1 -o "$T/p5.bin"
expect 2 "negative x0" "$BIN" prove --params "$T/params.bin" --steps $S --x0 -1 -o "$T/p5.bin"
[ -e "$T/p5.bin" ] && fail "a failed prove left $T/p5.bin"
expect 2 "unknown option" "$BIN" prove --nonsense
echo garbage >"$T/bad_params.bin"
expect 2 "corrupt params" "$BIN" verify --params "$T/bad_params.bin" --proof "$T/proof.bin" --inputs "$T/proof.bin.inputs"

# Verifying keys as files: export-vk reproduces setup's .vk byte for byte; verify --vk decides as
# verify --params does; a bad .vk is bad input (2), named.
expect 0 "export-vk" "$BIN" export-vk --params "$T/params.bin" -o "$T/exported.vk" &&
  has "$T/out" "export-vk" "verifying key: $T/exported.vk (1060 bytes"
cmp -s "$T/params.bin.vk" "$T/exported.vk" || fail "export-vk: $T/exported.vk differs from setup's params.bin.vk"
cp "$T/params.bin" "$T/copy.bin"
expect 0 "export-vk default output" "$BIN" export-vk --params "$T/copy.bin"
cmp -s "$T/params.bin.vk" "$T/copy.bin.vk" || fail "export-vk: the default output copy.bin.vk differs from params.bin.vk"
expect 2 "export-vk missing params" "$BIN" export-vk --params "$T/nope.bin" && has "$T/err" "export-vk missing params" "$T/nope.bin"
expect 2 "export-vk corrupt params" "$BIN" export-vk --params "$T/bad_params.bin" -o "$T/bad.vk"
[ -e "$T/bad.vk" ] && fail "a failed export-vk left $T/bad.vk"
expect 0 "verify --vk" "$BIN" verify --vk "$T/params.bin.vk" --proof "$T/proof.bin" --inputs "$T/proof.bin.inputs" &&
  { [ "$(cat "$T/out")" = valid ] || fail "verify --vk: printed '$(cat "$T/out")', expected 'valid'"; }
expect 0 "verify --vk --input" "$BIN" verify --vk "$T/exported.vk" --proof "$T/proof.bin" --input "$IN"
expect 0 "verify --vk proof2" "$BIN" verify --vk "$T/exported.vk" --proof "$T/proof2.bin" --inputs "$T/proof2.bin.inputs"
expect 1 "verify --vk swapped A and C" "$BIN" verify --vk "$T/params.bin.vk" --proof "$T/swapped.bin" --inputs "$T/proof.bin.inputs" &&
  has "$T/out" "verify --vk swapped" "invalid"
expect 1 "verify --vk wrong input" "$BIN" verify --vk "$T/params.bin.vk" --proof "$T/proof.bin" --inputs "$T/wrong.inputs"
expect 2 "verify --vk and --params" "$BIN" verify --vk "$T/params.bin.vk" --params "$T/params.bin" --proof "$T/proof.bin" \
  --inputs "$T/proof.bin.inputs" && has "$T/err" "verify --vk and --params" "excludes"
expect 2 "verify --vk missing" "$BIN" verify --vk "$T/nope.vk" --proof "$T/proof.bin" --inputs "$T/proof.bin.inputs" &&
  has "$T/err" "verify --vk missing" "$T/nope.vk"
# A changed byte in alpha_g1's y coordinate: off the curve.
cp "$T/params.bin.vk" "$T/flipped.vk"
flip_byte "$T/flipped.vk" 95
cmp -s "$T/params.bin.vk" "$T/flipped.vk" && fail "flipping did not change the vk"
expect 2 "corrupt vk" "$BIN" verify --vk "$T/flipped.vk" --proof "$T/proof.bin" --inputs "$T/proof.bin.inputs" &&
  has "$T/err" "corrupt vk" "c2lab: error: $T/flipped.vk: verifying key alpha_g1" && has "$T/err" "corrupt vk" "curve"
head -c 1000 "$T/params.bin.vk" >"$T/truncated.vk"
expect 2 "truncated vk" "$BIN" verify --vk "$T/truncated.vk" --proof "$T/proof.bin" --inputs "$T/proof.bin.inputs" &&
  has "$T/err" "truncated vk" "$T/truncated.vk: verifying key: ic count 2"
# A consistent key for one input fewer (ic count 1, its last point dropped): the count does not match.
python3 -c 'import sys; b=bytearray(open(sys.argv[1],"rb").read()); b[867]=1; open(sys.argv[2],"wb").write(b[:-96])' \
  "$T/params.bin.vk" "$T/short_ic.vk"
expect 2 "vk ic count" "$BIN" verify --vk "$T/short_ic.vk" --proof "$T/proof.bin" --inputs "$T/proof.bin.inputs" &&
  has "$T/err" "vk ic count" "wrong number of public inputs: got 1, $T/short_ic.vk expects 0 (its ic count is 1)"

# gate: small Google Benchmark JSON files, 6 repetitions each (values in ns).
bench_json "$T/base.json" "Test CPU" 100 200
bench_json "$T/same.json" "Test CPU" 100.1 199.9
bench_json "$T/slow.json" "Test CPU" 100 250
bench_json "$T/other.json" "Other CPU" 100 200
expect 0 "gate pass" "$BIN" gate --baseline "$T/base.json" --current "$T/same.json" --markdown "$T/gate.md" &&
  has "$T/out" "gate pass" "PASS" && has "$T/out" "gate pass" "| a |" && has "$T/gate.md" "gate pass markdown" "PASS"
expect 1 "gate regression" "$BIN" gate --baseline "$T/base.json" --current "$T/slow.json" &&
  has "$T/out" "gate regression" "FAIL" && has "$T/out" "gate regression" "- b: real_time ratio 1.25"
# --rows 1: the regressed b alone on stdout, a's row left to the --markdown file.
expect 1 "gate rows" "$BIN" gate --baseline "$T/base.json" --current "$T/slow.json" --rows 1 --markdown "$T/rows.md" &&
  has "$T/out" "gate rows" "| b |" && has "$T/out" "gate rows" "1 of 2 rows shown" && has "$T/rows.md" "gate rows file" "| a |"
grep -qF "| a |" "$T/out" && fail "gate --rows 1 printed a's row too"
expect 1 "gate html" "$BIN" gate --baseline "$T/base.json" --current "$T/slow.json" --html "$T/gate.html" &&
  has "$T/gate.html" "gate html" ": FAIL" && has "$T/gate.html" "gate html svg" "<svg" && has "$T/gate.html" "gate html row" ">b<"
printf '{"overrides": [{"match": "b", "margin": 0.5}]}' >"$T/policy.json"
expect 0 "gate policy margin" "$BIN" gate --baseline "$T/base.json" --current "$T/slow.json" --policy "$T/policy.json"
expect 2 "gate other machine" "$BIN" gate --baseline "$T/base.json" --current "$T/other.json" &&
  has "$T/err" "gate other machine" "cpu_model"
expect 0 "gate other machine allowed" "$BIN" gate --baseline "$T/base.json" --current "$T/other.json" --allow-other-machine
echo '{"benchmarks": [' >"$T/broken.json"
expect 2 "gate malformed JSON" "$BIN" gate --baseline "$T/base.json" --current "$T/broken.json" &&
  has "$T/err" "gate malformed JSON" "$T/broken.json"
expect 2 "gate missing file" "$BIN" gate --baseline "$T/nope.json" --current "$T/same.json"
printf '{"defaults": {"alpha": 5}}' >"$T/badpolicy.json"
expect 2 "gate bad policy" "$BIN" gate --baseline "$T/base.json" --current "$T/same.json" --policy "$T/badpolicy.json" &&
  has "$T/err" "gate bad policy" "defaults.alpha"

# baseline update: copies a run directory into <results>/baselines/<machine>/
mkdir -p "$T/run"
cp "$T/base.json" "$T/run/bench_a.json"
expect 0 "baseline update" "$BIN" baseline update --from "$T/run" --results "$T/results" &&
  has "$T/out" "baseline update" "baselines/test-cpu-2cpu-release/bench_a.json"
cmp -s "$T/run/bench_a.json" "$T/results/baselines/test-cpu-2cpu-release/bench_a.json" || fail "baseline update: copy differs"
expect 0 "baseline update --machine" "$BIN" baseline update --from "$T/run" --results "$T/results" --machine ci-1
[ -f "$T/results/baselines/ci-1/bench_a.json" ] || fail "baseline update --machine: file missing"
expect 2 "baseline update bad machine" "$BIN" baseline update --from "$T/run" --results "$T/results" --machine "Bad Name"
expect 2 "baseline update missing dir" "$BIN" baseline update --from "$T/nope" --results "$T/results"

# ab: bad input is refused before any process runs (exit 2, the culprit named)
expect 2 "ab unknown flag" "$BIN" ab --binary /bin/true --filter x --flag bogus=a,b --out "$T/ab_bad" &&
  has "$T/err" "ab unknown flag" "bogus"
expect 2 "ab bad variant" "$BIN" ab --binary /bin/true --filter x --flag lc_indexer=vec,list --out "$T/ab_bad" &&
  has "$T/err" "ab bad variant" "list"
expect 2 "ab empty list" "$BIN" ab --binary /bin/true --filter x --flag lc_indexer= --out "$T/ab_bad" &&
  has "$T/err" "ab empty list" "empty list"
expect 2 "ab unknown allocator" "$BIN" ab --binary /bin/true --filter x --flag lc_indexer=vec,smallvec2 \
  --allocator glibc,tcmalloc --out "$T/ab_bad" && has "$T/err" "ab unknown allocator" "tcmalloc"
expect 2 "ab one variant" "$BIN" ab --binary /bin/true --filter x --flag lc_indexer=vec --out "$T/ab_bad" &&
  has "$T/err" "ab one variant" "nothing to compare"
expect 2 "ab missing binary" "$BIN" ab --binary "$T/nope" --filter x --flag lc_indexer=vec,smallvec2 --out "$T/ab_bad" &&
  has "$T/err" "ab missing binary" "$T/nope"
[ -e "$T/ab_bad" ] && fail "ab: a refused run created its output directory"

# ab on a stand-in benchmark binary: logs its LD_PRELOAD, prints Google Benchmark JSON;
# lc_indexer=smallvec2 is 10% slower; FAKE_FAIL makes it fail.
cat >"$T/bench_fake" <<'SH'
#!/usr/bin/env bash
v=vec
for a in "$@"; do
  case $a in
    lc_indexer=*) v=${a#lc_indexer=} ;;
    --benchmark_list_tests=true) echo "fake/vec/real_time"; exit 0 ;;
  esac
done
echo "${LD_PRELOAD:-none}" >>"$FAKE_LOG"
if [ -n "${FAKE_FAIL:-}" ]; then echo "boom: $FAKE_FAIL" >&2; exit 3; fi
t=1000; [ "$v" = smallvec2 ] && t=1100
t=$((t + RANDOM % 5))
printf '{"context": {"num_cpus": 1}, "benchmarks": [{"name": "fake/%s/real_time", "run_type": "iteration", "iterations": 1, "real_time": %s, "cpu_time": %s, "time_unit": "ns"}]}\n' "$v" "$t" "$t"
SH
chmod +x "$T/bench_fake"
export FAKE_LOG="$T/preload.log"
expect 0 "ab fake" "$BIN" ab --binary "$T/bench_fake" --filter fake --flag lc_indexer=vec,smallvec2 --rounds 10 \
  --out "$T/abf" && has "$T/out" "ab fake" "**slower**" && has "$T/out" "ab fake" "fake/lc_indexer:*/real_time"
expect 1 "ab --fail-on slower" "$BIN" ab --binary "$T/bench_fake" --filter fake --flag lc_indexer=vec,smallvec2 \
  --rounds 10 --out "$T/abf" --fail-on slower
expect 0 "ab faster is no failure" "$BIN" ab --binary "$T/bench_fake" --filter fake --flag lc_indexer=smallvec2,vec \
  --rounds 10 --out "$T/abf" --fail-on slower && has "$T/out" "ab faster" "**faster**"
FAKE_FAIL=dataset expect 2 "ab failing process" "$BIN" ab --binary "$T/bench_fake" --filter fake \
  --flag lc_indexer=vec,smallvec2 --rounds 2 --out "$T/abf" && has "$T/err" "ab failing process" "boom: dataset" &&
  has "$T/err" "ab failing process" "exit 3"
# LD_PRELOAD: none for glibc, the library for jemalloc (or exit 2 naming the package when absent)
rm -f "$FAKE_LOG"
LD_PRELOAD= "$BIN" ab --binary "$T/bench_fake" --filter fake --allocator glibc,jemalloc --rounds 2 --out "$T/abf" \
  >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ]; then
  [ "$(grep -c '^none$' "$FAKE_LOG")" = 3 ] && [ "$(grep -c 'libjemalloc.so.2$' "$FAKE_LOG")" = 3 ] &&
    echo "ok: ab allocator preload" || fail "ab allocator preload: log $(tr '\n' ' ' <"$FAKE_LOG")"
elif [ $rc -eq 2 ] && grep -qF libjemalloc2 "$T/err"; then
  echo "ok: ab allocator missing (names libjemalloc2)"
else
  fail "ab allocator: exit $rc: $(cat "$T/err")"
fi
# no --binary: the one bench_* of --bench-dir whose list matches the filter
mkdir -p "$T/bd"
cp "$T/bench_fake" "$T/bd/bench_a"
expect 0 "ab finds the binary" "$BIN" ab --bench-dir "$T/bd" --filter fake --flag lc_indexer=vec,smallvec2 --rounds 2 \
  --out "$T/abf" && has "$T/err" "ab finds the binary" "bench_a"
cp "$T/bench_fake" "$T/bd/bench_b"
expect 2 "ab several binaries" "$BIN" ab --bench-dir "$T/bd" --filter fake --flag lc_indexer=vec,smallvec2 \
  --rounds 2 --out "$T/abf" && has "$T/err" "ab several binaries" "bench_a" && has "$T/err" "ab several binaries" "bench_b"
expect 2 "ab no binary matches" "$BIN" ab --bench-dir "$T/bd" --filter nothing-here --flag lc_indexer=vec,smallvec2 \
  --rounds 2 --out "$T/abf" && has "$T/err" "ab no binary matches" "nothing-here"

# ab: a real A/B run of bench_r1cs (skipped when the benchmarks were not built)
BENCH_DIR=$(dirname "$1")/../benchmarks
if [ -x "$BENCH_DIR/bench_r1cs" ]; then
  expect 0 "ab bench_r1cs" "$BIN" ab --binary "$BENCH_DIR/bench_r1cs" --filter 'steps:4096' \
    --flag lc_indexer=vec,smallvec2 --rounds 3 --min-time 0.01 --out "$T/ab" &&
    has "$T/out" "ab stdout" "lc_indexer=smallvec2" && has "$T/err" "ab progress" "[ab] round 3/3"
  for f in ab.md ab.svg ab.json; do
    [ -s "$T/ab/$f" ] || { fail "ab: $f missing or empty"; continue; }
    has "$T/ab/$f" "ab $f" "lc_indexer=vec" && has "$T/ab/$f" "ab $f" "lc_indexer=smallvec2"
  done
  has "$T/ab/ab.md" "ab.md" "synth/hash_chain/lc_indexer:*/presize:off/steps:4096"
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert len(j["variants"])==2; assert len([r for r in j["runs"] if not r["warmup"]])==6; assert all(r["benchmarks"] for r in j["runs"]); assert {r["verdict"] for r in j["results"]} <= {"baseline","faster","slower","same","inconclusive"}' \
    "$T/ab/ab.json" || fail "ab.json: not the expected JSON"
  expect 0 "ab --json" "$BIN" ab --binary "$BENCH_DIR/bench_r1cs" --filter 'presize:off/steps:4096' \
    --flag lc_indexer=vec,smallvec2 --rounds 2 --min-time 0.01 --out "$T/ab2" --json &&
    python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert len(j["results"])==2' "$T/out" ||
    fail "ab --json: stdout is not ab.json"
  # Each ab run records one history run per variant (kind ab): 2 runs x 2 variants.
  expect 0 "ab recorded" "$BIN" history list && [ "$(grep -cE " ab +.* $T/ab2?\$" "$T/out")" = 4 ] ||
    fail "ab: not 4 recorded runs of kind ab from $T/ab and $T/ab2: $(cat "$T/out")"
  expect 0 "ab series per variant" "$BIN" history list --bench '/smallvec2/presize:off/steps:4096' &&
    [ "$(grep -cE '^ +[0-9]+  20' "$T/out")" = 2 ] || fail "ab: the smallvec2 variant's series is not 2 runs: $(cat "$T/out")"
  expect 2 "ab filter matches nothing" "$BIN" ab --binary "$BENCH_DIR/bench_r1cs" --filter 'no-such-benchmark' \
    --flag lc_indexer=vec,smallvec2 --rounds 2 --min-time 0.01 --out "$T/ab3" &&
    has "$T/err" "ab filter matches nothing" "no-such-benchmark"
else
  echo "skip: ab bench_r1cs (no $BENCH_DIR/bench_r1cs: benchmarks not built)"
fi

# parents, inputs, circuit-info with an explicit shape, gen's sealing inputs: rust-fil-proofs'
# published values (storage-proofs-porep/parent_cache.json, tests/stacked_circuit.rs) and
# replica_id / challenges computed with python3's hashlib.
for sub in parents inputs; do
  expect 0 "$sub --help" "$BIN" $sub --help && has "$T/out" "$sub --help" "Example"
done
expect 0 "parents 2KiB" "$BIN" parents --sector 2KiB --digest &&
  has "$T/out" "parents 2KiB" "digest: 840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97" &&
  has "$T/out" "parents 2KiB" "cache: v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b"
expect 0 "parents 2KiB V1_0" "$BIN" parents --sector 2KiB --api-version V1_0 --digest &&
  has "$T/out" "parents 2KiB V1_0" "digest: 3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d"
expect 0 "parents node" "$BIN" parents --sector 2KiB --node 5 && has "$T/out" "parents node" "base: [4, 4, 4, 1, 2, 4]"
expect 2 "parents neither" "$BIN" parents --sector 2KiB && has "$T/err" "parents neither" "c2lab: error:"
expect 2 "parents bad node" "$BIN" parents --sector 2KiB --node 64 && has "$T/err" "parents bad node" "--node"
expect 2 "parents bad api" "$BIN" parents --sector 2KiB --api-version V3 --digest && has "$T/err" "parents bad api" "V3"
h1=$(printf '01%.0s' {1..32}); h2=$(printf '02%.0s' {1..32}); h3=$(printf '03%.0s' {1..32}); h4=$(printf '04%.0s' {1..32})
# python3: r = sha256(b'\1'*32 + (7).to_bytes(8,'big') + b'\2'*32 + b'\4'*32 + (5).to_bytes(8,'little') + bytes(24));
# r[31] &= 0x3f; challenge i = int.from_bytes(sha256(r + b'\3'*32 + i.to_bytes(4,'little')), 'little') % 63 + 1
expect 0 "inputs" "$BIN" inputs --sector 2KiB --prover-id "$h1" --sector-id 7 --ticket "$h2" --seed "$h3" --comm-d "$h4" &&
  has "$T/out" "inputs" "replica_id: 312e4b346990c8d0667fc2988091d9c6d8ebd100c8217d696f5fae6f26ffca30" &&
  has "$T/out" "inputs" "challenges: [37, 24]"
expect 0 "inputs 32GiB" "$BIN" inputs --sector 32GiB --prover-id "$h1" --sector-id 7 --ticket "$h2" --seed "$h3" --comm-d "$h4" &&
  [ "$(grep -c '^challenges: ' "$T/out")" = 10 ] || fail "inputs 32GiB: not 10 challenge lines"
expect 2 "inputs short hex" "$BIN" inputs --sector 2KiB --prover-id 01 --sector-id 7 --ticket "$h2" --seed "$h3" --comm-d "$h4" &&
  has "$T/err" "inputs short hex" "--prover-id"
expect 0 "circuit-info shape" "$BIN" circuit-info --nodes 8 --layers 2 --challenges 1 --tree 8 --porep-id-byte 44 &&
  has "$T/out" "circuit-info shape" "synthesized constraints: 1199620" && has "$T/out" "circuit-info shape" "input variables: 22"
expect 0 "circuit-info shape 8-4-2" "$BIN" circuit-info --nodes 64 --tree 8-4-2 --porep-id-byte 44 &&
  has "$T/out" "circuit-info shape 8-4-2" "synthesized constraints: 1346982"
expect 2 "circuit-info bad tree" "$BIN" circuit-info --nodes 64 --tree 8-x && has "$T/err" "circuit-info bad tree" "--tree"
expect 2 "circuit-info bad nodes" "$BIN" circuit-info --nodes 24 && has "$T/err" "circuit-info bad nodes" "c2lab: error:"
expect 0 "gen sealing inputs" "$BIN" gen --sector 2KiB --seed 3 --prover-id "$h1" --sector-id 7 --ticket "$h2" \
  --interactive-seed "$h3" -o "$T/c1s.json" && has "$T/out" "gen sealing inputs" "replica_id:"
comm_d=$(sed -n 's/^comm_d: //p' "$T/out"); rid=$(sed -n 's/^replica_id: //p' "$T/out")
expect 0 "inputs of gen" "$BIN" inputs --sector 2KiB --prover-id "$h1" --sector-id 7 --ticket "$h2" --seed "$h3" \
  --comm-d "$comm_d" && has "$T/out" "inputs of gen" "replica_id: $rid"
expect 2 "gen bad ticket" "$BIN" gen --sector 2KiB --ticket zz -o "$T/nope.json" && has "$T/err" "gen bad ticket" "--ticket"

finish cli_test
