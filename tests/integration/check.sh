#!/bin/sh
# SPDX-License-Identifier: MIT
# `iocurve check`: plans of valid campaigns (matrices expanded), errors and exit codes of bad ones.
. "$(dirname "$0")/lib.sh"
: "${IOCURVE_SOURCE:?set by meson test}"
# the bad campaigns are checked from inside their directory
case $IOCURVE in /*) ;; *) IOCURVE=$PWD/$IOCURVE ;; esac

"$IOCURVE" check "$IOCURVE_SOURCE/configs/demo.yaml" > "$T/demo.out" 2> "$T/demo.err" ||
	{ cat "$T/demo.out" "$T/demo.err"; fail "check of configs/demo.yaml exits 0"; }
ok "check of configs/demo.yaml exits 0"
check "demo: prints each workload" grep -q "^workload 2/2: randwrite-8k$" "$T/demo.out"
check "demo: rates in ops/s and MiB/s" grep -q "ramp from 4000 ops/s (31.2 MiB/s) in total, x2 each step" "$T/demo.out"
check "demo: totals and estimate" \
	grep -q "^total: 2 workloads, up to 27 steps, at most 2m 08s" "$T/demo.out"
check "demo: nothing on stderr" test ! -s "$T/demo.err"

# ontap-harvest.yaml needs the URL of a Harvest from the environment, and says so by name
if "$IOCURVE" check "$IOCURVE_SOURCE/configs/ontap-harvest.yaml" > /dev/null 2> "$T/harvest.err"; then
	fail "ontap-harvest.yaml without HARVEST_URL is refused"
fi
check "ontap-harvest.yaml without HARVEST_URL names it" \
	grep -q 'ontap-harvest.yaml:[0-9]*:[0-9]*: ${HARVEST_URL} is not set' "$T/harvest.err"
export HARVEST_URL=http://harvest.example:12990/metrics
for f in "$IOCURVE_SOURCE"/configs/*.yaml; do
	check "$(basename "$f") is valid" sh -c '"$IOCURVE" check "$1" > /dev/null' sh "$f"
done
unset HARVEST_URL

cat > "$T/matrix.yaml" <<YAML
campaign: matrix
agents: {select: {count: 2, labels: {zone: a}}, wait: 30s}
target: {sim: {service_time: 100us}}
slo: {latency: 2ms, metric: p99}
stop: {achieved: 90%, ceiling: 20ms, errors: false}
interval: 1s
warmup: 1s
measure: 2s
workloads:
  - name: mix
    rw: [randread, randrw]
    block_size: [4KiB, 8KiB]
    read_pct: [75]
    load: {ramp: {start: 40MiB/s, factor: 2, max_steps: 5}, refine: 2}
  - {name: peak, rw: read, block_size: 64KiB, steady: {extend: 3},
     load: {curve: [50%, 100%]}}
  - {name: shares, load: {steps: [1k, 50%, max]}}
YAML
"$IOCURVE" check "$T/matrix.yaml" > "$T/matrix.out" 2>&1 ||
	{ cat "$T/matrix.out"; fail "check of a matrix campaign exits 0"; }
ok "check of a matrix campaign exits 0"
names=$(sed -n 's/^workload [0-9]*\/[0-9]*: //p' "$T/matrix.out" | tr '\n' ' ')
check "matrix expands in order with generated names" \
	test "$names" = "mix-randread-4k mix-randread-8k mix-randrw-4k-r75 mix-randrw-8k-r75 peak shares "
check "agents with labels" grep -q "2 that dial in with labels zone=a; wait up to 30.0s" "$T/matrix.out"
check "slo metric" grep -q "slo      p99 latency <= 2.00ms" "$T/matrix.out"
check "stop rules" grep -q "below 90% of its offered rate, with p99 latency over 20.0ms$" "$T/matrix.out"
check "ramp from a bandwidth" grep -q "ramp from 10240 ops/s (40.0 MiB/s) in total, x2 each step, up to 5 steps" "$T/matrix.out"
# 8 steps of 1 s warm-up, 2 s measured and ~0.5 s, and the steady extensions' budget (4 x 2 s)
check "ramp plan is an upper bound" grep -q "plan     up to 8 steps, at most 36s" "$T/matrix.out"
check "curve starts with the peak" grep -q "curve: a max step for the peak, then 50%, 100% of it" "$T/matrix.out"
check "steady extension" grep -q "up to 3 more intervals until decided" "$T/matrix.out"
check "shares of the peak need a max step first" grep -q "steps, offered in total across agents (a max step first, for the peak):" "$T/matrix.out"
check "max step" grep -q "3  max (closed loop at queue depth 16)" "$T/matrix.out"
check "totals" grep -q "^total: 6 workloads, up to 39 steps, at most " "$T/matrix.out"

# A bad campaign: the message names file:line:column, the exit status is 2.
cat > "$T/bad.yaml" <<YAML
campaign: bad
agents: {local: 1}
target: {path: /tmp/x, size: 1MiB}
workloads:
  - name: a
    load: {ramp: {start: 1k, factor: 2, increment: 1k}}
YAML
status=0
"$IOCURVE" check "$T/bad.yaml" > "$T/bad.out" 2> "$T/bad.err" || status=$?
check "bad campaign exits 2" test "$status" -eq 2
check "bad campaign prints nothing on stdout" test ! -s "$T/bad.out"
check "bad campaign names file:line:column" grep -qF \
	"iocurve: $T/bad.yaml:6:18: load.ramp: give either 'factor' (multiply each step) or 'increment' (add to each step), not both" \
	"$T/bad.err"

# Every documented error, through the command as a user runs it.
cd "$IOCURVE_SOURCE/tests/campaigns"
n=0
for f in *.yaml; do
	want=$(sed -n '1s/^# expect: //p' "$f")
	status=0
	got=$("$IOCURVE" check "$f" 2>&1 > /dev/null) || status=$?
	[ "$status" -eq 2 ] || fail "$f: exit status $status, expected 2"
	case "$got" in
	"iocurve: $want"*) ;;
	*) fail "$f: got '$got', expected 'iocurve: $want'" ;;
	esac
	n=$((n + 1))
done
ok "$n bad campaigns exit 2 with their documented message"
cd - > /dev/null
# ... and docs/campaign.md's table of them is that list, message for message (it once
# lacked 15 of them and gave an old message for another).
python3 - "$IOCURVE_SOURCE" <<'PY' || fail "docs/campaign.md's validation errors are the fixtures'"
import glob, os, re, sys
src = sys.argv[1]
doc = open(os.path.join(src, "docs/campaign.md")).read()
rows = dict(re.findall(r"^\| `(bad-[^`]*\.yaml)` \| (.*) \|$", doc, re.M))
want = {}
for f in glob.glob(os.path.join(src, "tests/campaigns/bad-*.yaml")):
    m = re.match(r"# expect: [^:]+:(?:\d+:\d+: )?(.*)", open(f).readline().strip())
    want[os.path.basename(f)] = m.group(1).replace("|", "\\|")
missing = sorted(set(want) - set(rows))
stale = sorted(f for f in rows if f not in want or rows[f] != want[f])
assert not missing and not stale, f"not in the table: {missing}; not as the fixture says: {stale}"
print(f"ok - docs/campaign.md lists the {len(want)} bad campaigns with their messages")
PY

# The full example of docs/campaign.md, as a user would copy it: its zip makes the four
# corners four workloads, and its top-level ramp is a bandwidth every workload can take.
awk '/^## A full example/ { on = 1 } on && /^```yaml/ { inside = 1; next } inside && /^```/ { exit } inside' \
	"$IOCURVE_SOURCE/docs/campaign.md" > "$T/full-example.yaml"
"$IOCURVE" check "$T/full-example.yaml" > "$T/full-example.out" 2>&1 ||
	{ cat "$T/full-example.out"; fail "the docs' full example passes check"; }
ok "the docs' full example passes check"
check "its zip makes the four corners four workloads" \
	test "$(grep -c '^workload [0-9]*/[0-9]*: 4c-' "$T/full-example.out")" -eq 4
