#!/usr/bin/env bash
# How far can `c2lab ab` be trusted on this machine? Runs N experiments of the probe benchmark
# (bench_probe: a fixed chain of Fr multiplications) with the test-only flag inject_slowdown:
#   off (baseline) vs aa     the same code under two names: any "slower"/"faster" is a false alarm
#   off vs 1pct .. 10pct     a known slowdown: how often is it called "slower" (the power)
# Each experiment is one `c2lab ab` run (all six variants interleaved, --rounds R, Holm over
# the five comparisons), with its own shuffle seed.
#   scripts/ab_calibrate.sh [--experiments N (10)] [--rounds R (10)] [--min-time S (0.1)]
# Writes every run under results/runs/<stamp>-calibration/ and the summary (markdown) to
# results/ab/calibration-<stamp>.md, and prints it.
set -euo pipefail
cd "$(dirname "$0")/.."
n=10 rounds=10 min_time=0.1
while (($#)); do
  case "$1" in
    --experiments) n="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --min-time) min_time="$2"; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
done
scripts/setup.sh
scripts/build.sh release >/dev/null
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
runs="results/runs/$stamp-calibration"
mkdir -p "$runs" results/ab
for ((s = 1; s <= n; s++)); do
  echo "[calibrate] experiment $s/$n" >&2
  build/release/cli/c2lab ab --binary build/release/benchmarks/bench_probe --filter 'ab_probe/' \
    --flag inject_slowdown=off,aa,1pct,2pct,5pct,10pct --rounds "$rounds" --min-time "$min_time" \
    --seed "$s" --out "$runs/experiment-$s" --json >/dev/null
done
python3 - "$runs" "$n" "$rounds" "$min_time" "results/ab/calibration-$stamp.md" <<'PY'
import glob, json, os, sys, collections
runs, n, rounds, min_time, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
counts = collections.defaultdict(collections.Counter)
ratios = collections.defaultdict(list)
ctx = {}
for path in sorted(glob.glob(os.path.join(runs, "experiment-*", "ab.json"))):
    j = json.load(open(path))
    ctx = j.get("context", ctx)
    for r in j["results"]:
        if r["verdict"] == "baseline":
            continue
        label = r["label"].split("=", 1)[1]
        counts[label][r["verdict"]] += 1
        if "ratio" in r:
            ratios[label].append(r["ratio"])
truth = {"aa": 0, "1pct": 1, "2pct": 2, "5pct": 5, "10pct": 10}
lines = [f"# c2lab ab calibration ({n} experiments, {rounds} rounds each, min-time {min_time} s)", ""]
machine = ctx.get("machine", ctx)
lines.append(f"Machine: `{json.dumps(machine)[:300]}`")
lines.append("")
lines.append("| variant vs off | true slowdown | slower | faster | same | inconclusive | median ratio |")
lines.append("|---|---:|---:|---:|---:|---:|---:|")
for label in ["aa", "1pct", "2pct", "5pct", "10pct"]:
    c = counts[label]
    tot = sum(c.values()) or 1
    rs = sorted(ratios[label])
    med = rs[len(rs) // 2] if rs else float("nan")
    lines.append(f"| {label} | {truth[label]}% | {c['slower']}/{tot} | {c['faster']}/{tot} | {c['same']}/{tot} | "
                 f"{c['inconclusive']}/{tot} | {med:.4f} |")
aa = counts["aa"]
false_alarms = aa["slower"] + aa["faster"]
smallest = next((l for l in ["1pct", "2pct", "5pct", "10pct"]
                 if counts[l]["slower"] >= 0.8 * max(1, sum(counts[l].values()))), None)
lines.append("")
lines.append(f"False alarms (A/A called slower or faster): {false_alarms}/{sum(aa.values())}.")
lines.append("Smallest injected slowdown detected in at least 80% of the experiments: "
             + (f"{truth[smallest]}%." if smallest else "none of 1, 2, 5, 10%."))
text = "\n".join(lines) + "\n"
tmp = out + ".tmp"
open(tmp, "w").write(text)
os.replace(tmp, out)
print(text)
PY
echo "summary: results/ab/calibration-$stamp.md (runs in $runs/)" >&2
