#!/usr/bin/env bash
# PoRep C2 end to end on a generated 2 KiB sector: gen -> setup -> prove -> verify, and the
# ways a proof must fail: a changed proof byte, swapped proof points, a changed comm_r or seed
# in the C1 file. Usage: porep_e2e_test.sh /path/to/c2lab. Takes minutes (the 2 KiB circuit
# has 2.7 million constraints: setup makes 10 million G1 points), so ctest labels it e2e.
set -u
BIN=${1:?usage: porep_e2e_test.sh /path/to/c2lab}
# shellcheck source=cli/test_lib.sh
source "$(dirname "$0")/test_lib.sh"
export C2LAB_CACHE_DIR="$T/cache"

# rewrite_c1 IN OUT FIELD: flips the lowest bit of the inner JSON's 32-byte FIELD (still a
# canonical field element: the top byte is untouched) and writes the C1 file again.
rewrite_c1() {
  python3 - "$@" <<'PY'
import base64, json, sys
src, dst, field = sys.argv[1:4]
outer = json.load(open(src))
inner = json.loads(base64.b64decode(outer["Phase1Out"]))
inner[field][0] ^= 1
outer["Phase1Out"] = base64.b64encode(json.dumps(inner, separators=(",", ":")).encode()).decode()
json.dump(outer, open(dst, "w"), separators=(",", ":"))
PY
}

expect 0 "gen" "$BIN" gen --sector 2KiB --seed 7 -o "$T/c1.json" && has "$T/out" "gen" "StackedDrg2KiBV1_1"
expect 2 "prove before setup" "$BIN" prove --c1 "$T/c1.json" -o "$T/early.bin" && has "$T/err" "prove before setup" "c2lab setup --c1"
expect 0 "setup" "$BIN" setup --c1 "$T/c1.json" && has "$T/out" "setup" "constraints: 2687961" &&
  has "$T/err" "setup progress" "G1 fixed-base multiplications" && has "$T/out" "setup" "pre-compiled circuit: "
PCE=$(ls "$T"/cache/params/StackedDrg2KiBV1_1-*.pce 2>/dev/null)
[ -n "$PCE" ] || fail "setup --c1 left no pre-compiled circuit beside the parameters"
expect 0 "setup cached" "$BIN" setup --c1 "$T/c1.json" && has "$T/out" "setup cached" "cached" &&
  has "$T/out" "setup cached" "pre-compiled circuit: "
expect 0 "setup --no-pce" "$BIN" setup --c1 "$T/c1.json" --no-pce && has "$T/out" "setup --no-pce" "cached" &&
  { ! grep -q "pre-compiled" "$T/out" || fail "setup --no-pce: $(cat "$T/out")"; }
# The cache entry is named by the circuit's digest, and its size is the one circuit-info computes
# from the shape pass (exact).
expect 0 "circuit-info 2KiB" "$BIN" circuit-info --sector 2KiB &&
  digest=$(sed -n 's/^circuit digest: \([0-9a-f]*\)$/\1/p' "$T/out") &&
  want=$(sed -n 's/^parameters file: \([0-9]*\) bytes.*/\1/p' "$T/out") &&
  entry="$T/cache/params/StackedDrg2KiBV1_1-${digest:0:16}.params" &&
  { [ -f "$entry" ] && [ "$(stat -c %s "$entry")" = "$want" ] ||
    fail "the cached parameters $entry: $(stat -c %s "$entry" 2>&1) bytes, circuit-info says ${want:-?}"; }
# One proof with the default flags (--json: the stages, the flags, the arithmetic path); the
# batch below proves with every other flag set. synth=auto takes the pre-compiled circuit setup
# built (the flags record which ran), and its load is a stage.
expect 0 "prove --json" "$BIN" prove --c1 "$T/c1.json" -o "$T/proof.bin" --json &&
  for s in c1_decode construct load_pce synthesize ntt msm_h msm_b_g2 assemble; do has "$T/out" "prove stages" "$s"; done &&
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["flags"]["c1_json"]=="simdjson"; assert j["flags"]["msm_split"]=="on"; assert j["flags"]["presize"]=="prefault"; assert j["constraints"]==2687961; assert j["cpu_path"] in ("avx512-ifma","adx","portable"); assert j["flags"]["synth_challenges"]=="auto"; assert j["flags"]["synth"]=="pce", j["flags"]["synth"]; assert isinstance(j["parallel_challenges"], bool)' "$T/out" ||
  fail "prove --json: not the expected JSON"