for w in 4c-read-64k 4c-write-64k 4c-randread-8k 4c-randwrite-8k; do
	check "  $w among them" grep -q "^workload [0-9]*/[0-9]*: $w\$" "$T/full-example.out"
done

status=0
"$IOCURVE" check > /dev/null 2>&1 || status=$?
check "no file: usage, exit 2" test "$status" -eq 2
status=0
"$IOCURVE" check "$T/missing.yaml" 2> "$T/missing.err" || status=$?
check "missing file exits 2" test "$status" -eq 2
check "missing file says so" grep -q "missing.yaml: cannot read: No such file or directory" "$T/missing.err"
check "--help exits 0" sh -c '"$IOCURVE" check --help | grep -q "usage: iocurve check FILE.yaml"'

# Every verb parses its arguments the same way: the same errors, exit 2, help from its table.
usage_err() { # usage_err "expected message" iocurve-args...
	want=$1
	shift
	status=0
	"$IOCURVE" "$@" > /dev/null 2> "$T/usage.err" || status=$?
	[ "$status" -eq 2 ] && grep -qF "$want" "$T/usage.err"
}
check "unknown option names the known ones" usage_err \
	"iocurve run: unknown option '--foo' (known: --out, --coordinator-listen, --tls, --verbose, --json, --wide, --coordinator, --no-queue, --detach, --resume, --accept-degraded, --set, --allow-device-writes, --require-knee, --help)" \
	run x.yaml --foo
