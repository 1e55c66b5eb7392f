/* SPDX-License-Identifier: MIT */
/*
 * A stream's file set on an NFS export: laid out and put back over the agent's own client
 * (libnfs's synchronous calls, one context kept with the set), as fset_layout.c does on a
 * local directory: the same names and sizes, what an earlier run left put back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-nfs.h>

#include "fset_nfs.h"
#include "nfsconn.h"
#include "xalloc.h"

#define FSET_NFS_CHUNK (1u << 20)
#define FSET_NFS_PATH  (1024 + FSET_PATH_MAX + 16)

struct fset_nfs {
	struct nfs_context *nfs;
	char root[1024]; /* the set's directory within the export */
	char url[1400];
	unsigned char *data; /* FSET_NFS_CHUNK bytes of the files' content */
};

struct fset_nfs_lay {
	struct fset *fs;
	struct fset_nfs *st;
	uint64_t *progress;
	uint64_t written, reused;
	struct error *err;
};

/* The names in path, read whole before anything in it changes; *dirs marks directories. */
static char **fset_nfs_names(struct nfs_context *nfs, const char *path, size_t *n, bool **dirs)
{
	struct nfsdir *d;
	struct nfsdirent *de;
	char **names = NULL;
	size_t cap = 0;

	*n = 0;
	*dirs = NULL;
	if (nfs_opendir(nfs, path, &d) < 0)
		return NULL;
	while ((de = nfs_readdir(nfs, d)) != NULL) {
		if (strcmp(de->name, ".") == 0 || strcmp(de->name, "..") == 0)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			names = xreallocarray(names, cap, sizeof(*names));
			*dirs = xreallocarray(*dirs, cap, sizeof(**dirs));
		}
		(*dirs)[*n] = de->type == NF3DIR || S_ISDIR(de->mode);
		names[(*n)++] = xstrdup(de->name);
	}
	nfs_closedir(nfs, d);
	return names;
}

static void fset_nfs_names_free(char **names, bool *dirs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(dirs);
}

/* A directory the layout made removed with what it holds; depth bounds it. */
static void fset_nfs_remove_tree(struct nfs_context *nfs, const char *path, int depth)
{
	char sub[FSET_NFS_PATH];
	size_t n;
	bool *dirs;
	char **names = fset_nfs_names(nfs, path, &n, &dirs);

	for (size_t i = 0; i < n; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", path, names[i]);
		if (!dirs[i])
			nfs_unlink(nfs, sub);
		else if (depth > 0)
			fset_nfs_remove_tree(nfs, sub, depth - 1);
	}
	fset_nfs_names_free(names, dirs, n);
	nfs_rmdir(nfs, path);
}

/* path made or truncated and written with size bytes of the set's content, committed. */
static int fset_nfs_write(struct fset_nfs *st, const char *path, uint32_t size)
{
	struct nfsfh *fh;
	uint32_t done = 0, chunk = (uint32_t)nfsconn_chunk(st->nfs, FSET_NFS_CHUNK);
	int rc = 0;

	if (nfsconn_open_write(st->nfs, path, &fh) < 0)
		return -1;
	if (nfs_ftruncate(st->nfs, fh, 0) < 0) {
		nfs_close(st->nfs, fh);
		return -1;
	}
	while (rc == 0 && done < size) {
		uint32_t n = size - done < chunk ? size - done : chunk;
		int w = nfs_pwrite(st->nfs, fh, done, n, st->data);

		if (w <= 0)
			rc = -1;
		else
			done += (uint32_t)w;
	}
	/* on the server's storage before the first step, as the local layout's syncfs */
	if (rc == 0 && size > 0 && nfs_fsync(st->nfs, fh) < 0)
		rc = -1;
	nfs_close(st->nfs, fh);
	return rc;
}

/* path made, or found a directory already: 0; else -1 with the mkdir's error kept. */
static int fset_nfs_mkdir(struct nfs_context *nfs, const char *path)
{
	int rc = nfs_mkdir(nfs, path);

	return rc == 0 || rc == -EEXIST ? 0 : -1;
}

static int fset_nfs_fail(struct fset_nfs_lay *l, const char *what, const char *path)
{
	error_set(l->err, "%s/%s: %s: %s", l->st->url, path, what, nfs_get_error(l->st->nfs));
	return -1;
}

