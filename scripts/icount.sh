#!/usr/bin/env bash
# Instruction counts: each workload of icount_probe (benchmarks/icount_probe.cpp) run once
# under valgrind's callgrind, counting only the workload itself. Counts are deterministic,
# so a shared, noisy machine can still gate on them (wall time stays advisory).
#   scripts/icount.sh                    every workload; JSON to results/runs/<stamp>-icount/
#   scripts/icount.sh --filter 'ff/.*'   only workloads whose name (icount/...) matches (regex search)
#   scripts/icount.sh --out DIR          write DIR/icount.json instead
#   scripts/icount.sh --gate             then gate the run against the stored baseline of its
#                                        toolchain (compiler, valgrind, build type; any CPU),
#                                        results/baselines/toolchain-.../icount.json, with
#                                        results/policies/icount.json (exit 1 on a regression;
#                                        no baseline for this toolchain: says so, exit 0)
#   scripts/icount.sh --list             the workload names
#   scripts/icount.sh --build-dir DIR    the CMake build to use (default build/release, Release)
# The JSON is Google Benchmark's shape (one iteration row per workload, the count in the
# "instructions" counter, the wall time of the valgrind run as real_time), so `c2lab gate`
# and `c2lab baseline update` read it as any run. Store a baseline with
#   build/release/cli/c2lab baseline update --from results/runs/<stamp>-icount
set -euo pipefail
cd "$(dirname "$0")/.."
export C2LAB_NO_AVX512=1  # valgrind stops at AVX-512 instructions: keep the IFMA batch path (ff/ifma.hpp) off
filter="" out="" gate=0 list=0 build=build/release
while (($#)); do
  case "$1" in
    --filter) filter="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --gate) gate=1; shift ;;
    --list) list=1; shift ;;
    --build-dir) build="$2"; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
done
scripts/setup.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target icount_probe c2lab -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
probe="$build/benchmarks/icount_probe"
c2lab="$build/cli/c2lab"
if ((list)); then "$probe" --list; exit 0; fi
if [ -z "$out" ]; then out="results/runs/$(date -u +%Y%m%dT%H%M%SZ)-icount"; fi
mkdir -p "$out"
# Datasets are generated natively, before any valgrind run.
"$probe" --prepare >/dev/null

# Runs the workloads, writes $out/icount.json and prints the table.
python3 - "$probe" "$out" "$filter" <<'PY'
import json, os, re, resource, subprocess, sys, tempfile, time

probe, out, pattern = sys.argv[1:4]
names = subprocess.run([probe, "--list"], check=True, capture_output=True, text=True).stdout.split()
rx = re.compile(pattern) if pattern else None
selected = [n for n in names if rx is None or rx.search("icount/" + n)]
if not selected:
    print(f"icount: no workload matches --filter '{pattern}' (see --list)", file=sys.stderr)
    sys.exit(2)

def first_line(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()[0].strip()
    except (OSError, IndexError):
        return "unknown"

def cpu_model_and_count():
    model, count = "unknown", 0
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and model == "unknown":
                    model = line.split(":", 1)[1].strip()
                if line.startswith("processor"):
                    count += 1  # as Google Benchmark counts num_cpus
    except OSError:
        pass
    return model, count or (os.cpu_count() or 0)

def commit():
    # Read from .git directly (no git process): HEAD, a loose ref or packed-refs.
    try:
        gitdir = ".git"
        if os.path.isfile(gitdir):
            gitdir = open(gitdir).read().split("gitdir:", 1)[1].strip()
        head = open(os.path.join(gitdir, "HEAD")).read().strip()
        if not head.startswith("ref:"):
            return head[:7]
        ref = head[4:].strip()
        path = os.path.join(gitdir, ref)
        if os.path.isfile(path):
            return open(path).read().strip()[:7]
        for line in open(os.path.join(gitdir, "packed-refs")):
            parts = line.split()
            if len(parts) == 2 and parts[1] == ref:
                return parts[0][:7]
    except (OSError, IndexError):
        pass
    return "unknown"

cpu, ncpu = cpu_model_and_count()
context = {
    "date": time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()),
    "host_name": os.uname().nodename,
    "executable": os.path.basename(probe),
    "num_cpus": ncpu,
    "cpu_model": cpu,
    "build_type": "Release",
    "compiler": first_line(["c++", "--version"]),
    "commit": commit(),
    "mode": "instructions",
    "valgrind": first_line(["valgrind", "--version"]),
    "tool": "callgrind --instr-atstart=no, client requests around c2lab_icount_workload",
}

