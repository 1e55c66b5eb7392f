#!/bin/sh
# SPDX-License-Identifier: MIT
# The NFS tests one after the other: they share this host's one NFS port and rpcbind, so no
# two may run at once, while each may run beside the rest of the suite. Each is a script of
# its own (nfs.sh: data and its bytes; nfs_files.sh: file sets; nfs_faults.sh: a server
# stopped and restarted; nfs_knees.sh: knees); this runs them all, says which failed, and
# skips (77) when the first skips (no root, no ganesha or rpcbind).
d=$(dirname "$0")
failed=""
for t in nfs nfs_files nfs_faults nfs_knees; do
	echo "# --- $t.sh"
	rc=0
	sh "$d/$t.sh" || rc=$?
	if [ "$rc" -eq 77 ]; then
		echo "# $t.sh skipped: the NFS tests need root, nfs-ganesha (VFS) and rpcbind"
		exit 77
	fi
	[ "$rc" -eq 0 ] || failed="$failed $t.sh"
done
if [ -n "$failed" ]; then
	echo "not ok - failed:$failed"
	exit 1
fi
echo "ok - every NFS test passed"
