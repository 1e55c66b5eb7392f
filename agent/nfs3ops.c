/* SPDX-License-Identifier: MIT */
/* A file set's operations as single NFSv3 calls on handles (nfs3ops.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-nfs.h>

#include "nfs3ops.h"
#include "xalloc.h"

#define NFS3OPS_FH_MAX 64 /* NFS3_FHSIZE */
#define NFS3OPS_NAME   24
/* readdir: a reply's bytes of names (dircount) and in all (maxcount), as Linux asks */
#define NFS3OPS_DIRCOUNT 4096
#define NFS3OPS_MAXCOUNT 32768

/* libnfs's handle of an open file (struct nfs_fh, private to libnfs 4.0: its two fields) */
struct nfs3ops_libnfs_fh {
	int len;
	char *val;
};

struct nfs3ops_fh {
	uint32_t len;
	char val[NFS3OPS_FH_MAX];
};

/* A name whose handle is known: the stream's set, its leaf, its name. */
struct nfs3ops_name {
	uint32_t stream, leaf;
	bool used;
	char name[NFS3OPS_NAME];
	struct nfs3ops_fh fh;
};

struct nfs3ops {
	unsigned n;
	struct fset **sets;
	struct nfs3ops_fh **leaf; /* [stream][leaf] */
	struct nfs3ops_name *tab; /* open addressing, linear probing */
	size_t cap, count;
};

static uint64_t nfs3ops_hash(uint32_t stream, uint32_t leaf, const char *name)
{
	uint64_t h = 1469598103934665603ull ^ ((uint64_t)stream << 32 | leaf);

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	return h ^ (h >> 29);
}

static struct nfs3ops_name *nfs3ops_find(struct nfs3ops *o, uint32_t stream, uint32_t leaf,
                                         const char *name)
{
	size_t i = nfs3ops_hash(stream, leaf, name) & (o->cap - 1);

	for (; o->tab[i].used; i = (i + 1) & (o->cap - 1))
		if (o->tab[i].stream == stream && o->tab[i].leaf == leaf &&
		    strcmp(o->tab[i].name, name) == 0)
			return &o->tab[i];
	return NULL;
}

static void nfs3ops_put(struct nfs3ops *o, uint32_t stream, uint32_t leaf, const char *name,
                        const char *fh, uint32_t len);

static void nfs3ops_grow(struct nfs3ops *o)
{
	struct nfs3ops_name *old = o->tab;
	size_t cap = o->cap;

	o->cap = cap ? cap * 2 : 1024;
	o->tab = xcalloc(o->cap, sizeof(*o->tab));
	o->count = 0;
	for (size_t i = 0; i < cap; i++)
		if (old[i].used)
			nfs3ops_put(o, old[i].stream, old[i].leaf, old[i].name, old[i].fh.val,
			            old[i].fh.len);
	free(old);
}

static void nfs3ops_put(struct nfs3ops *o, uint32_t stream, uint32_t leaf, const char *name,
                        const char *fh, uint32_t len)
{
	struct nfs3ops_name *e;
	size_t i;

	if (len == 0 || len > NFS3OPS_FH_MAX || strlen(name) >= NFS3OPS_NAME)
		return;
	if ((e = nfs3ops_find(o, stream, leaf, name)) == NULL) {
		if ((o->count + 1) * 4 > o->cap * 3)
			nfs3ops_grow(o);
		i = nfs3ops_hash(stream, leaf, name) & (o->cap - 1);
		while (o->tab[i].used)
			i = (i + 1) & (o->cap - 1);
		e = &o->tab[i];
		e->used = true;
		e->stream = stream;
		e->leaf = leaf;
		snprintf(e->name, sizeof(e->name), "%s", name);
		o->count++;
	}
	e->fh.len = len;
	memcpy(e->fh.val, fh, len);
}