[ "$(stat -c %s "$T/proof.bin" 2>/dev/null)" = 192 ] || fail "proof.bin is not 192 bytes"
expect 0 "verify" "$BIN" verify --c1 "$T/c1.json" --proof "$T/proof.bin" &&
  { [ "$(cat "$T/out")" = valid ] || fail "verify: printed '$(cat "$T/out")'"; }
# The verifying key beside the cache entry (868 bytes + 96 per ic point: 39 public inputs and the
# one): verify --c1 prefers it to the parameters; export-vk reproduces it byte for byte.
VK=$(ls "$T"/cache/params/StackedDrg2KiBV1_1-*.params.vk 2>/dev/null)
[ -n "$VK" ] && [ "$(stat -c %s "$VK")" = $((868 + 40 * 96)) ] || fail "no 4708-byte .vk beside the cached parameters"
has "$T/err" "verify key" "[verify] verifying key $VK"
expect 0 "export-vk --c1" "$BIN" export-vk --c1 "$T/c1.json" -o "$T/exported.vk" && has "$T/out" "export-vk --c1" "ic 40"
cmp -s "$VK" "$T/exported.vk" || fail "export-vk --c1: $T/exported.vk differs from the cached $VK"
expect 0 "verify --vk" "$BIN" verify --c1 "$T/c1.json" --proof "$T/proof.bin" --vk "$T/exported.vk" && has "$T/out" "verify --vk" "valid"
{ tail -c 48 "$T/proof.bin"; head -c 144 "$T/proof.bin" | tail -c 96; head -c 48 "$T/proof.bin"; } >"$T/swapped_vk.bin"
expect 1 "verify --vk swapped A and C" "$BIN" verify --c1 "$T/c1.json" --proof "$T/swapped_vk.bin" --vk "$T/exported.vk"
cp "$T/exported.vk" "$T/flipped.vk"
flip_byte "$T/flipped.vk" $((868 + 5 * 96 + 95))
expect 2 "verify --vk corrupt" "$BIN" verify --c1 "$T/c1.json" --proof "$T/proof.bin" --vk "$T/flipped.vk" &&
  has "$T/err" "verify --vk corrupt" "$T/flipped.vk: verifying key ic[5]"
expect 0 "hash-chain setup" "$BIN" setup --circuit hash-chain --steps 4 -o "$T/hc.params"
expect 2 "verify --vk of another circuit" "$BIN" verify --c1 "$T/c1.json" --proof "$T/proof.bin" --vk "$T/hc.params.vk" &&
  has "$T/err" "verify --vk of another circuit" "was made for another circuit (ic count 2"
# Without the cached .vk, verify falls back to the parameters; setup writes the missing .vk.
rm -f "$VK"
expect 0 "verify without the .vk" "$BIN" verify --c1 "$T/c1.json" --proof "$T/proof.bin" &&
  has "$T/err" "verify without the .vk" "verifying key from the parameters"
expect 0 "setup writes the missing .vk" "$BIN" setup --c1 "$T/c1.json" && has "$T/out" "setup writes the missing .vk" "written now"
cmp -s "$VK" "$T/exported.vk" || fail "setup: the .vk it wrote again differs"

# A changed byte: a point off the curve (2) or a wrong proof (1), never valid.
cp "$T/proof.bin" "$T/tampered.bin"
flip_byte "$T/tampered.bin" 100
"$BIN" verify --c1 "$T/c1.json" --proof "$T/tampered.bin" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 1 ] || [ $rc -eq 2 ]; then echo "ok: tampered proof (exit $rc)"; else fail "tampered proof: exit $rc"; fi
{ tail -c 48 "$T/proof.bin"; head -c 144 "$T/proof.bin" | tail -c 96; head -c 48 "$T/proof.bin"; } >"$T/swapped.bin"
expect 1 "swapped A and C" "$BIN" verify --c1 "$T/c1.json" --proof "$T/swapped.bin"
# Another comm_r or seed: the verifier derives other public inputs.
rewrite_c1 "$T/c1.json" "$T/c1_comm_r.json" comm_r
expect 1 "changed comm_r" "$BIN" verify --c1 "$T/c1_comm_r.json" --proof "$T/proof.bin" && has "$T/out" "changed comm_r" "invalid"
rewrite_c1 "$T/c1.json" "$T/c1_seed.json" seed
expect 1 "changed seed" "$BIN" verify --c1 "$T/c1_seed.json" --proof "$T/proof.bin"
# A proof of one sector does not verify for another.
expect 0 "gen seed 8" "$BIN" gen --sector 2KiB --seed 8 -o "$T/c1_8.json"
expect 1 "other sector" "$BIN" verify --c1 "$T/c1_8.json" --proof "$T/proof.bin"
head -c 100 "$T/proof.bin" >"$T/short.bin"
expect 2 "short proof" "$BIN" verify --c1 "$T/c1.json" --proof "$T/short.bin" && has "$T/err" "short proof" "192"

