#!/usr/bin/env bash
# End to end test of the results history through the c2lab CLI: history_cli_test.sh /path/to/c2lab.
# record, import (each file once), list, gate --baseline history[:N], and the refusals.
set -u
BIN=${1:?usage: history_cli_test.sh /path/to/c2lab}
# shellcheck source=cli/test_lib.sh
source "$(dirname "$0")/test_lib.sh"
unset C2LAB_HISTORY

for sub in "history" "history record" "history import" "history list"; do
  # shellcheck disable=SC2086 # the subcommand is two words
  expect 0 "$sub --help" "$BIN" $sub --help && has "$T/out" "$sub --help" "Example"
done

mkdir -p "$T/runs/r1" "$T/runs/r2" "$T/runs/r3" "$T/other"
bench_json "$T/runs/r1/bench_x.json" "Test CPU" 90 180 c000001    # oldest: 10% faster
bench_json "$T/runs/r2/bench_x.json" "Test CPU" 100 200 c000002
bench_json "$T/runs/r3/bench_x.json" "Test CPU" 100.1 199.9 c000003
bench_json "$T/other/bench_x.json" "Other CPU" 50 100 c000004       # another machine, twice as fast
bench_json "$T/same.json" "Test CPU" 100 200 c000005
bench_json "$T/slow.json" "Test CPU" 110 220 c000006             # 10% slower
DB="$T/h/history.sqlite"

expect 0 "record" "$BIN" history record --from "$T/runs/r1" --db "$DB" && has "$T/out" "record" "recorded run 1" &&
  has "$T/out" "record" "2 benchmark(s), 24 sample(s)"
expect 0 "record again" "$BIN" history record --from "$T/runs/r1" --db "$DB" && has "$T/out" "record again" "already recorded" &&
  has "$T/out" "record again" "(run 1)"
for r in r2 r3; do expect 0 "record $r" "$BIN" history record --from "$T/runs/$r" --branch main --db "$DB"; done
expect 0 "record other machine" "$BIN" history record --from "$T/other" --db "$DB"
expect 0 "list" "$BIN" history list --db "$DB" && has "$T/out" "list" "4 run(s) in $DB" &&
  has "$T/out" "list" "c000003" && has "$T/out" "list" "test-cpu-2cpu-release" && has "$T/out" "list" "other-cpu-2cpu-release"
expect 0 "list --bench" "$BIN" history list --bench '^b$' --db "$DB" && has "$T/out" "list --bench" "b: real_time, median per run" &&
  has "$T/out" "list --bench" "180 ns" && has "$T/out" "list --bench" "199.9 ns"
expect 2 "list --bench no match" "$BIN" history list --bench 'zzz' --db "$DB" && has "$T/err" "list --bench no match" "c2lab: error:"
expect 2 "list --bench bad regex" "$BIN" history list --bench '(' --db "$DB" && has "$T/err" "list --bench bad regex" "--bench"

# Errors: malformed JSON writes nothing (not even the database file); an unknown kind.
echo '{"benchmarks": [' >"$T/broken.json"
expect 2 "record malformed" "$BIN" history record --from "$T/broken.json" --db "$T/fresh.sqlite" &&
  has "$T/err" "record malformed" "c2lab: error: $T/broken.json: malformed JSON"
[ -e "$T/fresh.sqlite" ] && fail "record malformed: the database was created"
expect 2 "record bad kind" "$BIN" history record --from "$T/same.json" --kind nightly --db "$DB"
expect 2 "list without a database" "$BIN" history list --db "$T/none.sqlite" && has "$T/err" "list without a database" "none.sqlite"

# gate against the history: the last 2 runs of this machine (r2, r3), not r1 nor the other machine.
expect 0 "gate history pass" "$BIN" gate --baseline history:2 --current "$T/same.json" --db "$DB" --markdown "$T/gate.md" &&
  has "$T/out" "gate history pass" "PASS" &&
  has "$T/out" "gate history pass" "run(s) 2 (c000002, 2026-12-02T10:00:00, 2 benchmark(s)), 3 (c000003" &&
  has "$T/out" "gate history pass" "1 run(s) of other machines or kinds left out" && has "$T/gate.md" "gate history markdown" "Baseline:"
grep -q "run(s) 1 (" "$T/out" && fail "gate history pass: the oldest run is in a baseline of the last 2"
expect 1 "gate history slower" "$BIN" gate --baseline history:2 --current "$T/slow.json" --db "$DB" &&
  has "$T/out" "gate history slower" "FAIL" && has "$T/out" "gate history slower" "- a: real_time ratio 1.09"
# The default N (5) takes the oldest run too.
expect 0 "gate history default" "$BIN" gate --baseline history --current "$T/same.json" --db "$DB" &&
  has "$T/out" "gate history default" "run(s) 1 (c000001"
# $C2LAB_HISTORY is the default database; the current run, once recorded, is not its own baseline.
C2LAB_HISTORY="$DB" expect 0 "record current" "$BIN" history record --from "$T/same.json"
C2LAB_HISTORY="$DB" expect 0 "gate history env" "$BIN" gate --baseline history:2 --current "$T/same.json" &&
  has "$T/out" "gate history env" "Left out as the current run itself: run(s) 5"