rows = []
with tempfile.TemporaryDirectory() as tmp:
    for i, name in enumerate(selected):
        log, cg = os.path.join(tmp, f"{i}.log"), os.path.join(tmp, f"{i}.callgrind")
        cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={cg}",
               f"--log-file={log}", probe, name]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        run = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.monotonic() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        log_text = open(log).read() if os.path.exists(log) else ""
        if run.returncode != 0:
            sys.exit(f"icount: {name} failed under valgrind (exit {run.returncode}):\n{run.stderr}{log_text}")
        m = re.search(r"Collected\s*:\s*(\d+)", log_text)
        if not m:
            sys.exit(f"icount: no 'Collected' count in callgrind's log for {name}:\n{log_text}")
        ir = int(m.group(1))
        fields = run.stdout.split()
        if len(fields) < 3 or fields[0] != name:
            sys.exit(f"icount: unexpected output from {name}: {run.stdout!r}")
        if ir == 0:
            sys.exit(f"icount: {name}: callgrind counted 0 instructions (client requests not seen?)")
        rows.append({"name": "icount/" + name, "family_index": i, "per_family_instance_index": 0,
                     "run_name": "icount/" + name, "run_type": "iteration", "repetitions": 1,
                     "repetition_index": 0, "threads": 1, "iterations": 1,
                     "real_time": wall * 1e3, "cpu_time": cpu_s * 1e3, "time_unit": "ms",
                     "instructions": ir, "checksum": fields[2]})
        print(f"  icount/{name}: {ir:,} Ir, {wall:.1f} s", file=sys.stderr)

path = os.path.join(out, "icount.json")
with open(path + ".tmp", "w") as f:
    json.dump({"context": context, "benchmarks": rows}, f, indent=2)
    f.write("\n")
os.replace(path + ".tmp", path)

width = max(len(r["name"]) for r in rows)
print(f"{'benchmark':<{width}}  {'instructions':>16}  {'valgrind wall':>13}")
for r in rows:
    print(f"{r['name']:<{width}}  {r['instructions']:>16,}  {r['real_time'] / 1e3:>11.1f} s")
total_wall = sum(r["real_time"] for r in rows) / 1e3
print(f"{len(rows)} workloads, {total_wall:.1f} s under valgrind; JSON written to {path}", file=sys.stderr)
PY

# Recorded in the results history ($C2LAB_HISTORY, else results/history.sqlite; `c2lab history`).
# A failure to record is a warning: the counts are written.
branch="$(git rev-parse --abbrev-ref HEAD 2>/dev/null || true)"
if ! msg="$("$c2lab" history record --from "$out/icount.json" --kind icount ${branch:+--branch "$branch"} 2>&1 >/dev/null)"; then
  echo "warning: the run was not recorded in the results history: ${msg:-c2lab history record failed}" >&2
fi

if ((gate == 0)); then exit 0; fi
# Instruction counts depend on the code and the toolchain, not on the CPU model: the baseline is
# the toolchain's (results/baselines/toolchain-<compiler>-<valgrind>-<build type>/, as
# `c2lab baseline path` names it), shared by every machine that builds with that toolchain.
dir="$("$c2lab" baseline path --from "$out")"
baseline="$dir/icount.json"
if [ ! -f "$baseline" ]; then
  echo "icount gate: no instruction-count baseline for this toolchain (no $baseline):" \
       "nothing to compare, not a failure." >&2
  echo "  To store one: $c2lab baseline update --from $out" >&2
  exit 0
fi
echo "icount gate: $out/icount.json against $baseline" >&2
set +e
"$c2lab" gate --baseline "$baseline" --current "$out/icount.json" --policy results/policies/icount.json \
  --markdown "$out/gate.md"
status=$?
set -e
exit "$status"
