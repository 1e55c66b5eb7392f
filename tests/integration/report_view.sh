#!/bin/sh
# SPDX-License-Identifier: MIT
# report.html of a small simulated run: it parses, has a curve per workload, and a browser
# renders it to a page that is not blank. Skips (77) without chromium, after the HTML checks.
. "$(dirname "$0")/lib.sh"

# One worker on a device of 2 servers x 1ms: 2,000 ops/s, so 2,500 saturates and the knee
# (SLO 3ms) lies between the last two steps.
cat > "$T/view.yaml" <<YAML
campaign: report-view
agents: {local: 1}
target: {sim: {servers: 2, service_time: 1ms}}
workers: 1
queue_depth: 8
interval: 100ms
warmup: 100ms
measure: 200ms
slo: {latency: 3ms}
workloads:
  - {name: randread-4k, rw: randread, block_size: 4KiB, load: {steps: [200, 1000, 1800, 2500]}}
  - {name: read-64k, rw: read, block_size: 64KiB, load: {steps: [200, 1000]}}
YAML

"$IOCURVE" run "$T/view.yaml" --out "$T/results" > "$T/run.out" 2> "$T/run.err" ||
	{ cat "$T/run.out" "$T/run.err"; fail "iocurve run exits 0"; }
ok "iocurve run exits 0"
R=$T/results
check "results has report.html" test -s "$R/report.html"

# Symlinks planted in a results directory: report writes through none of them.
cp -r "$R" "$T/planted"
printf 'precious\n' > "$T/victim"
rm -f "$T/planted/summary.txt"
ln -s "$T/victim" "$T/planted/summary.txt"
ln -s "$T/victim" "$T/planted/.report.html.tmp"
ln -s "$T/victim" "$T/planted/.summary.txt.tmp"
if "$IOCURVE" report "$T/planted" > "$T/planted.out" 2> "$T/planted.err"; then
	fail "report refuses to replace a symlinked summary.txt"
fi
check "the refusal names the symlink" \
	grep -q "$T/planted/summary.txt: refusing to replace a symbolic link" "$T/planted.err"
check "the planted symlinks' target is untouched" test "$(cat "$T/victim")" = precious
check "report.html is a regular file, rewritten" test -f "$T/planted/report.html" -a ! -L "$T/planted/report.html"
check "no temp file is left behind" test -z "$(find "$T/planted" -name '.*.tmp' ! -type l)"
# 30,000 nested objects in intervals.jsonl: an error naming file and line, no stack overflow.
cp -r "$R" "$T/deep"
python3 -c "print('{\"a\":' * 30000)" >> "$T/deep/intervals.jsonl"
lines=$(wc -l < "$T/deep/intervals.jsonl")
rc=0
"$IOCURVE" report "$T/deep" > /dev/null 2> "$T/deep.err" || rc=$?
check "deep JSON nesting is an error, not a crash" test "$rc" -eq 1
check "the error names file and line" \
	grep -q "intervals.jsonl:$lines: not JSON: maximum parsing depth reached" "$T/deep.err"
if [ "$(id -u)" -eq 0 ]; then
	cp -r "$R" "$T/theirs"
	chown -R nobody "$T/theirs"
	if "$IOCURVE" report "$T/theirs" > /dev/null 2> "$T/theirs.err"; then
		fail "report refuses another user's directory"
	fi
	check "report refuses another user's directory, and says why" \
		grep -q "$T/theirs belongs to uid [0-9]*; report rewrites files in it" "$T/theirs.err"
fi

python3 - "$R" <<'PY' || fail "report.html parses, one curve per workload"
import glob, sys, xml.dom.minidom
from html.parser import HTMLParser

class Count(HTMLParser):
    def handle_data(self, data):
        if self.in_dt:
            self.dts.append(data)
            self.in_dt = False
    def __init__(self):
        super().__init__()
        self.tags, self.circles, self.external = {}, 0, []
        self.timeplots, self.dts, self.in_dt, self.hists = 0, [], False, 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        self.timeplots += tag == "svg" and a.get("class") == "timeplot"
        self.hists += tag == "svg" and a.get("class") == "hist"
        self.in_dt = tag == "dt"
        if tag == "circle" and a.get("class") == "step":
            self.circles += 1
        for k in ("src", "href"):
            if k in a:
                self.external.append((tag, k, a[k]))

r = sys.argv[1]
p = Count()
p.feed(open(r + "/report.html", encoding="utf-8").read())
p.close()
assert p.tags.get("svg") == 4 + p.hists, f"{p.tags.get('svg')} <svg>, expected a curve and a plot over time per workload (4) and {p.hists} histograms"
assert p.hists == 6, f"{p.hists} latency histograms, expected one per step (6)"
assert p.timeplots == 2, f"{p.timeplots} plots over time, expected 2"
for want in ("Date", "iocurve", "Command", "Coordinator", "Agent hosts", "Mounts"):
    assert want in p.dts, f"no {want} in the header: {p.dts}"
assert p.circles == 6, f"{p.circles} step markers, expected 4 + 2"
assert p.tags.get("table", 0) >= 1 + 2 * 2, f"{p.tags.get('table')} tables"
assert not p.external, f"external resources: {p.external}"
print("ok - report.html parses: 2 curves, 2 plots over time, the run's header, 6 step markers, summary and step tables, nothing external")
for svg in sorted(glob.glob(r + "/curve-*.svg")):
    xml.dom.minidom.parse(svg)
    print("ok - " + svg.rsplit("/", 1)[1] + " is well-formed XML")
PY

BROWSER=""
for b in chromium chromium-browser google-chrome; do
	if command -v "$b" > /dev/null 2>&1; then
		BROWSER=$b
		break
	fi
done
if [ -z "$BROWSER" ]; then
	echo "# no chromium: the rendering check is skipped"
	exit 77
fi

# A private profile, no network, no first-run work: the page is a local file. One run
# takes the screenshot and dumps the DOM (to stdout).
timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$T/profile" --screenshot="$T/shot.png" --window-size=1200,1600 \
	--dump-dom "file://$R/report.html" > "$T/dom.html" 2> "$T/browser.out" ||
	{ cat "$T/browser.out"; fail "$BROWSER takes a screenshot and dumps the DOM"; }
check "$BROWSER takes a screenshot" test -s "$T/shot.png"
check "$BROWSER dumps the DOM" test -s "$T/dom.html"
check "the browser's DOM has both plots over time" \
	test "$(grep -o 'class="timeplot"' "$T/dom.html" | wc -l)" -eq 2
check "the browser's DOM has the run's header" \
	sh -c "grep -q '<code id=\"command\">iocurve run ' '$T/dom.html' && grep -q '<dd id=\"hosts\">' '$T/dom.html'"

# Decode the PNG (8-bit RGB/RGBA, the only kind chromium writes) and look at its pixels.
python3 - "$T/shot.png" "$(dirname "$0")" <<'PY' || fail "the rendered page is not blank"
import sys
sys.path.insert(0, sys.argv[2])
from pngcolour import colours
# a sample of rows and pixels is plenty to tell a page from a blank
pixels, (w, h) = colours(sys.argv[1], 4, 2)
total = sum(pixels.values())
background = max(pixels.values())
print(f"# {w}x{h}, {len(pixels)} distinct colours, {100 * (total - background) / total:.1f}% not background")
assert len(pixels) > 16, "too few colours: blank or failed render"
assert total - background > total // 50, "almost everything is background"
print("ok - the rendered page has text, tables and curves on it")
PY
echo "# report_view: all passed"