/* A name's handle forgotten; the probe runs after it shifted back (no tombstones). */
static void nfs3ops_drop(struct nfs3ops *o, uint32_t stream, uint32_t leaf, const char *name)
{
	struct nfs3ops_name *e = nfs3ops_find(o, stream, leaf, name);
	size_t i, j;

	if (e == NULL)
		return;
	i = (size_t)(e - o->tab);
	o->tab[i].used = false;
	o->count--;
	for (j = (i + 1) & (o->cap - 1); o->tab[j].used; j = (j + 1) & (o->cap - 1)) {
		size_t home =
		    nfs3ops_hash(o->tab[j].stream, o->tab[j].leaf, o->tab[j].name) & (o->cap - 1);

		/* moved back into the hole when its home is not between the hole and it */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			o->tab[i] = o->tab[j];
			o->tab[j].used = false;
			i = j;
		}
	}
}

/* "d3/d0/f12" of a set of depth 2: leaf 3 * dirs + 0, name "f12"; -1 when not of the set. */
static int nfs3ops_parse(const struct fset *fs, const char *path, uint32_t *leaf, char *name,
                         size_t len)
{
	const char *p = path;

	*leaf = 0;
	for (uint32_t l = 0; l < fs->spec.depth; l++) {
		char *end;
		unsigned long d;

		if (p[0] != 'd' || p[1] < '0' || p[1] > '9')
			return -1;
		d = strtoul(p + 1, &end, 10);
		if (*end != '/' || d >= fs->spec.dirs)
			return -1;
		*leaf = *leaf * fs->spec.dirs + (uint32_t)d;
		p = end + 1;
	}
	if (strlen(p) >= len || strchr(p, '/') != NULL)
		return -1;
	snprintf(name, len, "%s", p);
	return 0;
}

/* A leaf directory's handle, from libnfs's open of it. */
static int nfs3ops_leaf(struct nfs_context *nfs, const char *path, struct nfs3ops_fh *out)
{
	struct nfsfh *fh;
	const struct nfs3ops_libnfs_fh *h;
	int rc = nfs_open(nfs, path, O_RDONLY, &fh);

	if (rc < 0)
		return rc;
	h = (const struct nfs3ops_libnfs_fh *)nfs_get_fh(fh);
	if (h == NULL || h->len <= 0 || h->len > NFS3OPS_FH_MAX)
		rc = -EPROTO;
	else {
		out->len = (uint32_t)h->len;
		memcpy(out->val, h->val, (size_t)h->len);
	}
	nfs_close(nfs, fh);
	return rc;
}

struct nfs3ops *nfs3ops_new(struct nfs_context *nfs, const char *url, const char *const *roots,
                            struct fset *const *sets, unsigned n, struct error *err)
{
	struct nfs3ops *o = xcalloc(1, sizeof(*o));
	char path[1024 + FSET_PATH_MAX + 2];

	o->n = n;
	o->sets = xcalloc(n, sizeof(*o->sets));
	o->leaf = xcalloc(n, sizeof(*o->leaf));
	nfs3ops_grow(o);
	for (unsigned i = 0; i < n; i++) {
		o->sets[i] = sets[i];
		o->leaf[i] = xcalloc(sets[i]->nleaves, sizeof(**o->leaf));
		for (uint32_t l = 0; l < sets[i]->nleaves; l++) {
			size_t off = (size_t)snprintf(path, sizeof(path), "%s/", roots[i]);
			int rc;

			fset_leaf_path(sets[i], l, path + off, sizeof(path) - off);
			if (path[strlen(path) - 1] == '/')
				path[strlen(path) - 1] = '\0';
			if ((rc = nfs3ops_leaf(nfs, path, &o->leaf[i][l])) < 0) {
				error_set(err, "%s/%s: looking up a directory of the set: %s", url,
				          path,
				          rc == -EPROTO ? "no usable handle" : nfs_get_error(nfs));
				nfs3ops_free(o);
				return NULL;
			}
		}
	}
	return o;
}

