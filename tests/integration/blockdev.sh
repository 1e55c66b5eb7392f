#!/bin/sh
# SPDX-License-Identifier: MIT
# A block device target through a loop device: reads, and writes only with the agent's consent;
# never a clone (data.clone).
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ] || ! command -v losetup > /dev/null; then
	echo "# needs root and losetup: skipped"
	exit 77
fi
truncate -s 64M "$T/disk.img"
LOOP=$(losetup -f --show "$T/disk.img" 2> /dev/null) || { echo "# no loop device: skipped"; exit 77; }
trap 'losetup -d "$LOOP"; cleanup' EXIT
# Data on the "disk" to read back, and to see changed by writes.
head -c 64M /dev/urandom > "$T/disk.img"

"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" host1 > /dev/null

run_on_device() { # run_on_device NAME RW AGENT-FLAGS...
	name=$1
	rw=$2
	shift 2
	port=$(free_port)
	wl=${WL:-"{name: $name, rw: $rw, block_size: 8KiB${EXTRA:-}, load: {steps: [1000]}}"}
	cat > "$T/$name.yaml" <<YAML
campaign: $name
agents: {select: {count: 1}, wait: 20s}
target: {path: $LOOP${SIZE-, size: 32MiB}}
workers: 2
queue_depth: 8
interval: 500ms
warmup: 500ms
measure: 1s
workloads:
  - $wl
YAML
	"$IOCURVE" run "$T/$name.yaml" --coordinator-listen "127.0.0.1:$port" --tls "$T/ca" \
		--out "$T/$name-results" > "$T/$name.out" 2> "$T/$name.err" &
	run=$!
	"$IOCURVE_AGENT" --coordinator "127.0.0.1:$port" --tls "$T/ca" --name host1 \
		--allow "$LOOP" "$@" 2> "$T/$name-agent.log" &
	agent=$!
	status=0
	wait_exit "$run" 60 || status=$?
	kill -TERM "$agent" 2> /dev/null
	wait_exit "$agent" 10 || true
	return "$status"
}

before=$(md5sum < "$T/disk.img")
run_on_device devread randread || { cat "$T/devread.err"; fail "random reads of an allowed device"; }
ok "random reads of an allowed device"
run_on_device devseq read || { cat "$T/devseq.err"; fail "sequential reads, a region per worker"; }
ok "sequential reads, a region per worker"
check "reads leave the device as it was" test "$before" = "$(md5sum < "$T/disk.img")"
check "the read curve has its step" grep -q "^devread,randread,8192,true,1,rate,1000.0" "$T/devread-results/curve.csv"

if run_on_device devwrite randwrite; then fail "writes without --allow-device-writes are refused"; fi
grep -q "target $LOOP is a block device: writing to it needs the agent flag --allow-device-writes" \
	"$T/devwrite.err" || { cat "$T/devwrite.err"; fail "the refusal says what to do"; }
ok "writes without --allow-device-writes are refused, and the message says what to do"
check "the refused run wrote nothing" test "$before" = "$(md5sum < "$T/disk.img")"

run_on_device devwrite2 randwrite --allow-device-writes ||
	{ cat "$T/devwrite2.err"; fail "writes with --allow-device-writes"; }
ok "writes with --allow-device-writes"
check "the writes reached the device" test "$before" != "$(md5sum < "$T/disk.img")"

# A device is never laid out, so it cannot be made a clone: its agent refuses, writing nothing.
before=$(md5sum < "$T/disk.img")
if EXTRA=", data: {clone: golden}" run_on_device devclone read; then
	fail "a clone on a block device is refused"
fi
grep -q "target $LOOP is a block device, which is never laid out: clone 'golden' needs a directory" \
	"$T/devclone.err" || { cat "$T/devclone.err"; fail "the clone's refusal says why"; }
ok "a clone on a block device is refused, saying why"
check "and the device is as it was" test "$before" = "$(md5sum < "$T/disk.img")"

# A replay on a device given without its size (the agent reads it when it opens the
# device): every operation lands inside it, none fails (it was built before the size was
# known, and each offset came out as 2^64 - 4096: EINVAL on every one).
fio --name=rec --filename="$T/f.dat" --size=8M --rw=randread --bs=4k --rate_iops=500 \
	--runtime=1 --time_based --ioengine=psync --write_iolog="$T/trace.log" > "$T/fio.out" 2>&1 ||
	{ cat "$T/fio.out"; fail "fio records a trace"; }
