#!/usr/bin/env python3
"""The layering of c2lab, checked: a layer includes only itself and the layers below it.

    lib/core < ff < ec < poly < msm < r1cs < gadgets < groth16 < porep < pipeline
    regressions (the judge): core only, nothing of the prover
    gpu/ (a backend of the prover's stages): every lib layer but pipeline; lib never includes gpu

poly needs only ff, and msm ec (so they are side by side above ec); r1cs includes msm's density
bitmap. Tests, fuzz targets and seed writers (*_test.cpp, *_fuzz.cpp, fuzz_seeds.cpp) may use
any layer: a test of a lower layer may take its inputs from a higher one. cli/ and benchmarks/
stand above everything.

    scripts/check_layers.py [ROOT]     exit 1 naming every wrong-way include (ROOT: the checkout)
    scripts/check_layers.py --self-test
                                       checks that a wrong-way include in a scratch tree is found
Run by ctest as layering_test.
"""
import os
import re
import sys
import tempfile

LIB_ORDER = ["core", "ff", "ec", "poly", "msm", "r1cs", "gadgets", "groth16", "porep", "pipeline"]
# What each directory may include, besides itself.
ALLOWED = {
    "core": set(),
    "ff": {"core"},
    "ec": {"core", "ff"},
    "poly": {"core", "ff"},
    "msm": {"core", "ff", "ec"},
    "r1cs": {"core", "ff", "ec", "msm"},
    "gadgets": {"core", "ff", "ec", "msm", "r1cs"},
    "groth16": {"core", "ff", "ec", "poly", "msm", "r1cs"},
    "porep": {"core", "ff", "ec", "poly", "msm", "r1cs", "gadgets", "groth16"},
    "pipeline": {"core", "ff", "ec", "poly", "msm", "r1cs", "gadgets", "groth16", "porep"},
    "regressions": {"core"},
    "gpu": set(LIB_ORDER) - {"pipeline"},
}
SOURCES = re.compile(r"\.(c|cc|cpp|h|hpp|cu|cuh)$")
EXEMPT = re.compile(r"(_test\.cpp|_fuzz\.cpp|^fuzz_seeds\.cpp)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_]+)/')


def layer_of(rel):
    parts = rel.split(os.sep)
    if parts[0] == "lib" and len(parts) > 2:
        return parts[1]
    if parts[0] in ("regressions", "gpu"):
        return parts[0]
    return None


def check(root):
    problems = []
    for top in ("lib", "regressions", "gpu"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not SOURCES.search(name) or EXEMPT.search(name):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                layer = layer_of(rel)
                if layer is None or layer not in ALLOWED:
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = m.group(1)
                        if target == layer or target in ALLOWED[layer]:
                            continue
                        if target not in ALLOWED:  # not a layer of c2lab (a system header path)
                            continue
                        problems.append(f"{rel}:{lineno}: layer '{layer}' includes \"{target}/...\": "
                                        f"'{layer}' may include only {sorted(ALLOWED[layer] | {layer})}")
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as t:
        def write(rel, text):
            p = os.path.join(t, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)
        write("lib/ff/ok.hpp", '#include "core/error.hpp"\n#include <vector>\n')
        write("lib/pipeline/timeline.cpp", '#include "regressions/report.hpp"\n')
        write("regressions/ab.cpp", '#include "pipeline/flags.hpp"\n')
        write("lib/ec/curve_test.cpp", '#include "porep/circuit.hpp"\n')  # tests are exempt
        found = check(t)
        assert len(found) == 2, found
        assert any("lib/pipeline/timeline.cpp:1" in p and "'pipeline' includes \"regressions" in p for p in found), found
        assert any("regressions/ab.cpp:1" in p for p in found), found
    print("check_layers self-test: ok")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return 0
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    problems = check(root)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"check_layers: {len(problems)} wrong-way include(s)", file=sys.stderr)
        return 1
    print("check_layers: every include goes down the layers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
