#!/usr/bin/env bash
# The results history on a real PostgreSQL server that this script starts itself: initdb in a
# temporary directory (as the unprivileged user nobody when run as root, since the server
# refuses root), a Unix socket only, trust authentication, stopped on exit. Then
#   1. history_test's store suite on PostgreSQL (the same tests as on SQLite, a fresh
#      database each);
#   2. two collectors (`c2lab history record`) writing 12 runs each into one database at once:
#      all 24 stored, with distinct ids, none lost;
#   3. a collector killed (SIGKILL) in the middle of a large upload: no partial run (a run's
#      samples are all there or none is);
#   4. an unreachable server: `c2lab: error: ...`, exit 2.
#   regressions/history_postgres_test.sh HISTORY_TEST_BINARY C2LAB_BINARY
set -uo pipefail
HT="${1:?usage: history_postgres_test.sh HISTORY_TEST C2LAB}"
BIN="${2:?usage: history_postgres_test.sh HISTORY_TEST C2LAB}"
source "$(dirname "$0")/../cli/test_lib.sh"

PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$PGBIN" ] || [ ! -x "$PGBIN/initdb" ]; then
  fail "no PostgreSQL server binaries under /usr/lib/postgresql (scripts/setup.sh installs Debian's postgresql)"
  finish history_postgres_test
fi
as_server() { if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi; }
chmod 755 "$T"
mkdir -p "$T/pg" "$T/sock"
[ "$(id -u)" = 0 ] && chown nobody "$T/pg" "$T/sock"
PORT=$((20000 + $$ % 20000))
stop_server() { as_server "$PGBIN/pg_ctl" -D "$T/pg/data" -m immediate stop >/dev/null 2>&1; rm -rf "$T"; }
trap stop_server EXIT
as_server "$PGBIN/initdb" -D "$T/pg/data" -U c2lab --auth=trust -E UTF8 --no-sync >"$T/initdb.log" 2>&1 ||
  { fail "initdb: $(tail -n 5 "$T/initdb.log")"; finish history_postgres_test; }
as_server "$PGBIN/pg_ctl" -D "$T/pg/data" -w -t 60 -l "$T/pg/server.log" \
  -o "-k $T/sock -p $PORT -c listen_addresses='' -c fsync=off" start >/dev/null ||
  { fail "the server did not start: $(tail -n 5 "$T/pg/server.log")"; finish history_postgres_test; }
echo "ok: PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on $T/sock port $PORT"
psql() { "$PGBIN/psql" -h "$T/sock" -p "$PORT" -U c2lab -X -A -t -q "$@"; }
url() { echo "postgresql:///$1?host=$T/sock&port=$PORT&user=c2lab"; }

