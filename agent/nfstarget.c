/* SPDX-License-Identifier: MIT */
/* An NFS target: the export and path a plan names, allowed, and whose credentials. */
#include <stdio.h>
#include <string.h>

#include "nfslayout.h"
#include "nfstarget.h"

int nfstarget_check(const struct allow *a, bool allow_root, const Iocurve__NfsTarget *n,
                    const char *target_dir, struct engine_nfs_params *out, char *resolved,
                    size_t len, struct error *err)
{
	if (n == NULL || !allow_is_nfs(target_dir)) {
		error_set(err, "target %s: %s", target_dir,
		          n == NULL ? "an nfs:// target needs its server's settings (an older "
		                      "coordinator?)"
		                    : "an NFS target's path must be its nfs:// URL");
		return -1;
	}
	if (n->server == NULL || n->export == NULL || n->export[0] != '/' ||
	    strlen(n->server) >= sizeof(out->server) || strlen(n->export) >= sizeof(out->export)) {
		error_set(err, "target %s: the plan names no usable server and export", target_dir);
		return -1;
	}
	memset(out, 0, sizeof(*out));
	snprintf(out->server, sizeof(out->server), "%s", n->server);
	snprintf(out->export, sizeof(out->export), "%s", n->export);
	out->version = n->version == 4 ? 4 : 3;
	out->connections = n->connections ? n->connections : 1;
	out->uid = n->uid;
	out->gid = n->gid;
	out->timeout_ns = n->timeout_ns ? n->timeout_ns : 30ull * 1000000000ull;
	if (out->connections > ENGINE_NFS_CONN_MAX) {
		error_set(err, "target %s: %u connections per stream; at most %u", target_dir,
		          out->connections, ENGINE_NFS_CONN_MAX);
		return -1;
	}
	if (nfslayout_within(out, target_dir) == NULL) {
		error_set(err, "target %s is not within export %s of server %s", target_dir,
		          out->export, out->server);
		return -1;
	}
	if ((out->uid == 0 || out->gid == 0) && !allow_root) {
		error_set(err,
		          "target %s: the campaign asks for uid %u gid %u; root's credentials on "
		          "an NFS server need the agent flag --allow-nfs-root",
		          target_dir, out->uid, out->gid);
		return -1;
	}
	if (allow_check(a, target_dir, resolved, len, err) < 0)
		return -1;
	{
		const char *within = nfslayout_within(out, allow_nfs_cover(a, target_dir));

		snprintf(out->allowed, sizeof(out->allowed), "%s", within ? within : "");
	}
	return 0;
}
