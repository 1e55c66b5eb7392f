/* SPDX-License-Identifier: MIT */
/*
 * A file set's operations as single NFSv3 calls on file handles, as a kernel client with its
 * names cached makes them: the set's leaf directories' handles looked up once when opened,
 * a file's handle kept from the LOOKUP or CREATE that gave it (and dropped by REMOVE and
 * RENAME). stat is GETATTR (LOOKUP when the name's handle is not known yet, which returns the
 * attributes too), access ACCESS, setattr SETATTR, open ACCESS, readdir READDIRPLUS until the
 * end of the directory, create CREATE (GUARDED), unlink REMOVE, mkdir MKDIR, rmdir RMDIR,
 * rename RENAME, read-file and write-file READ or WRITE (UNSTABLE) of the whole file; a name
 * whose handle is not known costs one LOOKUP first.
 */
#ifndef IOCURVE_NFS3OPS_H
#define IOCURVE_NFS3OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "error.h"
#include "fset.h"

struct nfs_context;
struct nfs3ops;

/* One operation in flight: done(op, res) when its last reply came (res: bytes, 0 or -errno). */
struct nfs3_op {
	void (*done)(struct nfs3_op *op, int res);
	struct nfs3ops *o;
	struct nfs_context *nfs;
	unsigned stream;
	uint32_t leaf;
	enum fileop kind;
	uint32_t len, moved; /* a whole file's bytes, and those moved so far */
	uint16_t slot;
	void *buf;
	int stage;
	bool retried;    /* a stale handle looked up again once */
	uint64_t cookie; /* readdir: where the next call starts */
	char cookieverf[8];
	char name[32], name2[32];
};

/*
 * The handles of every leaf directory of each stream's set (sets[i] laid out in roots[i],
 * within the export nfs is mounted on), looked up now. NULL with err naming what failed.
 */
struct nfs3ops *nfs3ops_new(struct nfs_context *nfs, const char *url, const char *const *roots,
                            struct fset *const *sets, unsigned n, struct error *err);
void nfs3ops_free(struct nfs3ops *o);
/*
 * Start operation kind on path (relative to stream's set, as fset_pick gives it; rename's
 * new name in path2) on connection nfs; 0, -ENOENT for a path that names nothing of the
 * set, or -EIO when the call could not be queued.
 */
int nfs3ops_start(struct nfs3ops *o, struct nfs3_op *op, struct nfs_context *nfs, unsigned stream,
                  enum fileop kind, const char *path, const char *path2);

#endif