# Batch: both sectors as a pipeline with two jobs in flight; every proof verifies, the
# timeline is well formed, and a batch that does not fit the memory budget is refused first.
# Its flags are the other side of every default (the c1_json decoder, the smallvec2 indexer, B in
# G2 in parallel, no MSM split, no presizing), and the pre-compiled circuit is moved away: synth=auto
# synthesizes directly and says so. Under a budget that holds two serial syntheses in flight
# (2.29 GiB) but not with the parallel parts (2.93 GiB): parallel is refused with the way
# out, auto (the default) falls back to serial.
mv "$PCE" "$T/moved.pce"
expect 2 "batch over budget" "$BIN" prove --c1 "$T/c1.json" --c1 "$T/c1_8.json" --jobs 2 -o "$T/batch0" \
  --memory-budget 0.5 && has "$T/err" "batch over budget" "fewer jobs in flight"
[ -e "$T/batch0" ] && fail "a refused batch created $T/batch0"
expect 2 "batch into a file" "$BIN" prove --c1 "$T/c1.json" --c1 "$T/c1_8.json" -o "$T/proof.bin" &&
  has "$T/err" "batch into a file" "directory"
expect 2 "parallel over budget" "$BIN" prove --c1 "$T/c1.json" --c1 "$T/c1_8.json" --jobs 2 -o "$T/batch1" \
  --memory-budget 2.6GiB --flag synth_challenges=parallel && has "$T/err" "parallel over budget" "--flag synth_challenges=serial"
expect 0 "batch --jobs 2, auto under budget, every other flag" "$BIN" prove --c1 "$T/c1.json" --c1 "$T/c1_8.json" \
  --jobs 2 -o "$T/batch" --timeline "$T/batch/timeline.json" --memory-budget 2.6GiB --flag c1_json=nlohmann \
  --flag lc_indexer=smallvec2 --flag b_g2_msm=parallel --flag msm_split=off --flag presize=off &&
  has "$T/out" "batch report" "proofs per minute" && has "$T/out" "batch report" "synthesize" &&
  has "$T/out" "batch report" "each partition's challenges synthesized one after another" &&
  has "$T/err" "batch without the pre-compiled circuit" "no pre-compiled circuit of StackedDrg2KiBV1_1 cached"
mv "$T/moved.pce" "$PCE"
expect 0 "verify batch proof 1" "$BIN" verify --c1 "$T/c1.json" --proof "$T/batch/c1.proof"
expect 0 "verify batch proof 2" "$BIN" verify --c1 "$T/c1_8.json" --proof "$T/batch/c1_8.proof"
expect 1 "batch proofs not swapped" "$BIN" verify --c1 "$T/c1.json" --proof "$T/batch/c1_8.proof"
python3 - "$T/batch/timeline.json" <<'PY' || fail "timeline.json is not well formed"
import json, sys
t = json.load(open(sys.argv[1]))
assert [j["name"] for j in t["jobs"]] == ["c1#0", "c1_8#0"], t["jobs"]
for e in t["events"]:
    assert 0 <= e["start_ms"] <= e["end_ms"] <= t["wall_ms"] + 1e-6, e
for job in (0, 1):
    stages = {e["stage"] for e in t["events"] if e["job"] == job}
    assert {"synthesize", "queue", "ntt", "msm_h", "assemble"} <= stages, (job, stages)
    assert "load_pce" not in stages, ("synth=auto without the file loaded a pre-compiled circuit", job, stages)
PY
grep -q "<svg" "$T/batch/timeline.svg" 2>/dev/null || fail "no timeline.svg beside timeline.json"

finish porep_e2e_test
