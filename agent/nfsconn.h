/* SPDX-License-Identifier: MIT */
/* A connection to an NFS export (libnfs): credentials, version, mounted, no client caches. */
#ifndef IOCURVE_NFSCONN_H
#define IOCURVE_NFSCONN_H

#include <stdint.h>

#include "engine.h"
#include "error.h"

struct nfs_context;
struct nfsfh;

/*
 * A context mounted on p's export with AUTH_SYS p->uid/p->gid, its caches of directories
 * and pages off (every call goes to the server); reconnects when the server drops it. Its
 * synchronous calls give up after p->timeout_ns. NULL with err naming the export.
 */
struct nfs_context *nfsconn_open(const struct engine_nfs_params *p, struct error *err);
void nfsconn_close(struct nfs_context *nfs);
/*
 * path opened for writing, made when missing (libnfs's NFSv4 refuses O_CREAT on a file
 * that exists: it creates EXCLUSIVE4); the caller truncates. 0 or -errno.
 */
int nfsconn_open_write(struct nfs_context *nfs, const char *path, struct nfsfh **fh);
/* The bytes one call writes at most: want, or less when the server takes less in one. */
uint64_t nfsconn_chunk(struct nfs_context *nfs, uint64_t want);
/* "nfs://SERVER/EXPORT" for messages. */
void nfsconn_url(const struct engine_nfs_params *p, char *buf, size_t len);
/*
 * mkdir -p of path (within the export, "a/b"), each part beneath p->allowed made when
 * missing (those at or above it must exist); 0, or -1 with err naming it.
 */
int nfsconn_mkdirs(struct nfs_context *nfs, const struct engine_nfs_params *p, const char *path,
                   struct error *err);

#endif
