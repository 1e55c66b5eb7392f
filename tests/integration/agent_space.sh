#!/bin/sh
# SPDX-License-Identifier: MIT
# Space before bytes, on a real 20 MiB tmpfs: a plan whose worker files cannot fit is
# refused before any byte is written, naming the path, the bytes needed and the bytes
# free; nothing is left behind and what was there is untouched. A plan that fits runs,
# and runs again with its files already there (their blocks count as held). Root only.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "# needs root (mounts a tmpfs)"; exit 77; }
M=$T/small
mkdir "$M"
mount -t tmpfs -o size=20m,mode=0755 tmpfs "$M" || { echo "# cannot mount a tmpfs"; exit 77; }
trap 'umount "$M" 2>/dev/null || true; cleanup' EXIT
mkdir "$M/t"
printf 'precious\n' > "$M/keep.txt"

campaign() { # campaign NAME SIZE WORKERS
	cat > "$T/$1.yaml" <<YAML
campaign: $1
agents: {local: 1}
target: {path: $M/t, size: $2, direct: false}
workers: $3
interval: 200ms
warmup: 200ms
measure: 400ms
workloads:
  - {name: w, rw: randread, block_size: 4KiB, load: {steps: [50]}}
YAML
}

# 2 x 16 MiB on 20 MiB: the 26 GiB-per-worker plan in small.
campaign big 16MiB 2
check "the plan passes check (check knows no agent's disk)" "$IOCURVE" check "$T/big.yaml"
status=0
"$IOCURVE" run "$T/big.yaml" --out "$T/big-results" > "$T/big.out" 2> "$T/big.err" || status=$?
sed 's/^/# /' "$T/big.err" | grep -i "space\|error\|fail" | head -5
check "the run fails" test "$status" -ne 0
check "the refusal names the path, the bytes needed and the bytes free" \
	grep -Eq "target $M/t: not enough free space: the plan needs 32(\.0)? ?MiB more \(2 file\(s\) of 16(\.0)? ?MiB.* and [0-9.]+ ?[KM]iB is free \(33554432 bytes needed, [0-9]+ free\)" \
	"$T/big.err"
check "no worker file is left behind" sh -c "! ls '$M/t' | grep -q ."
check "what was there is untouched" test "$(cat "$M/keep.txt")" = precious
used=$(df -k --output=used "$M" | tail -1 | tr -d ' ')
check "no space is held afterwards ($used KiB used)" test "$used" -lt 1024

# 2 x 6 MiB fits; again, with its 12 MiB laid out, needs nothing more (8 MiB free).
campaign fits 6MiB 2
"$IOCURVE" run "$T/fits.yaml" --out "$T/fits-results" > "$T/fits.out" 2> "$T/fits.err" ||
	{ cat "$T/fits.err"; fail "a plan that fits runs"; }
ok "a plan that fits runs"
check "its two files are laid out" test "$(ls "$M/t" | grep -c '\.dat$')" -eq 2
"$IOCURVE" run "$T/fits.yaml" --out "$T/fits-results2" > "$T/fits2.out" 2> "$T/fits2.err" ||
	{ cat "$T/fits2.err"; fail "the same plan runs again: files already there count as held"; }
ok "the same plan runs again: files already there count as held"
echo "# agent-space: all passed"
