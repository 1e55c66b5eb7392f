/* SPDX-License-Identifier: MIT */
/*
 * A worker stream's file set: laid out before the first step (dirs^depth leaf directories,
 * files f0.. in each, an empty directory e0 in each for rmdir to take) and, while a step
 * runs, which of its names exist, so that every operation names a file it can work on
 * and the set stays as the layout made it when creates and unlinks balance: a create
 * makes a name an unlink removed (or a new one), an unlink removes a name no other
 * operation is using, a rename toggles a file between f<i> and f<i>.r in its directory.
 * The paths it gives are relative to the set's directory (fset.fd).
 */
#ifndef IOCURVE_FSET_H
#define IOCURVE_FSET_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "fileop.h"
#include "mix.h"

/* A path within the set: depth levels of "d%u/" and a name. */
#define FSET_PATH_MAX 128
/* The layout's record of what it laid out, on the set's directory. */
#define FSET_XATTR "user.iocurve.fileset"

enum fset_state { FSET_MISSING = 0, FSET_PRESENT, FSET_BUSY };

struct fset_ent {
	uint32_t leaf;
	uint32_t id;
	uint32_t size;  /* bytes it holds */
	uint16_t users; /* shared operations in flight on it (stat, read-file...) */
	uint8_t state;  /* enum fset_state; BUSY: an exclusive operation is in flight */
	char name;      /* 'f' a file of the layout, 'c' a file a create added, 'e' a directory */
	bool renamed;   /* f<i>.r */
};

/* Names of one kind: files, or empty directories. */
struct fset_pool {
	struct fset_ent *e;
	uint32_t n, cap;
	uint32_t *live; /* present entries, in no order */
	uint32_t nlive;
	uint32_t *at;   /* per entry: its place in live, UINT32_MAX when not there */
	uint32_t *gone; /* entries removed, for a create to make again */
	uint32_t ngone;
	uint32_t next_id; /* a new name's number */
};

struct fset;

/* What putting one name back asks of the set's storage (fset_restore). */
struct fset_fix {
	const char *leaf; /* "d3/d0/": the directories down to it ("" at depth 0) */
	const char *name; /* as laid out: f3, e0 */
	const char *alt;  /* renamed: f3.r */
	bool want;        /* the layout has it */
	bool dir;
	bool present; /* there now (under alt when renamed) */
	bool renamed;
	bool refill; /* wanted, and missing or not at its size: written whole */
	uint32_t size;
};

struct fset {
	int fd; /* the set's directory (local); -1 on a sim or an NFS export */
	/*
	 * The storage's side of fset_restore for one name: 0, or -1 when it could not be put
	 * back (NULL: a sim's, names only). store is its state, store_close frees it.
	 */
	int (*put_back)(struct fset *fs, const struct fset_fix *fx);
	void *store;
	void (*store_close)(void *store);
	struct mix_fileset spec;
	uint32_t nleaves;
	uint64_t max_files; /* a create past it fails with EDQUOT (the agent's cap) */
	struct fset_pool files, dirs;
	/*
	 * Per leaf directory (allocated with the set): exclusive operations in flight
	 * in it, and listings of it. A stream lists no directory it is changing and changes
	 * none it is listing: a listing whose names go under it fails on some servers
	 * (NFS-Ganesha's READDIRPLUS: ENOENT for a directory that is there).
	 */
	uint16_t *leaf_changing, *leaf_listed;
	uint64_t rng;
	uint64_t seed; /* the layout's: each file's size */
};

/* What an operation was given: the entry it works on, to settle when it completes. */
struct fset_pick {
	struct fset_pool *pool; /* NULL: none was free (the operation fails with ENOENT) */
	uint32_t ent;
	uint32_t leaf; /* the directory listed, or the one the entry is in */
	bool excl;
	bool listing; /* a readdir of leaf */
};

/*
 * Lay out the set in dirfd/name (made when missing) and open it: every file of the layout
 * at its size, extras of an earlier run removed, renamed files named back. *progress (may
 * be NULL) counts bytes written. Returns 0 with fs ready, or -1 with err naming the path.
 */
int fset_layout(struct fset *fs, int dirfd, const char *name, const char *path,
                const struct mix_fileset *spec, uint64_t seed, uint64_t max_files,
                uint64_t *progress, uint64_t *written, struct error *err);
void fset_close(struct fset *fs);
/* An empty set of spec's shape (no names yet, no directory): what layout and virtual fill. */
void fset_init(struct fset *fs, const struct mix_fileset *spec, uint64_t seed, uint64_t max_files);
/* The set's names without a directory (a sim's): as fset_layout leaves them. */
void fset_virtual(struct fset *fs, const struct mix_fileset *spec, uint64_t seed,
                  uint64_t max_files);
/* A name the layout made, present. */
void fset_add(struct fset_pool *p, uint32_t leaf, uint32_t id, char name, uint32_t size);
/* The size of file f<id> of a leaf: fixed by its place and the layout's seed. */
uint32_t fset_size_of(const struct mix_fileset *spec, uint64_t seed, uint32_t leaf, uint32_t id);

/*
 * Pick what op works on and write its path (and rename's new one) into path and path2;
 * *len gets the bytes a whole-file operation moves. false: nothing to work on (the path
 * then names nothing, and the operation fails with ENOENT as it would).
 */
bool fset_pick(struct fset *fs, enum fileop op, struct fset_pick *pk, char *path, char *path2,
               uint32_t *len);
/* The operation on pk completed: res 0 (or bytes) or -errno. */
void fset_done(struct fset *fs, enum fileop op, const struct fset_pick *pk, int res);
/*
 * The set put back as laid out, between steps: files a create added removed, files an
 * unlink removed made again at their size, renamed ones named back, rewritten ones at
 * their size again, directories an mkdir added removed and e0 made again; what is still
 * in flight is left. So every step of a workload starts from the same set, whatever the
 * last one's creates and unlinks did. *made and *removed count the names; 0, or -1 when
 * some could not be put back (they stay as they were, and the next step sees them so).
 */
int fset_restore(struct fset *fs, uint64_t *made, uint64_t *removed);
/* "d3/d0/" for leaf 12 of 4^2: the directories down to it; its length. */
size_t fset_leaf_path(const struct fset *fs, uint32_t leaf, char *buf, size_t len);
/* A name of the layout's: "d12" (c 'd', suffix "") gives 12; -1 for a name it did not make. */
long fset_name_num(const char *name, char c, const char *suffix);
/* Files and empty directories the set holds now (its live names). */
uint64_t fset_count_files(const struct fset *fs);

#endif
