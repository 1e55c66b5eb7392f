#!/bin/sh
# SPDX-License-Identifier: MIT
# Knees over NFS: ramps of 8 KiB random reads and a SWBUILD-like metadata mix (in the
# 'long' suite, NFS_KNEES=full: the four corners and the mix) on an export of nfs-ganesha
# (VFS FSAL) and rpcbind on 127.0.0.1 (tests/integration/nfslib.sh), judged at a storage
# mean of 500 us (client and server share this host's CPUs: at 1 ms the client ran out
# first). Known answers: each workload's ramp either passes its knee (Performance @ 500us
# a rate, the steps below it met, one above violated, the storage the limit) or, where the
# client ran out first (the server shares its two CPUs, and the suite runs a neighbour),
# says so: the limit names the client and the knee is a lower bound; run alone
# (NFS_KNEES=full, the long suite) at least one knee is found. No operation fails; each
# kind of the mix has operations and a storage latency of its own.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nfslib.sh"

EXP=$T/export
nfs_server_start "$EXP"
trap 'nfs_server_stop; cleanup' EXIT

{
	cat <<YAML
campaign: nfs-knees
agents: {local: 1}
target: {nfs: {server: 127.0.0.1, export: $EXP, path: knees, connections: 2}, size: 64MiB}
workers: 2
interval: 250ms
warmup: 250ms
measure: 1500ms
slo: {latency: 500us, metric: mean}
stop: {achieved: 95%, ceiling: 50ms, errors: true}
# SWBUILD unlinks twice what it creates: sets large enough to last an overloaded step
fileset: {dirs: 4, depth: 2, files: 150, size: {4KiB: 40, 16KiB: 40, 64KiB: 20}}
workloads:
YAML
	if [ "${NFS_KNEES:-short}" = full ]; then
		cat <<YAML
  - {name: seqread-64k, rw: read, block_size: 64KiB, load: {ramp: {start: 100MiB/s, factor: 2, max_steps: 8}, refine: 2}}
  - {name: seqwrite-64k, rw: write, block_size: 64KiB, load: {ramp: {start: 50MiB/s, factor: 2, max_steps: 8}, refine: 2}}
  - {name: randwrite-8k, rw: randwrite, block_size: 8KiB, load: {ramp: {start: 2000, factor: 2, max_steps: 8}, refine: 2}}
YAML
	fi
	cat <<YAML
  - {name: randread-8k, rw: randread, block_size: 8KiB, load: {ramp: {start: 2000, factor: 2, max_steps: 8}, refine: 2}}
  - name: swbuild
    mix:
      - {name: stat, share: 70, op: stat}
      - {name: access, share: 6, op: access}
      - {name: chmod, share: 5, op: setattr}
      - {name: readdir, share: 2, op: readdir}
      - {name: unlink, share: 2, op: unlink}
      - {name: create, share: 1, op: create}
      - {name: mkdir, share: 1, op: mkdir}
      - {name: read, share: 6, rw: read-file}
      - {name: write, share: 7, rw: write-file}
    load: {ramp: {start: 1000, factor: 2, max_steps: 8}, refine: 2}
YAML
} > "$T/knees.yaml"

"$IOCURVE" run "$T/knees.yaml" --out "$T/r" > "$T/r.out" 2>&1 ||
	{ cat "$T/r.out"; fail "the campaign over NFS exits 0"; }
ok "the campaign over NFS exits 0"
python3 - "$T/r" <<'PY' || { grep -E "@|limit" "$T/r.out"; fail "every workload passes its knee over NFS"; }
import json, os, sys
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
knees = 0
for w in s["workloads"]:
    name = w["name"]
    steps = json.load(open(f"{d}/curve-{name}.json"))["steps"]
    assert all(st["errors"] == 0 for st in steps), name
    met = [st["offered_ops"] for st in steps if st["slo_verdict"] == "met"]
    above = [st for st in steps if met and st["offered_ops"] > max(met)]
    assert met and above, (name, met)
    if w["limit"].startswith("client"):
        # this host runs the server too: the client can run out first, and then the
        # product must say so, giving the knee as a lower bound (">=")
        assert w.get("knee_lower_bound"), (name, w["knee_kind"])
        print(f"# {name}: the client ran out first: >= {w['knee_ops']:.0f} ops/s, {w['limit']}")
        continue
    assert w["knee_kind"] in ("interpolated", "measured") and not w.get("knee_lower_bound"), name
    assert w["knee_ops"] > 0 and any(st["slo_verdict"] == "violated" for st in above), name
    assert w["limit"].startswith("storage"), (name, w["limit"])
    print(f"# {name}: knee {w['knee_ops']:.0f} ops/s ({w['knee_mibps']:.1f} MiB/s), met up to "
          f"{max(met):.0f}, limit: {w['limit']}")
    knees += 1
# alone (the long suite), with the server the only neighbour, a knee must be found
assert knees >= 1 or os.environ.get("NFS_KNEES") != "full", "no workload passed its knee"
PY
ok "every workload passes its knee over NFS (a rate at 500 us, met below, violated above, the storage its limit, no errors) or names the client as its limit, the knee a lower bound"
check "each kind of the mix has its own storage latency" python3 - "$T/r/curve-swbuild.json" <<'PY'
import json, sys
parts = json.load(open(sys.argv[1]))["steps"][0]["parts"]
assert len(parts) == 9, len(parts)
assert all(p["ops"] > 0 and p["storage_mean_us"] > 0 for p in parts), parts
PY
echo "all NFS knee checks passed"
