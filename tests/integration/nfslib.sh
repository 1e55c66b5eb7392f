# SPDX-License-Identifier: MIT
# Starts and stops a real NFS server for the NFS tests: rpcbind (when none answers on
# 127.0.0.1) and nfs-ganesha with its VFS FSAL, exporting one directory on 127.0.0.1 with
# a private config, log and pid; stopped by pid. Sourced after lib.sh; skips (77) where
# they cannot run: not root, not installed, or another NFS server already on port 2049.
NFS_GANESHA_PID=""
NFS_RPCBIND_PID=""

nfs_skip() { echo "# $*: skipped"; exit 77; }

# nfs_server_start DIR: export DIR (made, owned by nobody) as itself on 127.0.0.1
nfs_server_start() {
	NFS_EXPORT=$1
	[ "$(id -u)" -eq 0 ] || nfs_skip "needs root (ganesha serves as root)"
	for c in ganesha.nfsd rpcbind rpcinfo; do
		command -v "$c" > /dev/null || nfs_skip "$c is not installed (tools/bootstrap --tests)"
	done
	[ -e /usr/lib/x86_64-linux-gnu/ganesha/libfsalvfs.so ] ||
		ls /usr/lib/*/ganesha/libfsalvfs.so > /dev/null 2>&1 ||
		nfs_skip "ganesha's VFS FSAL (nfs-ganesha-vfs) is not installed"
	if rpcinfo -p 127.0.0.1 2> /dev/null | grep -q " 100003 "; then
		nfs_skip "an NFS server is registered on 127.0.0.1 already"
	fi
	if ! rpcinfo -p 127.0.0.1 > /dev/null 2>&1; then
		rpcbind -f -w &
		NFS_RPCBIND_PID=$!
		nfs_until 10 rpcinfo -p 127.0.0.1 || nfs_skip "rpcbind did not start"
	fi
	mkdir -p "$NFS_EXPORT"
	chown 65534:65534 "$NFS_EXPORT"
	cat > "$T/ganesha.conf" <<CONF
NFS_CORE_PARAM {
	Protocols = 3, 4;
	Bind_addr = 127.0.0.1;
	Enable_NLM = false;
	Enable_RQUOTA = false;
}
NFSV4 { Graceless = true; }
EXPORT {
	Export_Id = 77;
	Path = $NFS_EXPORT;
	Pseudo = $NFS_EXPORT;
	Access_Type = RW;
	Squash = No_Root_Squash;
	SecType = sys;
	Protocols = 3, 4;
	Transports = TCP;
	FSAL { Name = VFS; }
}
LOG { Default_Log_Level = EVENT; }
CONF
	nfs_ganesha_up
}

# ganesha (again) on the same config: its pid in NFS_GANESHA_PID, serving within 20 s
nfs_ganesha_up() {
	ganesha.nfsd -F -f "$T/ganesha.conf" -L "$T/ganesha.log" -p "$T/ganesha.pid" &
	NFS_GANESHA_PID=$!
	PIDS="$PIDS $NFS_GANESHA_PID"
	nfs_until 20 nfs_serving ||
		{ tail -20 "$T/ganesha.log"; fail "ganesha did not start"; }
}

# nfs_until SECONDS COMMAND...: until COMMAND succeeds
nfs_until() {
	n=0
	s=$1
	shift
	while ! "$@" > /dev/null 2>&1; do
		n=$((n + 1))
		[ "$n" -gt $((s * 10)) ] && return 1
		sleep 0.1
	done
	return 0
}

nfs_serving() { rpcinfo -p 127.0.0.1 2> /dev/null | grep -q " 100005 "; }

# nfs_server_stop: ganesha and (when ours) rpcbind, by pid
nfs_server_stop() {
	if [ -n "$NFS_GANESHA_PID" ]; then
		kill "$NFS_GANESHA_PID" 2> /dev/null || true
		wait "$NFS_GANESHA_PID" 2> /dev/null || true
		NFS_GANESHA_PID=""
	fi
	# what a killed ganesha left registered must not make the next test skip
	for v in 3 4; do rpcinfo -d 100003 "$v" > /dev/null 2>&1 || true; done
	for v in 1 3; do rpcinfo -d 100005 "$v" > /dev/null 2>&1 || true; done
	if [ -n "$NFS_RPCBIND_PID" ]; then
		kill "$NFS_RPCBIND_PID" 2> /dev/null || true
		wait "$NFS_RPCBIND_PID" 2> /dev/null || true
		NFS_RPCBIND_PID=""
	fi
}