void nfs3ops_free(struct nfs3ops *o)
{
	if (o == NULL)
		return;
	for (unsigned i = 0; i < o->n; i++)
		free(o->leaf[i]);
	free(o->leaf);
	free(o->sets);
	free(o->tab);
	free(o);
}

static int nfs3ops_next(struct nfs3_op *op);

/* Whether kind works on the file's own handle (else on its directory's, with its name). */
static bool nfs3ops_on_file(enum fileop kind)
{
	return kind == FILEOP_STAT || kind == FILEOP_ACCESS || kind == FILEOP_OPEN ||
	       kind == FILEOP_SETATTR || kind == FILEOP_READ_FILE || kind == FILEOP_WRITE_FILE;
}

/* The reply's result: -errno of an RPC that failed or of its NFS status, else 0. */
static int nfs3ops_status(int status, void *data)
{
	if (status == RPC_STATUS_CANCEL)
		return -EINTR;
	if (status != RPC_STATUS_SUCCESS || data == NULL)
		return status == RPC_STATUS_TIMEOUT ? -ETIMEDOUT : -EIO;
	return *(nfsstat3 *)data == NFS3_OK ? 0 : nfsstat3_to_errno(*(nfsstat3 *)data);
}

static void nfs3ops_finish(struct nfs3_op *op, int res)
{
	op->done(op, res);
}

/* Stages: 0 the name's handle (LOOKUP when not known), 1 the operation, 2.. its next calls. */
static void nfs3ops_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	struct nfs3_op *op = priv;
	struct nfs3ops *o = op->o;
	int rc = nfs3ops_status(status, data);

	(void)rpc;
	if (rc == -ESTALE && op->stage > 0 && nfs3ops_on_file(op->kind) && !op->retried) {
		/* the file was made again between steps: its old handle is gone */
		nfs3ops_drop(o, op->stream, op->leaf, op->name);
		op->stage = 0;
		op->retried = true;
		if (nfs3ops_next(op) < 0)
			nfs3ops_finish(op, -EIO);
		return;
	}
	if (rc < 0) {
		if (rc == -ENOENT)
			nfs3ops_drop(o, op->stream, op->leaf, op->name);
		nfs3ops_finish(op, rc);
		return;
	}
	switch (op->stage == 0 ? FILEOP_NONE : op->kind) {
	case FILEOP_NONE: { /* a LOOKUP: the handle kept; a stat is done with it */
		LOOKUP3resok *ok = &((LOOKUP3res *)data)->LOOKUP3res_u.resok;

		nfs3ops_put(o, op->stream, op->leaf, op->name, ok->object.data.data_val,
		            ok->object.data.data_len);
		if (op->kind == FILEOP_STAT) {
			nfs3ops_finish(op, 0);
			return;
		}
		break;
	}
	case FILEOP_CREATE: {
		CREATE3resok *ok = &((CREATE3res *)data)->CREATE3res_u.resok;

		if (ok->obj.handle_follows)
			nfs3ops_put(o, op->stream, op->leaf, op->name,
			            ok->obj.post_op_fh3_u.handle.data.data_val,
			            ok->obj.post_op_fh3_u.handle.data.data_len);
		nfs3ops_finish(op, 0);
		return;
	}
	case FILEOP_UNLINK:
		nfs3ops_drop(o, op->stream, op->leaf, op->name);
		nfs3ops_finish(op, 0);
		return;
	case FILEOP_RENAME: {
		struct nfs3ops_name *e = nfs3ops_find(o, op->stream, op->leaf, op->name);

		if (e != NULL) {
			struct nfs3ops_fh fh = e->fh;

			nfs3ops_drop(o, op->stream, op->leaf, op->name);
			nfs3ops_put(o, op->stream, op->leaf, op->name2, fh.val, fh.len);
		}
		nfs3ops_finish(op, 0);
		return;
	}
	case FILEOP_READ_FILE: {
		READ3resok *ok = &((READ3res *)data)->READ3res_u.resok;
		uint32_t n = ok->count <= op->len - op->moved ? ok->count : op->len - op->moved;

		memcpy((char *)op->buf + op->moved, ok->data.data_val, n);
		op->moved += n;
		if (ok->eof || n == 0 || op->moved == op->len) {
			nfs3ops_finish(op, (int)op->moved);
			return;
		}
		break;
	}
	case FILEOP_WRITE_FILE: {
		WRITE3resok *ok = &((WRITE3res *)data)->WRITE3res_u.resok;

		op->moved += ok->count;
		if (ok->count == 0 || op->moved >= op->len) {
			nfs3ops_finish(op, (int)op->moved);
			return;
		}
		break;
	}
	case FILEOP_READDIR: {
		READDIRPLUS3resok *ok = &((READDIRPLUS3res *)data)->READDIRPLUS3res_u.resok;
		const entryplus3 *en = ok->reply.entries;

		for (; en != NULL; en = en->nextentry)
			op->cookie = en->cookie;
		memcpy(op->cookieverf, ok->cookieverf, sizeof(op->cookieverf));
		if (ok->reply.eof || ok->reply.entries == NULL) {
			nfs3ops_finish(op, 0);
			return;
		}
		break;
	}
	default: /* stat (GETATTR), access, open, setattr, mkdir, rmdir: one call */
		nfs3ops_finish(op, 0);
		return;
	}
	op->stage++;
	if (nfs3ops_next(op) < 0)
		nfs3ops_finish(op, -EIO);
}