expect 2 "gate history N 0" "$BIN" gate --baseline history:0 --current "$T/same.json" --db "$DB" &&
  has "$T/err" "gate history N 0" "N >= 1"
expect 2 "gate history no match" "$BIN" gate --baseline history --current "$T/same.json" --db "$T/empty.sqlite" &&
  has "$T/err" "gate history no match" "no history database"

# import: run directories and baseline files, each file once; other JSON passed over.
mkdir -p "$T/results/runs" "$T/results/baselines/test-cpu-2cpu-release" "$T/results/ab"
cp -r "$T/runs/r2" "$T/runs/r3" "$T/results/runs/"
cp "$T/runs/r3/bench_x.json" "$T/results/baselines/test-cpu-2cpu-release/"  # a baseline copied from r3
echo '{"variants": []}' >"$T/results/ab/ab.json"
expect 0 "import" "$BIN" history import --results "$T/results" --db "$T/imp.sqlite" &&
  has "$T/out" "import" "2 run(s) recorded, 1 already in the history, 1 not Google Benchmark JSON" &&
  has "$T/err" "import" "ab.json"
expect 0 "import again" "$BIN" history import --results "$T/results" --db "$T/imp.sqlite" &&
  has "$T/out" "import again" "0 run(s) recorded, 3 already in the history" && has "$T/out" "import again" "holds 2 run(s)"

# A database written by a newer c2lab is refused with both versions named.
sqlite3 "$T/imp.sqlite" "UPDATE schema_version SET version = 7" 2>/dev/null ||
  python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("UPDATE schema_version SET version = 7"); c.commit()' "$T/imp.sqlite"
expect 2 "newer schema" "$BIN" history list --db "$T/imp.sqlite" &&
  has "$T/err" "newer schema" "schema version 7, this c2lab knows up to 2"

# gate history at ancestor commits only: in a repository with main A -> B and a side branch A -> C,
# the runs at A and C (C 10% faster), the current run at B: C's run is left out.
if command -v git >/dev/null; then
  R="$T/repo"
  mkdir -p "$R" && cd "$R" && git init -q && git config user.email t@example.org && git config user.name t &&
    echo a >f && git add f && git commit -qm A && A=$(git rev-parse HEAD) &&
    git checkout -q -b side && echo c >f && git commit -qam C && C=$(git rev-parse HEAD) &&
    git checkout -q - && echo b >f && git commit -qam B && B=$(git rev-parse HEAD) || fail "making the test repository"
  bench_json "$T/anc-a.json" "Test CPU" 1000 2000 "$A"
  bench_json "$T/anc-c.json" "Test CPU" 900 1800 "$C"
  bench_json "$T/anc-b.json" "Test CPU" 1000 2000 "$B"
  "$BIN" history record --db "$T/anc.sqlite" --from "$T/anc-a.json" >/dev/null &&
    "$BIN" history record --db "$T/anc.sqlite" --from "$T/anc-c.json" >/dev/null || fail "recording the ancestor runs"
  expect 0 "gate history ancestors" "$BIN" gate --baseline history:5 --current "$T/anc-b.json" --db "$T/anc.sqlite" &&
    has "$T/out" "gate history ancestors" "1 run(s) at commits that are not ancestors of HEAD left out" &&
    has "$T/out" "gate history ancestors" "PASS"
  cd - >/dev/null || true
fi

# history changes: 24 runs, benchmark a 6% slower from run 13 on, b unchanged: one change, at 13.
for k in $(seq 1 24); do
  bench_json "$T/cp$k.json" "Test CPU" $([ "$k" -lt 13 ] && echo 100 || echo 106) 50 "c$k"
  "$BIN" history record --db "$T/cp.sqlite" --from "$T/cp$k.json" >/dev/null 2>&1 || fail "record cp$k"
done
expect 0 "history changes" "$BIN" history changes --db "$T/cp.sqlite" &&
  has "$T/out" "history changes" "1 change point(s) in 2 series" &&
  grep -qE '^a +test-cpu-2cpu-release +13 +c13 .*\+6\.00%' "$T/out" || fail "history changes: no change of a at run 13: $(cat "$T/out")"
grep -qE '^b ' "$T/out" && fail "history changes: a change of b, which never changed"
has "$T/out" "history changes" "Apache Otava's analysis" || fail "history changes: otava is not the default method"
expect 0 "history changes e-divisive" "$BIN" history changes --db "$T/cp.sqlite" --method e-divisive &&
  has "$T/out" "history changes e-divisive" "1 change point(s) in 2 series" &&
  grep -qE '^a +test-cpu-2cpu-release +13 +c13 .*\+6\.00%' "$T/out" || fail "history changes e-divisive: no change of a at run 13: $(cat "$T/out")"
expect 0 "history changes --min-size 13" "$BIN" history changes --db "$T/cp.sqlite" --bench '^a$' --method e-divisive --min-size 13 &&
  has "$T/out" "history changes --min-size 13" "0 change point(s) in 1 series (1 with fewer than 26 runs: not searched)"
expect 2 "history changes bad method" "$BIN" history changes --db "$T/cp.sqlite" --method pelt &&
  has "$T/err" "history changes bad method" "--method"
expect 2 "history changes bad regex" "$BIN" history changes --db "$T/cp.sqlite" --bench '(' &&
  has "$T/err" "history changes bad regex" "--bench is not a valid regex"

finish history_cli_test
