#!/bin/sh
# SPDX-License-Identifier: MIT
# Crafted results cost what they hold, not 100 times it: a results directory whose
# intervals.jsonl has 100,000 minimal observe lines (9 MB) is reported within 400 MB of
# address space (each line was kept in ~8 KB of fixed slots: 810 MB), and 100,000
# retried lines after 3,200 observe lines do not each walk all of them.
. "$(dirname "$0")/lib.sh"

cat > "$T/c.yaml" <<YAML
campaign: crafted
agents: {local: 1}
target: {sim: {servers: 4, service_time: 200us}}
interval: 200ms
warmup: 200ms
measure: 1s
workloads:
  - {name: rr, rw: randread, block_size: 4KiB, load: {steps: [200]}}
YAML
"$IOCURVE" run "$T/c.yaml" --out "$T/r" > "$T/run.out" 2>&1 || { cat "$T/run.out"; fail "a small run"; }
craft() { # craft DIR OBS RETRIED: a copy of the run with OBS observe lines, RETRIED lines
	cp -r "$T/r" "$1"
	printf "observe:\n  - {name: s, url: 'http://127.0.0.1:9/metrics', series: [x_total]}\n" \
		>> "$1/plan.yaml"
	python3 - "$1/intervals.jsonl" "$2" "$3" <<'PY'
import json, sys
path, nobs, nret = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
lines = open(path).read().splitlines()
obs = json.dumps({"format": 5, "workload": "rr", "step": 0, "observe": "s", "interval": 1,
                  "values": {"x_total": None}}, separators=(",", ":"))
ret = json.dumps({"format": 5, "workload": "rr", "step": 7, "retried": 1}, separators=(",", ":"))
out = lines[:1] + [obs] * nobs + lines[1:] + [ret] * nret
open(path, "w").write("\n".join(out) + "\n")
PY
}
craft "$T/many" 100000 0
rc=0
(ulimit -v 400000 && "$IOCURVE" report "$T/many" > "$T/many.out" 2>&1) || rc=$?
[ "$rc" -eq 0 ] || { tail -3 "$T/many.out"; fail "100,000 observe lines reported within 400 MB (exit $rc)"; }
ok "100,000 observe lines reported within 400 MB of address space"
craft "$T/retried" 3200 100000
(ulimit -v 400000 && "$IOCURVE" report "$T/retried" > "$T/retried.out" 2>&1) ||
	{ tail -3 "$T/retried.out"; fail "3,200 observe lines and 100,000 retried lines reported"; }
ok "3,200 observe lines and 100,000 retried lines reported"
