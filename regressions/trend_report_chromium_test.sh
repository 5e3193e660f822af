#!/usr/bin/env bash
# The HTML pages c2lab writes, rendered by headless Chromium (Debian's chromium): the history's
# trend report (`c2lab history report`) and the gate's report (`c2lab gate --html`). Each page is
# copied with a small script appended that measures every SVG's rendered box and every polyline's
# length (getBBox / getTotalLength need the layout engine) and writes the counts into the
# title; --dump-dom prints the DOM after the script ran, and the counts must match the data.
#   regressions/trend_report_chromium_test.sh C2LAB_BINARY
set -uo pipefail
BIN="${1:?usage: trend_report_chromium_test.sh C2LAB}"
source "$(dirname "$0")/../cli/test_lib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
  fail "no chromium on PATH (scripts/setup.sh installs Debian's chromium)"
  finish trend_report_chromium_test
fi

# render PAGE: the title after rendering, "rendered SVGS DRAWN POLYLINES LONG" (SVGs with a
# non-empty box, polylines longer than 10 px).
render() {
  cp "$1" "$T/probe.html"
  cat >>"$T/probe.html" <<'JS'
<script>
const svgs = [...document.querySelectorAll("svg")];
const drawn = svgs.filter(s => { const b = s.getBBox(); return b.width > 10 && b.height > 10; }).length;
const lines = [...document.querySelectorAll("polyline")];
const long = lines.filter(p => p.getTotalLength() > 10).length;
document.title = `rendered ${svgs.length} ${drawn} ${lines.length} ${long}`;
</script>
JS
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --user-data-dir="$T/profile" \
    --dump-dom "file://$T/probe.html" 2>"$T/chromium.err" | sed -n 's:.*<title>\(rendered [0-9 ]*\)</title>.*:\1:p'
}

# A history: benchmarks a (6% slower from run 13) and b, 24 runs of one machine, 8 of another.
for k in $(seq 1 24); do
  bench_json "$T/r$k.json" "Test CPU" $([ "$k" -lt 13 ] && echo 100 || echo 106) 50 "c$k"
  "$BIN" history record --db "$T/h.sqlite" --from "$T/r$k.json" >/dev/null 2>&1 || fail "record r$k"
done
for k in $(seq 1 8); do
  bench_json "$T/o$k.json" "Other CPU" 90 45 "o$k"
  "$BIN" history record --db "$T/h.sqlite" --from "$T/o$k.json" >/dev/null 2>&1 || fail "record o$k"
done
expect 0 "history report" "$BIN" history report --db "$T/h.sqlite" -o "$T/trend.html" &&
  has "$T/out" "history report" "2 series, 1 change point(s)"
got=$(render "$T/trend.html")
# 2 series: 2 SVGs drawn, 2 machines each: 4 polylines, all drawn longer than 10 px.
[ "$got" = "rendered 2 2 4 4" ] && echo "ok: the trend report renders in Chromium ($got)" ||
  fail "trend report in Chromium: '$got', expected 'rendered 2 2 4 4' ($(tail -n 3 "$T/chromium.err"))"
has "$T/trend.html" "trend change marker" 'class="change"'

# The gate's page: the forest plot and the samples' strips.
bench_json "$T/base.json" "Test CPU" 100 50
bench_json "$T/cur.json" "Test CPU" 110 50
expect 1 "gate --html" "$BIN" gate --baseline "$T/base.json" --current "$T/cur.json" --html "$T/gate.html"
got=$(render "$T/gate.html")
case "$got" in
  "rendered 2 2 "*) echo "ok: the gate report renders in Chromium ($got)" ;;
  *) fail "gate report in Chromium: '$got', expected two SVGs drawn ($(tail -n 3 "$T/chromium.err"))" ;;
esac

finish trend_report_chromium_test
