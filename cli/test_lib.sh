# Shared by the CLI test scripts (sourced): a temporary directory $T removed on exit, a
# failure counter, and
#   expect CODE NAME CMD...   runs CMD (stdout in $T/out, stderr in $T/err), checks the exit code
#   has FILE NAME PATTERN     FILE contains the fixed string PATTERN
#   finish NAME               exits 1 if any check failed
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
expect() {
  local want=$1 name=$2
  shift 2
  "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    fail "$name: exit $rc, expected $want"
    sed 's/^/    stdout: /' "$T/out" >&2
    tail -n 40 "$T/err" | sed 's/^/    stderr: /' >&2
    return 1
  fi
  echo "ok: $name"
}
has() {
  grep -qF -- "$3" "$1" || { fail "$2: '$3' not in $(basename "$1"): $(head -c 400 "$1")"; return 1; }
}
finish() {
  if [ $failures -ne 0 ]; then
    echo "$1: $failures failure(s)" >&2
    exit 1
  fi
  echo "$1: all checks passed"
}