/* A leaf: f0.. at their sizes (renamed ones named back), e0, nothing a run added. */
static int fset_nfs_leaf(struct fset_nfs_lay *l, const char *dir, uint32_t leaf)
{
	struct fset *fs = l->fs;
	struct nfs_context *nfs = l->st->nfs;
	char path[FSET_NFS_PATH], to[FSET_NFS_PATH];
	size_t n;
	bool *dirs;
	char **names = fset_nfs_names(nfs, dir, &n, &dirs);

	for (size_t i = 0; i < n; i++) {
		long k;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if ((k = fset_name_num(names[i], 'f', ".r")) >= 0 && k < fs->spec.files) {
			snprintf(to, sizeof(to), "%s/f%ld", dir, k);
			nfs_rename(nfs, path, to);
		} else if (fset_name_num(names[i], 'c', "") >= 0 ||
		           ((k = fset_name_num(names[i], 'f', "")) >= 0 && k >= fs->spec.files)) {
			nfs_unlink(nfs, path);
		} else if (fset_name_num(names[i], 'e', "") > 0) {
			fset_nfs_remove_tree(nfs, path, 1);
		}
	}
	fset_nfs_names_free(names, dirs, n);
	for (uint32_t i = 0; i < fs->spec.files; i++) {
		uint32_t size = fset_size_of(&fs->spec, fs->seed, leaf, i);
		struct nfs_stat_64 st;

		snprintf(path, sizeof(path), "%s/f%u", dir, i);
		if (nfs_stat64(nfs, path, &st) == 0 && S_ISREG(st.nfs_mode) &&
		    st.nfs_size == size) {
			l->reused++;
		} else if (fset_nfs_write(l->st, path, size) < 0) {
			return fset_nfs_fail(l, "writing a file of the set", path);
		} else {
			l->written += size;
			if (l->progress != NULL)
				*l->progress += size;
		}
		fset_add(&fs->files, leaf, i, 'f', size);
	}
	snprintf(path, sizeof(path), "%s/e0", dir);
	if (fset_nfs_mkdir(nfs, path) < 0)
		return fset_nfs_fail(l, "making a directory of the set", path);
	fset_add(&fs->dirs, leaf, 0, 'e', 0);
	return 0;
}

/* Level lv of the tree under dir: d0.., extras of a wider set removed. */
static int fset_nfs_level(struct fset_nfs_lay *l, const char *dir, uint32_t lv, uint32_t leaf)
{
	const struct mix_fileset *sp = &l->fs->spec;
	struct nfs_context *nfs = l->st->nfs;
	char path[FSET_NFS_PATH];
	size_t n;
	bool *dirs;
	char **names;

	if (lv == sp->depth)
		return fset_nfs_leaf(l, dir, leaf);
	names = fset_nfs_names(nfs, dir, &n, &dirs);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (fset_name_num(names[i], 'd', "") >= (long)sp->dirs)
			fset_nfs_remove_tree(nfs, path, MIX_FILESET_DEPTH_MAX + 1);
	}
	fset_nfs_names_free(names, dirs, n);
	for (uint32_t i = 0; i < sp->dirs; i++) {
		snprintf(path, sizeof(path), "%s/d%u", dir, i);
		if (fset_nfs_mkdir(nfs, path) < 0)
			return fset_nfs_fail(l, "making a directory of the set", path);
		if (fset_nfs_level(l, path, lv + 1, leaf * sp->dirs + i) < 0)
			return -1;
	}
	return 0;
}

/* One name put back on the export (fset.put_back). */
static int fset_nfs_put_back(struct fset *fs, const struct fset_fix *fx)
{
	struct fset_nfs *st = fs->store;
	char path[FSET_NFS_PATH], alt[FSET_NFS_PATH];
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%s%s", st->root, fx->leaf, fx->name);
	snprintf(alt, sizeof(alt), "%s/%s%s", st->root, fx->leaf, fx->alt);
	if (!fx->want)
		rc = fx->dir ? nfs_rmdir(st->nfs, path)
		             : nfs_unlink(st->nfs, fx->renamed ? alt : path);
	else if (fx->dir)
		rc = nfs_mkdir(st->nfs, path);
	else if (fx->present && fx->renamed)
		rc = nfs_rename(st->nfs, alt, path);
	if (rc == -ENOENT && !fx->want)
		rc = 0; /* gone already */
	if (rc == -EEXIST && fx->dir)
		rc = 0;
	if (rc == 0 && fx->refill)
		rc = fset_nfs_write(st, path, fx->size);
	return rc < 0 ? -1 : 0;
}

static void fset_nfs_close(void *store)
{
	struct fset_nfs *st = store;

	if (st == NULL)
		return;
	nfsconn_close(st->nfs);
	free(st->data);
	free(st);
}

int fset_nfs_layout(struct fset *fs, const struct engine_nfs_params *p, const char *root,
                    const struct mix_fileset *spec, uint64_t seed, uint64_t max_files,
                    uint64_t *progress, uint64_t *written, struct error *err)
{
	struct fset_nfs *st = xcalloc(1, sizeof(*st));
	struct fset_nfs_lay l = {.fs = fs, .st = st, .progress = progress, .err = err};
	uint64_t r = seed | 1;

	fset_init(fs, spec, seed, max_files);
	snprintf(st->root, sizeof(st->root), "%s", root);
	nfsconn_url(p, st->url, sizeof(st->url));
	st->nfs = nfsconn_open(p, err);
	if (st->nfs == NULL) {
		free(st);
		return -1;
	}
	fs->store = st;
	fs->store_close = fset_nfs_close;
	fs->put_back = fset_nfs_put_back;
	st->data = xmalloc(FSET_NFS_CHUNK);
	for (size_t i = 0; i < FSET_NFS_CHUNK / sizeof(uint64_t); i++) {
		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		memcpy(st->data + i * sizeof(r), &r, sizeof(r));
	}
	if (nfsconn_mkdirs(st->nfs, p, root, err) < 0 || fset_nfs_level(&l, root, 0, 0) < 0) {
		fset_close(fs);
		return -1;
	}
	*written = l.written;
	return 0;
}
