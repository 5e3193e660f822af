#!/usr/bin/env python3
"""Print Google Benchmark JSON files as one readable table.

    python3 scripts/report.py results/runs/<stamp>/*.json

Per benchmark: the median time over repetitions (or the single run), the spread
(min..max) where there are repetitions, and any rate counters.
"""
import json
import statistics
import sys
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
                if isinstance(v, (int, float)) and k.endswith("/s") or k in ("items_per_second", "bytes_per_second"):
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
        counters = "  ".join(f"{k}={human_rate(statistics.median(v))}" for k, v in row["counters"].items())
        print(f"{name:<{width}}  {human_time(med)}  {len(t):>4}  {spread:>9}  {counters}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
