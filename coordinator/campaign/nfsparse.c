/* SPDX-License-Identifier: MIT */
/* target: {nfs: {server, export, path, version, connections, uid, gid, timeout}}. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfsparse.h"
#include "text.h"
#include "xalloc.h"

static const char *const nfsparse_keys[] = {"server", "export", "path",    "version", "connections",
                                            "uid",    "gid",    "timeout", NULL};

/* A host name or an address: letters, digits, '.', '-', ':' (IPv6), no port or user. */
static bool nfsparse_host_ok(const char *s)
{
	if (s[0] == '\0' || strlen(s) > 253)
		return false;
	for (const char *p = s; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' || *p == ':'))
			return false;
	return true;
}

/* key's string as a plain path: absolute (export) or relative within it (path). */
static int nfsparse_path(struct yamlnode_doc *y, const yaml_node_t *map, const char *key,
                         const char *pre, bool absolute, const char **out)
{
	const yaml_node_t *n = yamlnode_lookup(y, map, key);
	char l[200], abs[4200];
	const char *why;

	snprintf(l, sizeof(l), "%s.nfs.%s", pre, key);
	*out = NULL;
	if (n == NULL && !absolute)
		return 0;
	if (n == NULL) {
		yamlnode_error(y, map, "%s.nfs: missing '%s' (the export's path, such as /srv/nfs)",
		               pre, key);
		return -1;
	}
	if (yamlnode_string(y, n, l, out) < 0)
		return -1;
	if (absolute != ((*out)[0] == '/')) {
		yamlnode_expected(y, n, l,
		                  absolute ? "an absolute path such as /srv/nfs"
		                           : "a path within the export such as iocurve/run1");
		return -1;
	}
	snprintf(abs, sizeof(abs), "%s%s", absolute ? "" : "/", *out);
	if ((why = text_path_unplain(abs)) != NULL ||
	    (strlen(abs) > 1 && abs[strlen(abs) - 1] == '/' && (why = "a trailing '/'"))) {
		yamlnode_error(y, n, "%s: the path has %s; give a plain path", l, why);
		return -1;
	}
	return 0;
}

int nfsparse_target(struct yamlnode_doc *y, const yaml_node_t *map, const char *pre,
                    struct campaign_nfs *nfs, char **url)
{
	const yaml_node_t *n;
	const char *server, *export, *path;
	char l[200];
	size_t len;

	snprintf(l, sizeof(l), "%s.nfs", pre);
	if (yamlnode_check_mapping(y, map, l, l, nfsparse_keys) < 0)
		return -1;
	snprintf(l, sizeof(l), "%s.nfs.server", pre);
	if (yamlnode_require(y, map, "server", l, (yaml_node_t **)&n) < 0 ||
	    yamlnode_string(y, n, l, &server) < 0)
		return -1;
	if (!nfsparse_host_ok(server)) {
		yamlnode_expected(y, n, l, "a host name or address such as nfs1 or 10.0.0.5");
		return -1;
	}
	if (nfsparse_path(y, map, "export", pre, true, &export) < 0 ||
	    nfsparse_path(y, map, "path", pre, false, &path) < 0)
		return -1;
	nfs->enabled = true;
	nfs->version = 3;
	nfs->connections = 1;
	nfs->uid = nfs->gid = CAMPAIGN_NFS_NOBODY;
	nfs->timeout_ns = 30ull * 1000000000ull;
	snprintf(l, sizeof(l), "%s.nfs.version", pre);
	if ((n = yamlnode_lookup(y, map, "version")) != NULL &&
	    yamlnode_uint(y, n, l, 3, 4, &nfs->version) < 0)
		return -1;
	snprintf(l, sizeof(l), "%s.nfs.connections", pre);
	if ((n = yamlnode_lookup(y, map, "connections")) != NULL &&
	    yamlnode_uint(y, n, l, 1, NFSPARSE_CONNECTIONS_MAX, &nfs->connections) < 0)
		return -1;
	snprintf(l, sizeof(l), "%s.nfs.uid", pre);
	if ((n = yamlnode_lookup(y, map, "uid")) != NULL &&
	    yamlnode_uint(y, n, l, 0, UINT32_MAX - 1, &nfs->uid) < 0)
		return -1;
	snprintf(l, sizeof(l), "%s.nfs.gid", pre);
	if ((n = yamlnode_lookup(y, map, "gid")) != NULL &&
	    yamlnode_uint(y, n, l, 0, UINT32_MAX - 1, &nfs->gid) < 0)
		return -1;
	snprintf(l, sizeof(l), "%s.nfs.timeout", pre);
	if ((n = yamlnode_lookup(y, map, "timeout")) != NULL) {
		if (yamlnode_duration(y, n, l, &nfs->timeout_ns) < 0)
			return -1;
		if (nfs->timeout_ns < 1000000000ull) {
			yamlnode_expected(y, n, l, "a duration of at least 1s");
			return -1;
		}
	}
	nfs->server = xstrdup(server);
	nfs->export = xstrdup(export);
	len = strlen(server) + strlen(export) + 16;
	nfs->export_url = xmalloc(len);
	snprintf(nfs->export_url, len, "nfs://%s%s", server, strcmp(export, "/") == 0 ? "" : export);
	len = strlen(server) + strlen(export) + (path ? strlen(path) : 0) + 16;
	*url = xmalloc(len);
	snprintf(*url, len, "nfs://%s%s%s%s", server, strcmp(export, "/") == 0 ? "" : export,
	         path ? "/" : "", path ? path : "");
	return 0;
}

void nfsparse_free(struct campaign_nfs *nfs)
{
	free(nfs->server);
	free(nfs->export);
	free(nfs->export_url);
}
