/* SPDX-License-Identifier: MIT */
/* A connection to an NFS export: what the engine, the layout and file sets open alike. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <nfsc/libnfs.h>

#include "nfsconn.h"

void nfsconn_url(const struct engine_nfs_params *p, char *buf, size_t len)
{
	snprintf(buf, len, "nfs://%s%s", p->server, strcmp(p->export, "/") == 0 ? "" : p->export);
}

struct nfs_context *nfsconn_open(const struct engine_nfs_params *p, struct error *err)
{
	struct nfs_context *nfs = nfs_init_context();
	uint64_t ms = p->timeout_ns / 1000000ull;
	char url[1400];

	nfsconn_url(p, url, sizeof(url));
	if (nfs == NULL) {
		error_set(err, "%s: libnfs could not make a context", url);
		return NULL;
	}
	nfs_set_uid(nfs, (int)p->uid);
	nfs_set_gid(nfs, (int)p->gid);
	/* what a call names goes to the server every time: no cached listing or page */
	nfs_set_dircache(nfs, 0);
	nfs_set_pagecache(nfs, 0);
	nfs_set_readahead(nfs, 0);
	/* libnfs counts its timeout in whole seconds */
	nfs_set_timeout(nfs, (int)((ms + 999) / 1000 * 1000));
	if (nfs_set_version(nfs, p->version == 4 ? 4 : 3) < 0) {
		error_set(err, "%s: NFS version %u: %s", url, p->version, nfs_get_error(nfs));
		goto fail;
	}
	if (nfs_mount(nfs, p->server, p->export) < 0) {
		error_set(err, "%s: mounting the export (NFSv%u, uid %u gid %u): %s", url,
		          p->version, p->uid, p->gid, nfs_get_error(nfs));
		goto fail;
	}
	/* a server restarted or a connection dropped: connect again and send what was lost */
	nfs_set_autoreconnect(nfs, -1);
	return nfs;
fail:
	nfs_destroy_context(nfs);
	return NULL;
}

int nfsconn_open_write(struct nfs_context *nfs, const char *path, struct nfsfh **fh)
{
	int rc = nfs_open(nfs, path, O_RDWR, fh);

	if (rc == -ENOENT)
		rc = nfs_creat(nfs, path, 0644, fh);
	return rc;
}

uint64_t nfsconn_chunk(struct nfs_context *nfs, uint64_t want)
{
	uint64_t max = nfs_get_writemax(nfs);

	return max > 0 && max < want ? max : want;
}

void nfsconn_close(struct nfs_context *nfs)
{
	if (nfs != NULL)
		nfs_destroy_context(nfs);
}

int nfsconn_mkdirs(struct nfs_context *nfs, const struct engine_nfs_params *p, const char *path,
                   struct error *err)
{
	char part[1024], url[1400];
	size_t n = 0;
	int rc;

	if (strlen(path) + 2 >= sizeof(part)) {
		error_set(err, "%s: too long", path);
		return -1;
	}
	for (const char *s = path;; s++) {
		struct nfs_stat_64 st;

		if (*s != '/' && *s != '\0') {
			part[n++] = *s;
			continue;
		}
		part[n] = '\0';
		if (n > 0 && n <= strlen(p->allowed) && nfs_stat64(nfs, part, &st) < 0) {
			/* the agent's --allow names it: it is the server's to have, never made here
			 */
			nfsconn_url(p, url, sizeof(url));
			error_set(
			    err,
			    "%s/%s: missing on the server, and it is at or above the directory "
			    "the agent allows (--allow): make it there",
			    url, part);
			return -1;
		} else if (n > 0 && nfs_stat64(nfs, part, &st) < 0) {
			rc = nfs_mkdir(nfs, part);
			if (rc < 0 && rc != -EEXIST) {
				nfsconn_url(p, url, sizeof(url));
				error_set(err, "%s/%s: making the directory: %s", url, part,
				          nfs_get_error(nfs));
				return -1;
			}
		} else if (n > 0 && !S_ISDIR(st.nfs_mode)) {
			nfsconn_url(p, url, sizeof(url));
			error_set(err, "%s/%s is not a directory", url, part);
			return -1;
		}
		if (*s == '\0')
			return 0;
		part[n++] = '/';
	}
}