cp "$T/trace.log" "$T/trace-copy.log"
if ! SIZE="" WL="{name: devreplay, replay: {file: $T/trace.log, format: fio-iolog}, load: {speeds: [1]}}" \
	run_on_device devreplay read; then
	cat "$T/devreplay.err" "$T/devreplay-agent.log"
	fail "a replay on a device without size"
fi
python3 - "$T/devreplay-results" <<'PY' || fail "the replay's operations all completed, none failed"
import json, sys
import ivlines
d = sys.argv[1]
ops = errors = 0
for r in ivlines.records(d + "/intervals.jsonl"):
    if r["agent"] == "*" and not r["warmup"]:
        ops += r["ops"]
        errors += r["errors"]
print(f"# replay on the device: {ops} operations, {errors} errors")
assert ops > 0 and errors == 0, (ops, errors)
PY
ok "a replay on a device given without its size runs, every operation inside it"

# A random mix and a background beside a foreground, on the device given without size:
# every operation inside it, none failed.
device_ran() { # device_ran NAME WORKLOAD: ops > 0 and no error in its merged intervals
	python3 - "$T/$1-results" "$2" <<'PY'
import sys
import ivlines
d, wl = sys.argv[1], sys.argv[2]
ops = errors = 0
for r in ivlines.records(d + "/intervals.jsonl"):
    if r["agent"] == "*" and r["workload"] == wl and not r["warmup"]:
        ops += r["ops"]
        errors += r["errors"]
print(f"# {wl} on the device: {ops} operations, {errors} errors")
assert ops > 0 and errors == 0, (ops, errors)
PY
}
SIZE="" WL="{name: devmix, rw: randrw, read_pct: 70, block_size: 8KiB, load: {steps: [1000]}}" \
	run_on_device devmix randrw --allow-device-writes ||
	{ cat "$T/devmix.err" "$T/devmix-agent.log"; fail "a random mix on a device"; }
device_ran devmix devmix || fail "the mix's operations all landed"
ok "a random mix on a device given without its size"
SIZE="" WL="{name: bgw, rw: randwrite, block_size: 8KiB, background: true, load: {steps: [200]}}
  - {name: fgr, rw: randread, block_size: 8KiB, load: {steps: [500]}}" \
	run_on_device devbg randread --allow-device-writes ||
	{ cat "$T/devbg.err" "$T/devbg-agent.log"; fail "a background beside a foreground on a device"; }
device_ran devbg fgr || fail "the foreground's operations all landed"
ok "a background write stream beside foreground reads on a device"

# Local agents (iocurve run starts them) on a device: nothing to make where it is, and
# writes only with iocurve run's --allow-device-writes.
local_on_device() { # local_on_device NAME RW [iocurve run FLAGS...]
	name=$1
	rw=$2
	shift 2
	cat > "$T/$name.yaml" <<YAML
campaign: $name
agents: {local: 1}
target: {path: $LOOP}
workers: 1
interval: 250ms
warmup: 250ms
measure: 1250ms
workloads:
  - {name: $name, rw: $rw, block_size: 8KiB, load: {steps: [500]}}
YAML
	"$IOCURVE" run "$T/$name.yaml" --out "$T/$name-results" "$@" > "$T/$name.out" 2> "$T/$name.err"
}
before=$(md5sum < "$T/disk.img")
local_on_device localread randread || { cat "$T/localread.err"; fail "local agents read a device"; }
ok "local agents read a device target"
if local_on_device localwrite randwrite; then fail "local writes to a device need consent"; fi
check "local writes without --allow-device-writes are refused" test "$before" = "$(md5sum < "$T/disk.img")"
local_on_device localwrite2 randwrite --allow-device-writes ||
	{ cat "$T/localwrite2.err"; fail "local writes with iocurve run --allow-device-writes"; }
check "local writes with iocurve run --allow-device-writes reach the device" \
	test "$before" != "$(md5sum < "$T/disk.img")"
echo "# blockdev: all passed"