/* The operation's next call, by its stage. */
static int nfs3ops_next(struct nfs3_op *op)
{
	struct nfs3ops *o = op->o;
	struct rpc_context *rpc = nfs_get_rpc_context(op->nfs);
	struct nfs3ops_fh *dir = &o->leaf[op->stream][op->leaf];
	nfs_fh3 dfh = {{dir->len, dir->val}}, ffh = {{0, NULL}};
	struct nfs3ops_name *e = NULL;

	if (nfs3ops_on_file(op->kind)) {
		e = nfs3ops_find(o, op->stream, op->leaf, op->name);
		if (e == NULL && op->stage > 0)
			return -1; /* looked up, yet not kept: a name too long to keep */
		if (e == NULL) {
			LOOKUP3args a = {{dfh, op->name}};

			return rpc_nfs3_lookup_async(rpc, nfs3ops_cb, &a, op);
		}
		ffh.data.data_len = e->fh.len;
		ffh.data.data_val = e->fh.val;
		if (op->stage == 0)
			op->stage = 1;
	} else if (op->stage == 0) {
		op->stage = 1;
	}
	switch (op->kind) {
	case FILEOP_STAT: {
		GETATTR3args a = {ffh};

		return rpc_nfs3_getattr_async(rpc, nfs3ops_cb, &a, op);
	}
	case FILEOP_ACCESS:
	case FILEOP_OPEN: {
		ACCESS3args a = {ffh, ACCESS3_READ};

		return rpc_nfs3_access_async(rpc, nfs3ops_cb, &a, op);
	}
	case FILEOP_SETATTR: {
		SETATTR3args a;

		memset(&a, 0, sizeof(a));
		a.object = ffh;
		a.new_attributes.mode.set_it = 1;
		/* a change every time: the mode goes between 0644 and 0640 by the slot */
		a.new_attributes.mode.set_mode3_u.mode = op->slot & 1 ? 0640 : 0644;
		return rpc_nfs3_setattr_async(rpc, nfs3ops_cb, &a, op);
	}
	case FILEOP_READ_FILE: {
		READ3args a = {ffh, op->moved, op->len - op->moved};

		return rpc_nfs3_read_async(rpc, nfs3ops_cb, &a, op);
	}
	case FILEOP_WRITE_FILE: {
		WRITE3args a;

		memset(&a, 0, sizeof(a));
		a.file = ffh;
		a.offset = op->moved;
		a.count = op->len - op->moved;
		a.stable = UNSTABLE;
		a.data.data_len = op->len - op->moved;
		a.data.data_val = (char *)op->buf + op->moved;
		return rpc_nfs3_write_async(rpc, nfs3ops_cb, &a, op);
	}
	case FILEOP_CREATE: {
		CREATE3args a;

		memset(&a, 0, sizeof(a));
		a.where.dir = dfh;
		a.where.name = op->name;
		a.how.mode = GUARDED;
		a.how.createhow3_u.obj_attributes.mode.set_it = 1;
		a.how.createhow3_u.obj_attributes.mode.set_mode3_u.mode = 0644;
		return rpc_nfs3_create_async(rpc, nfs3ops_cb, &a, op);
	}
	case FILEOP_UNLINK: {
		REMOVE3args a = {{dfh, op->name}};

		return rpc_nfs3_remove_async(rpc, nfs3ops_cb, &a, op);
	}
	case FILEOP_RENAME: {
		RENAME3args a = {{dfh, op->name}, {dfh, op->name2}};

		return rpc_nfs3_rename_async(rpc, nfs3ops_cb, &a, op);
	}
	case FILEOP_MKDIR: {
		MKDIR3args a;

		memset(&a, 0, sizeof(a));
		a.where.dir = dfh;
		a.where.name = op->name;
		a.attributes.mode.set_it = 1;
		a.attributes.mode.set_mode3_u.mode = 0755;
		return rpc_nfs3_mkdir_async(rpc, nfs3ops_cb, &a, op);
	}
	case FILEOP_RMDIR: {
		RMDIR3args a = {{dfh, op->name}};

		return rpc_nfs3_rmdir_async(rpc, nfs3ops_cb, &a, op);
	}
	case FILEOP_READDIR: {
		READDIRPLUS3args a;

		memset(&a, 0, sizeof(a));
		a.dir = dfh;
		a.cookie = op->cookie;
		memcpy(a.cookieverf, op->cookieverf, sizeof(a.cookieverf));
		a.dircount = NFS3OPS_DIRCOUNT;
		a.maxcount = NFS3OPS_MAXCOUNT;
		return rpc_nfs3_readdirplus_async(rpc, nfs3ops_cb, &a, op);
	}
	default:
		return -1;
	}
}

