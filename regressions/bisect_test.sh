#!/usr/bin/env bash
# `c2lab bisect` end to end on a generated history: a small Google Benchmark program whose one
# benchmark ("stage") runs a fixed chain of multiplications, in a git repository of 8 commits
# after the good one, of which one (the 5th) makes the chain 6% longer (the size of one of the
# seeds' regressions); the others change nothing measurable. bisect must name that commit, with
# an effect near +6%, in at most ceil(log2 8) + 2 = 5 builds. CPU time is the metric: the test
# shares the machine with the rest of ctest, whose preemption blurs wall time.
#   regressions/bisect_test.sh C2LAB_BINARY
set -uo pipefail
BIN="${1:?usage: bisect_test.sh C2LAB}"
source "$(dirname "$0")/../cli/test_lib.sh"

R="$T/repo"
mkdir -p "$R" && cd "$R" || exit 1
git init -q && git config user.email bisect@example.org && git config user.name bisect
cat >bench.cpp <<'CPP'
#include <benchmark/benchmark.h>
#include <cstdint>
#include "work.hpp"
static void stage(benchmark::State& state) {
    std::uint64_t x = 3;
    for (auto _ : state) {
        for (long i = 0; i < work; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
        benchmark::DoNotOptimize(x);
    }
}
BENCHMARK(stage)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
CPP
echo 'constexpr long work = 2000000;' >work.hpp
cat >build.sh <<'SH'
mkdir -p build && c++ -O2 -o build/bench bench.cpp -lbenchmark -lpthread
SH
git add . && git commit -qm "good: the stage as it was" && good=$(git rev-parse HEAD)
for k in 1 2 3 4 5 6 7 8; do
  if [ "$k" = 5 ]; then
    echo 'constexpr long work = 2120000;' >work.hpp  # 6% more work
    git commit -qam "commit $k: the stage does 6% more work"
    slow=$(git rev-parse HEAD)
  else
    echo "note $k" >>notes.txt && git add notes.txt && git commit -qm "commit $k: notes only"
  fi
done
bad=$(git rev-parse HEAD)
# Then one commit makes the stage 15% faster (for --find faster), among notes.
echo "note 9" >>notes.txt && git add notes.txt && git commit -qm "commit 9: notes only"
echo 'constexpr long work = 1800000;' >work.hpp
git commit -qam "commit 10: the stage does 15% less work" && fast=$(git rev-parse HEAD)
echo "note 11" >>notes.txt && git add notes.txt && git commit -qm "commit 11: notes only" && tip=$(git rev-parse HEAD)
git checkout -q "$bad"

expect 0 "bisect" "$BIN" bisect --good "$good" --bad "$bad" --filter '^stage$' --binary build/bench \
  --build-cmd 'bash build.sh' --rounds 10 --min-time 0.05 --metric cpu_time --work "$T/work" &&
  has "$T/out" "bisect names the slow commit" "first slower commit: $slow commit 5: the stage does 6% more work"
builds=$(sed -n 's/.* commit(s); \([0-9]*\) build(s).*/\1/p' "$T/out")
[ -n "$builds" ] && [ "$builds" -le 5 ] && echo "ok: $builds builds (at most ceil(log2 8) + 2 = 5)" ||
  fail "bisect: ${builds:-?} builds, expected at most 5: $(cat "$T/out")"
effect=$(sed -n 's/^its effect: +\([0-9.]*\)%.*/\1/p' "$T/out")
python3 -c "import sys; e=float(sys.argv[1]); sys.exit(0 if 3 < e < 10 else 1)" "${effect:-0}" &&
  echo "ok: effect +$effect%" || fail "bisect: effect '${effect:-?}', expected about +6%"
# Every measured step is in the history (kind ab, the candidate's commit).
expect 0 "bisect steps recorded" "$BIN" history list && [ "$(grep -c "c2lab bisect " "$T/out")" -ge 4 ] ||
  fail "bisect: fewer than 4 steps recorded: $(cat "$T/out")"
[ -z "$(git -C "$R" worktree list | grep -F "$T/work/driver")" ] || fail "bisect left its driver worktree"
[ "$(git -C "$R" rev-parse HEAD)" = "$bad" ] || fail "bisect moved the user's checkout"

# --find faster: the first commit after the slow one that made the stage faster.
expect 0 "bisect --find faster" "$BIN" bisect --find faster --good "$bad" --bad "$tip" --filter '^stage$' --binary build/bench \
  --build-cmd 'bash build.sh' --rounds 10 --min-time 0.05 --metric cpu_time --work "$T/work" &&
  has "$T/out" "bisect --find faster" "first faster commit: $fast commit 10: the stage does 15% less work"

# Refusals: bad not slower than good, and good not an ancestor of bad.
expect 2 "bisect without a slowdown" "$BIN" bisect --good "$good" --bad "$(git rev-parse "$slow~1")" --filter '^stage$' \
  --binary build/bench --build-cmd 'bash build.sh' --rounds 6 --min-time 0.05 --metric cpu_time --work "$T/work" &&
  has "$T/err" "bisect without a slowdown" "is not measurably slower"
expect 2 "bisect reversed" "$BIN" bisect --good "$bad" --bad "$good" --filter '^stage$' --binary build/bench \
  --build-cmd 'bash build.sh' --work "$T/work" && has "$T/err" "bisect reversed" "is not an ancestor"
finish bisect_test
