#!/usr/bin/env python3
"""Print Google Benchmark JSON files as one readable table.

    python3 scripts/report.py results/runs/<stamp>/*.json
    python3 scripts/report.py --self-test

Per benchmark: the median time over repetitions (or the single run), the spread
(min..max) where there are repetitions, any rate counters, and cycle counts
(counters named cycles/..., as bench_ff's ff/isa_mix reports).
"""
import contextlib
import io
import json
import os
import statistics
import sys
import tempfile
from collections import OrderedDict

UNITS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def human_time(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:8.2f} {unit}"
    return f"{ns:8.1f} ns"


def human_rate(x):
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= scale:
            return f"{x / scale:.2f}{unit}"
    return f"{x:.2f}"


def main(paths):
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    rows = OrderedDict()
    context = None
    for path in paths:
        try:
            with open(path) as f:
                data = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            print(f"report: cannot read {path}: {e}", file=sys.stderr)
            return 2
        context = context or data.get("context", {})
        for b in data.get("benchmarks", []):
            if b.get("run_type") == "aggregate" or "error_message" in b:
                if "error_message" in b:
                    rows.setdefault(b["name"], {"times": [], "counters": {}, "error": b["error_message"]})
                continue
            name = b.get("run_name", b["name"])
            row = rows.setdefault(name, {"times": [], "counters": {}})
            row["times"].append(b["real_time"] * UNITS.get(b.get("time_unit", "ns"), 1.0))
            for k, v in b.items():
                if isinstance(v, (int, float)) and (k.endswith("/s") or k.startswith("cycles/")) or k in (
                        "items_per_second", "bytes_per_second"):
                    row["counters"].setdefault(k, []).append(v)
    if context:
        print(f"machine: {context.get('cpu_model', context.get('host_name', '?'))}, "
              f"{context.get('num_cpus', '?')} cpus, commit {context.get('commit', '?')}")
    width = max([len(n) for n in rows] + [9])
    print(f"{'benchmark':<{width}}  {'median':>11}  {'reps':>4}  {'spread':>9}  counters")
    print("-" * (width + 45))
    for name, row in rows.items():
        if "error" in row:
            print(f"{name:<{width}}  skipped: {row['error']}")
            continue
        t = row["times"]
        med = statistics.median(t)
        spread = f"{(max(t) - min(t)) / med * 100:7.1f}%" if len(t) > 1 else "        -"
        counters = "  ".join(
            f"{k}={statistics.median(v):.2f}" if k.startswith("cycles/") else f"{k}={human_rate(statistics.median(v))}"
            for k, v in row["counters"].items())
        print(f"{name:<{width}}  {human_time(med)}  {len(t):>4}  {spread:>9}  {counters}")
    return 0


def self_test():
    """The table of a small run: medians, spread, which counters show and how."""
    run = {"context": {"cpu_model": "test CPU", "num_cpus": 2, "commit": "abc1234"},
           "benchmarks": [
               {"name": "a/x", "run_name": "a/x", "run_type": "iteration", "real_time": 10.0, "time_unit": "us",
                "points/s": 2.5e6, "cycles/loop": 13.3351, "GHz": 3.66},
               {"name": "a/x", "run_name": "a/x", "run_type": "iteration", "real_time": 60.0, "time_unit": "us",
                "points/s": 3.5e6, "cycles/loop": 13.0, "GHz": 3.66},
               {"name": "a/x", "run_name": "a/x", "run_type": "iteration", "real_time": 20.0, "time_unit": "us",
                "points/s": 3.0e6, "cycles/loop": 14.0, "GHz": 3.66},
               {"name": "a/x_median", "run_name": "a/x", "run_type": "aggregate", "real_time": 99.0, "time_unit": "us"},
               {"name": "b/y", "run_type": "iteration", "real_time": 1.5, "time_unit": "ms", "error_message": "no GPU"},
           ]}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "run.json")
        with open(path, "w") as f:
            json.dump(run, f)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = main([path])
    text = out.getvalue()
    row = next(line for line in text.splitlines() if line.startswith("a/x"))
    checks = [
        (rc == 0, "exit code 0"),
        ("machine: test CPU, 2 cpus, commit abc1234" in text, "the machine line"),
        ("20.00 us" in row, "the median of the iterations, not the aggregate row"),
        ("250.0%" in row, "the spread (max - min) / median"),
        ("points/s=3.00M" in row, "a rate counter, as a rate"),
        ("cycles/loop=13.34" in row, "a cycle count, as a plain number"),
        ("GHz" not in row, "other counters left out"),
        ("b/y" in text and "skipped: no GPU" in text, "a skipped benchmark with its reason"),
    ]
    failed = [what for ok, what in checks if not ok]
    if failed:
        print(text, file=sys.stderr)
        print("report self-test: failed: " + "; ".join(failed), file=sys.stderr)
        return 1
    print("report self-test: ok")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(main(sys.argv[1:]))