check "an option without its value" usage_err "iocurve run: --out needs a value" run x.yaml --out
check "too many operands" usage_err "iocurve watch: too many operands" watch 1 2
check "an operand out of range" usage_err "iocurve cancel: ID 0: expected an integer from 1" cancel 0
check "a required option" usage_err "iocurve serve: --listen is required" serve --tls x
check "a size option out of range" usage_err \
	"iocurve serve: --max-frame 1: expected a size from 1KiB to 1GiB" \
	serve --listen 127.0.0.1:1 --tls x --max-frame 1
check "check takes no option" usage_err "iocurve check: unknown option '--out'" check --out x a.yaml
check "serve --help lists every option" sh -c '"$IOCURVE" serve --help > "$1" &&
	for o in listen tls control results metrics max-frame verbose help; do
		grep -q -- "--$o" "$1" || exit 1
	done' sh "$T/serve.help"
check "serve --help says :PORT of --metrics is loopback" sh -c \
	'"$IOCURVE" serve --help | grep -q "(:PORT: 127.0.0.1 only)"'

# 40,000 levels of flow nesting: refused at the first level too deep, at once.
python3 -c "print('campaign: x\nworkloads: ' + '[' * 40000 + ']' * 40000)" > "$T/deep.yaml"
python3 - "$IOCURVE" "$T/deep.yaml" <<'PY' || fail "deep nesting is refused at the first level too deep"
import subprocess, sys, time
t = time.monotonic()
p = subprocess.run([sys.argv[1], "check", sys.argv[2]], capture_output=True, text=True, timeout=30)
took = time.monotonic() - t
print(f"# 40,000 nested levels: check took {took:.3f} s: {p.stderr.strip()}")
assert p.returncode == 2, p.returncode
# Refused at the first level too deep (its column says so), not after walking all 40,000:
# the time is printed, not asserted (a busy machine is not a slow parser).
assert p.stderr.strip().endswith("deep.yaml:2:75: nested deeper than 64 levels"), p.stderr
PY
ok "deep nesting is refused at the first level too deep, with file:line:column"
# IOmeter's and vdbench's words: the key iocurve calls them, at file:line:column, status 2.
vocab() { # vocab KEY-LINE WANT: one workload with that line, in a workload and at the top
	printf 'campaign: v\nagents: {local: 1}\ntarget: {sim: {service_time: 100us}}\nworkloads:\n  - name: a\n    %s\n    load: {steps: [100]}\n' \
		"$1" > "$T/vocab.yaml"
	rc=0
	"$IOCURVE" check "$T/vocab.yaml" > "$T/vocab.out" 2>&1 || rc=$?
	key=$(printf '%s' "$1" | sed 's/^"//; s/"*: .*//')
	[ "$rc" -eq 2 ] && grep -qF "vocab.yaml:6:5: unknown key '$key' in workload 'a'" "$T/vocab.out" &&
		grep -qF -- "$2" "$T/vocab.out" || { cat "$T/vocab.out"; return 1; }
	printf 'campaign: v\nagents: {local: 1}\ntarget: {sim: {service_time: 100us}}\n%s\nworkloads: [{name: a, load: {steps: [100]}}]\n' \
		"$1" > "$T/vocab-top.yaml"
	"$IOCURVE" check "$T/vocab-top.yaml" > "$T/vocab.out" 2>&1 && return 1
	grep -qF "vocab-top.yaml:4:1: unknown key '$key' in campaign (" "$T/vocab.out" &&
		grep -qF -- "$2" "$T/vocab.out" || { cat "$T/vocab.out"; return 1; }
}
check "vdbench's xfersize is block_size" vocab "xfersize: 4k" "'xfersize' is vdbench's name: iocurve calls it 'block_size'"
check "vdbench's rdpct is read_pct" vocab "rdpct: 70" "'rdpct' is vdbench's name: iocurve calls it 'read_pct'"
check "vdbench's seekpct is rw" vocab "seekpct: 100" "'seekpct' is vdbench's: seekpct=100 is rw: randread"
check "vdbench's iorate is load steps" vocab "iorate: max" "'iorate' is vdbench's: give the rates as load: {steps: [OPS, ...]}"
check "vdbench's elapsed is measure" vocab "elapsed: 30" "'elapsed' is vdbench's name: iocurve calls it 'measure'"
check "vdbench's threads is queue_depth" vocab "threads: 8" "'threads' is vdbench's name: iocurve calls it 'queue_depth'"
check "vdbench's forthreads is a matrix" vocab "forthreads: 8" "'forthreads' is vdbench's: a list makes a matrix: queue_depth: [1, 8, 32]"
check "vdbench's forxfersize is a matrix" vocab "forxfersize: 4k" "'forxfersize' is vdbench's: a list makes a matrix: block_size: [4KiB, 64KiB]"
check "IOmeter's Transfer Request Size is block_size" vocab "Transfer Request Size: 4KiB" "'Transfer Request Size' is IOmeter's name: iocurve calls it 'block_size'"
check "IOmeter's Percent Read is read_pct" vocab "Percent Read: 70" "'Percent Read' is IOmeter's name: iocurve calls it 'read_pct'"
check "IOmeter's Percent Random is rw" vocab "Percent Random: 100" "'Percent Random' is IOmeter's: 100% random is rw: randread"
check "IOmeter's # of Outstanding I/Os is queue_depth" vocab '"# of Outstanding I/Os": 32' "'# of Outstanding I/Os' is IOmeter's name: iocurve calls it 'queue_depth'"
check "IOmeter's Ramp Up Time is warmup" vocab "Ramp Up Time: 5" "'Ramp Up Time' is IOmeter's name: iocurve calls it 'warmup'"
check "IOmeter's Run Time is measure" vocab "Run Time: 30" "'Run Time' is IOmeter's name: iocurve calls it 'measure'"
check "IOmeter's Workers is workers" vocab "Workers: 4" "'Workers' is IOmeter's name: iocurve calls it 'workers'"
echo "# check: all passed"
