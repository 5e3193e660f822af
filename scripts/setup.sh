#!/usr/bin/env bash
# Installs the Debian packages c2lab needs, and only those that are missing.
# This list is the one place where c2lab's system dependencies are named.
set -euo pipefail

PACKAGES=(
  cmake g++ make pkg-config python3
  ninja-build ccache              # builds: Ninja, and a compiler cache keyed relative to the checkout
  libgtest-dev libbenchmark-dev   # tests and benchmarks
  libtbb-dev                      # oneTBB: parallel stages
  libboost-dev                    # Boost.Container small_vector (the lc_indexer variants)
  nlohmann-json3-dev              # JSON
  libssl-dev                      # OpenSSL: SHA-256
  libxxhash-dev                   # xxHash: XXH3-128, the contents' digest of a parameters file's origin record
  libsqlite3-dev                  # SQLite: the results history (regressions/history.hpp)
  libpq-dev postgresql            # PostgreSQL: the shared history (regressions/sql_db.hpp) and the server its test starts
  chromium                        # headless: the HTML reports and plots are checked rendered (trend_report_chromium_test)
  libcli11-dev                    # CLI11 (header-only): the c2lab command line
  libsimdjson-dev                 # simdjson: the c1_json=simdjson decoder
  libre2-dev                      # RE2: benchmark-name patterns of policy files and --bench (regressions/name_regex.hpp)
  libjemalloc2 libmimalloc2.0     # `c2lab ab --allocator jemalloc,mimalloc` (LD_PRELOAD)
  valgrind                        # scripts/icount.sh: instruction counts (callgrind)
  clang llvm libclang-rt-14-dev   # scripts/fuzz.sh: clang, llvm-symbolizer, libFuzzer (Debian 12's clang 14;
                                  # the runtime is only a recommendation of clang there)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "c2lab setup: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