# 1. The store suite.
C2LAB_TEST_POSTGRES="$T/sock $PORT c2lab" "$HT" --gtest_filter='*postgresql*' >"$T/suite.out" 2>&1
rc=$?
passed=$(sed -n 's/.*\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$T/suite.out")
if [ "$rc" = 0 ] && [ "${passed:-0}" -ge 8 ]; then
  echo "ok: the store suite on PostgreSQL ($passed tests)"
else
  fail "the store suite on PostgreSQL: exit $rc, ${passed:-0} passed: $(grep -E 'FAILED|Failure|error' "$T/suite.out" | head -n 20)"
fi

# 2. Two collectors at once.
psql -d postgres -c "CREATE DATABASE shared" || fail "CREATE DATABASE shared"
for w in 1 2; do
  for k in $(seq 1 12); do bench_json "$T/w$w-$k.json" "Writer $w CPU" $((100 + k)) $((200 + w)) "c$w$k"; done
done
collector() {
  for k in $(seq 1 12); do
    "$BIN" history record --db "$(url shared)" --from "$T/w$1-$k.json" >>"$T/w$1.out" 2>>"$T/w$1.err" || echo "w$1 #$k failed" >>"$T/w$1.err"
  done
}
collector 1 & p1=$!
collector 2 & p2=$!
wait $p1 $p2
grep -q failed "$T/w1.err" "$T/w2.err" && fail "a collector failed: $(cat "$T/w1.err" "$T/w2.err" | head -n 10)"
runs=$(psql -d shared -c "SELECT COUNT(*), COUNT(DISTINCT id), MIN(id), MAX(id) FROM runs")
[ "$runs" = "24|24|1|24" ] && echo "ok: two collectors at once, 24 runs, ids 1..24" || fail "two collectors: runs $runs, expected 24|24|1|24"
per_run=$(psql -d shared -c "SELECT COUNT(*) FROM (SELECT run_id FROM samples GROUP BY run_id HAVING COUNT(*) = 24) s")  # 2 benchmarks x 6 repetitions x 2 metrics
[ "$per_run" = 24 ] || fail "two collectors: $per_run runs with all 24 samples, expected 24"
expect 0 "history list on PostgreSQL" "$BIN" history list --db "$(url shared)" && has "$T/out" "history list on PostgreSQL" "writer-2-cpu-2cpu-release"

# 3. A collector killed mid-upload: 3000 benchmarks x 10 repetitions, one INSERT each.
python3 - "$T/big.json" <<'PY'
import json, sys
rows = [{"name": f"big/{b}", "run_name": f"big/{b}", "run_type": "iteration", "repetitions": 10,
         "repetition_index": i, "iterations": 1, "real_time": 1000 + b + i / 10, "cpu_time": 1000.0,
         "time_unit": "ns"} for b in range(3000) for i in range(10)]
json.dump({"context": {"cpu_model": "Big CPU", "num_cpus": 2, "build_type": "Release", "compiler": "c++"},
           "benchmarks": rows}, open(sys.argv[1], "w"))
PY
"$BIN" history record --db "$(url shared)" --from "$T/big.json" >/dev/null 2>&1 &
big=$!
# Until its transaction is inserting samples (or it ended), for up to 5 minutes: reading the 30,000
# rows first takes a while in the sanitizer build on a slow machine (over 25 s on a 2-core AMD EPYC
# of family 23 while another build ran, longer than the 200 polls this loop made before).
deadline=$((SECONDS + 300))
while ((SECONDS < deadline)); do
  n=$(psql -d shared -c "SELECT COUNT(*) FROM pg_stat_activity WHERE query LIKE 'INSERT INTO samples%'")
  [ "${n:-0}" -gt 0 ] && sleep 0.2 && break
  kill -0 $big 2>/dev/null || break
  sleep 0.05
done
[ "${n:-0}" -gt 0 ] || fail "the large upload was never seen inserting samples (nothing to kill mid-way)"
kill -KILL $big 2>/dev/null && killed=yes || killed=no
wait $big 2>/dev/null
sleep 0.5  # the server notices the closed connection and rolls back
state="$(psql -d shared -c "SELECT COUNT(*) FROM runs WHERE cpu_model = 'Big CPU'")|$(psql -d shared -c "SELECT COUNT(*) FROM samples WHERE benchmark LIKE 'big/%'")"
case "$killed|$state" in
  yes\|0\|0) echo "ok: a collector killed mid-upload left no partial run" ;;
  *\|1\|30000) echo "ok: the large upload completed before the kill (whole: $state)" ;;
  *) fail "killed collector: $killed, runs|samples of its run: $state (a partial run)" ;;
esac
orphans=$(psql -d shared -c "SELECT COUNT(*) FROM samples WHERE run_id NOT IN (SELECT id FROM runs)")
[ "$orphans" = 0 ] || fail "$orphans samples without a run"
expect 0 "record after the kill" "$BIN" history record --db "$(url shared)" --from "$T/w1-1.json" --kind bench &&
  has "$T/out" "record after the kill" "already"

# 4. An unreachable server.
expect 2 "unreachable server" "$BIN" history list --db "postgresql://127.0.0.1:1/none?connect_timeout=3" &&
  has "$T/err" "unreachable server" "c2lab: error: cannot connect to the history database"

finish history_postgres_test
