#!/usr/bin/env python3
"""Writes regressions/testdata/otava_reference.json: seeded benchmark-like series and the change
points Apache Otava finds in them, so change_points_test.cpp can check c2lab's C++ port of Otava's
default analysis against Otava itself (Otava is not packaged in Debian, so CI does not run it).

Usage (Otava's source tree, e.g. a checkout of github.com/apache/otava, on PYTHONPATH; numpy and
scipy from Debian's python3-numpy and python3-scipy):
    PYTHONPATH=/path/to/otava python3 regressions/otava_reference.py > regressions/testdata/otava_reference.json
"""
import json
import sys

import numpy as np
from otava.analysis import compute_change_points
from otava.change_point_divisive.calculator import PairDistanceCalculator


def make_series():
    rng = np.random.default_rng(20261203)
    out = []

    def noisy(levels, noise):
        xs = []
        for length, mean in levels:
            xs += list(mean * (1 + noise * rng.standard_normal(length)))
        return [float(v) for v in xs]

    out.append(("step of 6%", noisy([(30, 100.0), (30, 106.0)], 0.01)))
    out.append(("two steps", noisy([(25, 50.0), (20, 53.0), (25, 49.0)], 0.01)))
    out.append(("spike", noisy([(20, 10.0)], 0.01)[:10] + [14.0] + noisy([(20, 10.0)], 0.01)[:10]))
    out.append(("noise only", noisy([(60, 1000.0)], 0.02)))
    out.append(("long, four changes", noisy([(40, 7.0), (35, 7.5), (50, 7.2), (30, 8.1), (45, 6.9)], 0.015)))
    out.append(("short", noisy([(4, 3.0), (4, 3.3)], 0.005)))
    out.append(("slow drift", [float(v) for v in np.linspace(100, 112, 80) * (1 + 0.01 * rng.standard_normal(80))]))
    out.append(("heavy-tailed noise with a step", [float(v) for v in
               np.concatenate([20 + rng.standard_t(3, 45), 23 + rng.standard_t(3, 45)])]))
    out.append(("integers (instruction counts)", [float(v) for v in [5000000] * 12 + [5050000] * 9 + [5050001] * 3]))
    return out


def main():
    cases = []
    for name, xs in make_series():
        cps, weak = compute_change_points(list(xs))  # Otava's defaults: window 50, max p 0.001
        cand = PairDistanceCalculator(np.array(xs, dtype=np.float64)).get_candidate_change_point(slice(0, len(xs)))
        cases.append({
            "name": name,
            "series": xs,
            "candidate": {"index": int(cand.index), "qhat": float(cand.qhat)},
            "weak": [int(c.index) for c in weak],
            "change_points": [{
                "index": int(c.index),
                "qhat": float(c.qhat),
                "pvalue": float(c.stats.pvalue),
                "mean_before": float(c.stats.mean_1),
                "mean_after": float(c.stats.mean_2),
            } for c in cps],
        })
    json.dump({"otava": "apache/otava 0.8.0 (commit 1ceb153)", "window_len": 50, "max_pvalue": 0.001,
               "min_magnitude": 0.0, "cases": cases}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