int nfs3ops_start(struct nfs3ops *o, struct nfs3_op *op, struct nfs_context *nfs, unsigned stream,
                  enum fileop kind, const char *path, const char *path2)
{
	char dir[FSET_PATH_MAX + 2];
	uint32_t leaf2;

	/* a readdir names its directory, "d3/d0": its leaf, no name in it */
	if (kind == FILEOP_READDIR && path != NULL && path[0] != '\0' &&
	    path[strlen(path) - 1] != '/') {
		snprintf(dir, sizeof(dir), "%s/", path);
		path = dir;
	}
	/* a name not of the set (fset_pick found nothing to work on): as a call would find it */
	if (stream >= o->n || nfs3ops_parse(o->sets[stream], path ? path : "", &op->leaf, op->name,
	                                    sizeof(op->name)) < 0)
		return -ENOENT;
	op->name2[0] = '\0';
	if (kind == FILEOP_RENAME && (nfs3ops_parse(o->sets[stream], path2 ? path2 : "", &leaf2,
	                                            op->name2, sizeof(op->name2)) < 0 ||
	                              leaf2 != op->leaf))
		return -ENOENT;
	op->o = o;
	op->nfs = nfs;
	op->stream = stream;
	op->kind = kind;
	op->stage = 0;
	op->retried = false;
	op->moved = 0;
	op->cookie = 0;
	memset(op->cookieverf, 0, sizeof(op->cookieverf));
	return nfs3ops_next(op) < 0 ? -EIO : 0;
}
