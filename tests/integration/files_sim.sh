#!/bin/sh
# SPDX-License-Identifier: MIT
# A known answer for file workloads: a metadata mix (70% stat, 10% create, 10% unlink, 5%
# readdir, 5% whole-file reads) on a simulated device of 16 servers whose every kind named
# takes an exponential 1 ms (its default, 8 ms, none of them): an M/M/16 queue of capacity
# 16,000 ops/s whose mean crosses a 1.2 ms SLO at 13,723 ops/s by Erlang C (rho 0.86).
# The ramp and refinement must find the knee within 3% of it, and each kind's storage
# latency must be the queue's (within 10% of the whole's at the knee: FIFO servers serve
# every kind alike).
# Four servers of 250 us (the first form) read 20% over Erlang C at 10,000 ops/s while a
# neighbour test loaded the CI's two CPUs: the client's issue lag (70 us mean, its
# bunching of Poisson arrivals) is a large part of so short a service time, and a queue
# of four fills from a bunch; the product does not yet say when the client's bunching
# moved the storage's own queue (docs/methodology.md, Open work). Here the service time
# is four times the lag's spread, as knee-mmc's is.
. "$(dirname "$0")/lib.sh"

cat > "$T/fmmc.yaml" <<YAML
campaign: fmmc
agents: {local: 1}
target:
  sim:
    servers: 16
    service: exponential
    service_time: {default: 8ms, stat: 1ms, create: 1ms, unlink: 1ms, readdir: 1ms,
                   read-file: 1ms}
arrivals: poisson
workers: 1
queue_depth: 256
interval: 400ms
warmup: 1200ms
measure: 2400ms
slo: {latency: 1200us}
steady: {extend: 5}
fileset: {dirs: 10, files: 100, size: 4KiB}
workloads:
  - name: meta
    mix:
      - {name: stat, share: 70, op: stat}
      - {name: create, share: 10, op: create}
      - {name: unlink, share: 10, op: unlink}
      - {name: readdir, share: 5, op: readdir}
      - {name: read, share: 5, rw: read-file}
    load: {ramp: {start: 11000, factor: 1.1}, refine: 3}
YAML
"$IOCURVE" run "$T/fmmc.yaml" --out "$T/r" > "$T/r.out" 2> "$T/r.err" ||
	{ cat "$T/r.out" "$T/r.err"; fail "the metadata M/M/16 campaign runs"; }
ok "the metadata M/M/16 campaign runs on the sim"
python3 - "$T/r" <<'PY' || { cat "$T/r.out"; fail "the metadata mix's knee within 3% of Erlang C"; }
import json, sys
from queueing import crossing, erlang_c_mean
d = sys.argv[1]
want = crossing(16, 1000.0, 1200e-6)
assert abs(want - 13723) < 1, want
steps = sorted(json.load(open(d + "/curve-meta.json"))["steps"], key=lambda p: p["step"])
for s in steps:
    print(f"# step {s['step']}: offered {s['offered_ops']:.0f} storage mean "
          f"{s.get('service_mean_us', 0):.0f}us (Erlang C "
          f"{1e6 * erlang_c_mean(16, min(s['offered_ops'], 15999), 1000.0):.0f}us) {s['verdict']}")
w = json.load(open(d + "/summary.json"))["workloads"][0]
print(f"# knee {w['knee_ops']} ({w['knee_kind']}); Erlang C crossing {want:.0f} "
      f"({100 * (w['knee_ops'] / want - 1):+.2f}%)")
if "client-bound" in open(d + "/summary.md").read():
    assert w.get("knee_lower_bound") and w["knee_ops"] <= want * 1.03, w
else:
    assert abs(w["knee_ops"] / want - 1) <= 0.03, (w["knee_ops"], want)
pk = w["parts_at_knee"]
whole = [s for s in steps if s["step"] == pk["step"]][0]
for p in pk["parts"]:
    print(f"# {p['name']} ({p['rw']}): {p['ops']} ops/s, storage mean {p['storage_mean_us']}us, "
          f"errors {p['errors']}")
    assert p["errors"] == 0, p
    assert abs(p["storage_mean_us"] / whole["service_mean_us"] - 1) <= 0.10, (p, whole["service_mean_us"])
PY
ok "the metadata mix's knee is Erlang C's within 3%, every kind served in its own time"
