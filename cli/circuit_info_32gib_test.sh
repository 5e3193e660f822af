#!/usr/bin/env bash
# The 32 GiB partition's circuit from a fresh shape pass (130 M constraints, a minute or two on
# one core): its constraint and public-input counts are the ones of rust-fil-proofs
# (REFERENCES.md). A test of its own so that it runs beside the end-to-end one.
# Usage: circuit_info_32gib_test.sh /path/to/c2lab
set -u
BIN=${1:?usage: circuit_info_32gib_test.sh /path/to/c2lab}
# shellcheck source=cli/test_lib.sh
source "$(dirname "$0")/test_lib.sh"
export C2LAB_CACHE_DIR="$T/cache"

expect 0 "circuit-info 32GiB" "$BIN" circuit-info --sector 32GiB &&
  has "$T/out" "circuit-info 32GiB" "constraints: 130278869" && has "$T/out" "circuit-info 32GiB" "public inputs: 327" &&
  has "$T/out" "circuit-info 32GiB" "shape pass: "
# The second run reads the shape the first memoized.
expect 0 "circuit-info 32GiB memoized" "$BIN" circuit-info --sector 32GiB &&
  has "$T/out" "circuit-info 32GiB memoized" "constraints: 130278869" && has "$T/out" "circuit-info 32GiB memoized" "memoized"
finish circuit_info_32gib_test
