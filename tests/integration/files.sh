#!/bin/sh
# SPDX-License-Identifier: MIT
# File workloads on real file systems: tmpfs, and ext4 on a loop device the test makes. A
# file set per worker (4^2 directories of 25 files, 70% of 4 KiB and 30% of 64 KiB), then
# a directory mix (mkdir, rmdir, access, open) and a build-like mix of eight kinds (stat,
# create, unlink, readdir, whole-file reads and writes, rename, chmod) at fixed rates.
# Known answers: every operation succeeds; each part's share of the operations within 2%
# of its share of the mix and the whole within 2% of the offered rate; after each step the
# sets are put back as laid out, and what that took away and made again (the agents' log)
# is exactly the creates less the unlinks, the mkdirs less the rmdirs the results count
# (creates outnumber unlinks 3 to 1, so the sets move); afterwards the sets hold the
# layout's files and directories, each file at its size; a second run does the same.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "# needs root (mounts tmpfs and a loop device): skipped"
	exit 77
fi
LOOP=""
mkdir -p "$T/tmpfs" "$T/ext4"
mount -t tmpfs -o size=256m tmpfs "$T/tmpfs"
trap 'umount "$T/tmpfs" 2>/dev/null; [ -n "$LOOP" ] && { umount "$T/ext4" 2>/dev/null; losetup -d "$LOOP"; }; cleanup' EXIT
if command -v losetup > /dev/null && command -v mkfs.ext4 > /dev/null; then
	truncate -s 256M "$T/ext4.img"
	mkfs.ext4 -q -F "$T/ext4.img"
	LOOP=$(losetup -f --show "$T/ext4.img" 2> /dev/null) || LOOP=""
	[ -n "$LOOP" ] && mount "$LOOP" "$T/ext4"
fi

campaign() { # campaign FS: the two workloads (files-campaign.yaml) on FS's mount
	sed -e "s|@NAME@|$1|" -e "s|@TARGET@|{path: $T/$1/sets, size: 1MiB}|" \
		"$(dirname "$0")/files-campaign.yaml" > "$T/$1.yaml"
}

judge() { # judge FS RESULTS
	python3 "$(dirname "$0")/filesjudge.py" "$T/$1/sets" "$2"
}

for fs in tmpfs ext4; do
	if [ "$fs" = ext4 ] && [ -z "$LOOP" ]; then
		echo "# no loop device or mkfs.ext4: ext4 skipped"
		continue
	fi
	campaign "$fs"
	"$IOCURVE" run "$T/$fs.yaml" --out "$T/$fs-1" > "$T/$fs-1.out" 2> "$T/$fs-1.err" ||
		{ cat "$T/$fs-1.out" "$T/$fs-1.err"; fail "the file campaign runs on $fs"; }
	judge "$fs" "$T/$fs-1" || fail "each kind's share, no errors and the files counted on $fs"
	ok "on $fs: each kind its share, no errors, each step's balance put back, the sets as laid out"
done
# Again on tmpfs, the sets found from the first run.
"$IOCURVE" run "$T/tmpfs.yaml" --out "$T/tmpfs-2" > "$T/tmpfs-2.out" 2> "$T/tmpfs-2.err" ||
	{ cat "$T/tmpfs-2.out" "$T/tmpfs-2.err"; fail "the file campaign runs again"; }
judge tmpfs "$T/tmpfs-2" || fail "a second run starts from the layout"
ok "a second run on the sets of the first: the same answers"
