/* SPDX-License-Identifier: MIT */
/* A stream's file set: its names as they stand, and the operation each may take next. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fset.h"
#include "fsutil.h"
#include "xalloc.h"

/* Random choices within the set: xorshift64*, seeded per stream. */
static uint64_t fset_rand(struct fset *fs)
{
	fs->rng ^= fs->rng >> 12;
	fs->rng ^= fs->rng << 25;
	fs->rng ^= fs->rng >> 27;
	return fs->rng * 0x2545f4914f6cdd1dull;
}

static void fset_live_add(struct fset_pool *p, uint32_t i)
{
	p->at[i] = p->nlive;
	p->live[p->nlive++] = i;
	p->e[i].state = FSET_PRESENT;
}

static void fset_live_del(struct fset_pool *p, uint32_t i)
{
	uint32_t at = p->at[i], last = p->live[--p->nlive];

	p->live[at] = last;
	p->at[last] = at;
	p->at[i] = UINT32_MAX;
}

/* A new entry (grown as creates outrun unlinks). */
static uint32_t fset_pool_new(struct fset_pool *p, uint32_t leaf, uint32_t id, char name)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->e = xreallocarray(p->e, p->cap, sizeof(*p->e));
		p->live = xreallocarray(p->live, p->cap, sizeof(*p->live));
		p->at = xreallocarray(p->at, p->cap, sizeof(*p->at));
		p->gone = xreallocarray(p->gone, p->cap, sizeof(*p->gone));
	}
	p->e[p->n] = (struct fset_ent){.leaf = leaf, .id = id, .name = name};
	p->at[p->n] = UINT32_MAX;
	return p->n++;
}

void fset_add(struct fset_pool *p, uint32_t leaf, uint32_t id, char name, uint32_t size)
{
	uint32_t i = fset_pool_new(p, leaf, id, name);

	p->e[i].size = size;
	fset_live_add(p, i);
	if (name != 'f' && id >= p->next_id)
		p->next_id = id + 1;
}

static void fset_pool_free(struct fset_pool *p)
{
	free(p->e);
	free(p->live);
	free(p->at);
	free(p->gone);
	memset(p, 0, sizeof(*p));
}

void fset_close(struct fset *fs)
{
	if (fs->fd >= 0)
		close(fs->fd);
	fs->fd = -1;
	if (fs->store_close != NULL)
		fs->store_close(fs->store);
	fs->store = NULL;
	fs->store_close = NULL;
	fs->put_back = NULL;
	fset_pool_free(&fs->files);
	fset_pool_free(&fs->dirs);
	free(fs->leaf_changing);
	free(fs->leaf_listed);
	fs->leaf_changing = fs->leaf_listed = NULL;
}

/* "d3/d0/" for leaf 12 of 4^2: the directories down to it. */
size_t fset_leaf_path(const struct fset *fs, uint32_t leaf, char *buf, size_t len)
{
	uint32_t digit[MIX_FILESET_DEPTH_MAX];
	size_t off = 0;

	for (uint32_t l = fs->spec.depth; l-- > 0;) {
		digit[l] = leaf % fs->spec.dirs;
		leaf /= fs->spec.dirs;
	}
	for (uint32_t l = 0; l < fs->spec.depth && off < len; l++)
		off += (size_t)snprintf(buf + off, len - off, "d%u/", digit[l]);
	return off < len ? off : len - 1;
}

static void fset_ent_path(const struct fset *fs, const struct fset_ent *e, bool renamed, char *buf,
                          size_t len)
{
	size_t off = fset_leaf_path(fs, e->leaf, buf, len);

	snprintf(buf + off, len - off, "%c%u%s", e->name, e->id, renamed ? ".r" : "");
}

uint32_t fset_size_of(const struct mix_fileset *spec, uint64_t seed, uint32_t leaf, uint32_t id)
{
	/* a file's size is fixed by its place: a splitmix of (seed, leaf, id) into the shares */
	uint64_t z = seed + ((uint64_t)leaf << 32 | id) * 0x9e3779b97f4a7c15ull;
	uint32_t pick, sum = 0;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	pick = (uint32_t)((z ^ (z >> 31)) % 100);
	for (uint32_t i = 0; i < spec->sizes.n; i++) {
		sum += spec->sizes.s[i].pct;
		if (pick < sum)
			return spec->sizes.s[i].bytes;
	}
	return spec->sizes.s[0].bytes;
}

/* An exclusive operation may take entry i: nothing else uses it, nobody lists its directory. */
static bool fset_free(const struct fset *fs, const struct fset_pool *p, uint32_t i)
{
	return p->e[i].users == 0 && fs->leaf_listed[p->e[i].leaf] == 0;
}

/* A leaf at random that nothing lists (changing: nothing changes); UINT32_MAX when none. */
static uint32_t fset_quiet_leaf(struct fset *fs, const uint16_t *busy)
{
	uint32_t start = (uint32_t)(fset_rand(fs) % fs->nleaves);

	for (uint32_t k = 0; k < fs->nleaves; k++)
		if (busy[(start + k) % fs->nleaves] == 0)
			return (start + k) % fs->nleaves;
	return UINT32_MAX;
}

/* A present entry at random: for an exclusive operation one nothing else is using. */
static bool fset_take(struct fset *fs, struct fset_pool *p, bool excl, uint32_t *out)
{
	uint32_t start, i;

	if (p->nlive == 0)
		return false;
	for (int tries = 0; tries < 8; tries++) {
		i = p->live[fset_rand(fs) % p->nlive];
		if (!excl || fset_free(fs, p, i))
			goto got;
	}
	start = (uint32_t)(fset_rand(fs) % p->nlive);
	for (uint32_t k = 0; k < p->nlive; k++) {
		i = p->live[(start + k) % p->nlive];
		if (fset_free(fs, p, i))
			goto got;
	}
	return false;
got:
	if (excl) {
		fset_live_del(p, i);
		p->e[i].state = FSET_BUSY;
	} else {
		p->e[i].users++;
	}
	*out = i;
	return true;
}

/*
 * A name to make: one removed before, else a new one in a leaf at random; either in a
 * directory nothing lists.
 */
static bool fset_make(struct fset *fs, struct fset_pool *p, char name, uint32_t *out)
{
	uint32_t i = UINT32_MAX, leaf;

	if (p->ngone > 0) {
		uint32_t start = (uint32_t)(fset_rand(fs) % p->ngone);

		for (uint32_t k = 0; k < p->ngone && i == UINT32_MAX; k++) {
			uint32_t at = (start + k) % p->ngone;

			if (fs->leaf_listed[p->e[p->gone[at]].leaf] == 0) {
				i = p->gone[at];
				p->gone[at] = p->gone[--p->ngone];
			}
		}
	}
	if (i == UINT32_MAX) {
		if (name == 'c' && fset_count_files(fs) >= fs->max_files)
			return false;
		if ((leaf = fset_quiet_leaf(fs, fs->leaf_listed)) == UINT32_MAX)
			return false;
		i = fset_pool_new(p, leaf, p->next_id++, name);
	}
	p->e[i].state = FSET_BUSY;
	p->e[i].renamed = false;
	p->e[i].size = 0;
	*out = i;
	return true;
}

bool fset_pick(struct fset *fs, enum fileop op, struct fset_pick *pk, char *path, char *path2,
               uint32_t *len)
{
	struct fset_pool *p = op == FILEOP_MKDIR || op == FILEOP_RMDIR ? &fs->dirs : &fs->files;
	bool ok;

	*len = 0;
	path2[0] = '\0';
	pk->pool = p;
	pk->listing = false;
	pk->excl = op == FILEOP_UNLINK || op == FILEOP_RMDIR || op == FILEOP_RENAME ||
	           op == FILEOP_CREATE || op == FILEOP_MKDIR;
	if (op == FILEOP_READDIR) {
		/* a leaf directory the stream is not changing: the names an application lists */
		uint32_t leaf = fset_quiet_leaf(fs, fs->leaf_changing);
		size_t off;

		if (leaf == UINT32_MAX) /* every one changing: one at random, as before */
			leaf = (uint32_t)(fset_rand(fs) % fs->nleaves);
		off = fset_leaf_path(fs, leaf, path, FSET_PATH_MAX);
		if (off > 0)
			path[off - 1] = '\0';
		pk->pool = NULL;
		pk->listing = true;
		pk->leaf = leaf;
		fs->leaf_listed[leaf]++;
		return true;
	}
	if (op == FILEOP_CREATE || op == FILEOP_MKDIR)
		ok = fset_make(fs, p, op == FILEOP_CREATE ? 'c' : 'e', &pk->ent);
	else
		ok = fset_take(fs, p, pk->excl, &pk->ent);
	if (!ok) {
		/* nothing to work on: a name in no directory, so the kernel says so (ENOENT) */
		snprintf(path, FSET_PATH_MAX, "none/none");
		pk->pool = NULL;
		return false;
	}
	{
		struct fset_ent *e = &p->e[pk->ent];

		pk->leaf = e->leaf;
		if (pk->excl)
			fs->leaf_changing[e->leaf]++;
		/* a made name that was a layout file is made as it was (f<i>), else c<i>/e<i> */
		fset_ent_path(fs, e, e->renamed, path, FSET_PATH_MAX);
		if (op == FILEOP_RENAME)
			fset_ent_path(fs, e, !e->renamed, path2, FSET_PATH_MAX);
		if (op == FILEOP_READ_FILE)
			*len = e->size;
		else if (op == FILEOP_WRITE_FILE)
			*len = fset_size_of(&fs->spec, fs->seed, e->leaf, e->id);
	}
	return true;
}

void fset_done(struct fset *fs, enum fileop op, const struct fset_pick *pk, int res)
{
	struct fset_pool *p = pk->pool;
	struct fset_ent *e;

	if (pk->listing)
		fs->leaf_listed[pk->leaf]--;
	if (p == NULL)
		return;
	e = &p->e[pk->ent];
	if (pk->excl)
		fs->leaf_changing[pk->leaf]--;
	if (!pk->excl) {
		e->users--;
		if (op == FILEOP_WRITE_FILE && res > 0)
			e->size = (uint32_t)res;
		return;
	}
	switch (op) {
	case FILEOP_CREATE:
	case FILEOP_MKDIR:
		/* made, or already there: present either way */
		if (res >= 0 || res == -EEXIST)
			fset_live_add(p, pk->ent);
		else
			p->gone[p->ngone++] = pk->ent;
		break;
	case FILEOP_UNLINK:
	case FILEOP_RMDIR:
		if (res >= 0 || res == -ENOENT) {
			e->state = FSET_MISSING;
			p->gone[p->ngone++] = pk->ent;
		} else {
			fset_live_add(p, pk->ent);
		}
		break;
	case FILEOP_RENAME:
		if (res >= 0)
			e->renamed = !e->renamed;
		fset_live_add(p, pk->ent);
		break;
	default:
		fset_live_add(p, pk->ent);
		break;
	}
}

uint64_t fset_count_files(const struct fset *fs)
{
	return fs->files.nlive;
}

void fset_init(struct fset *fs, const struct mix_fileset *spec, uint64_t seed, uint64_t max_files)
{
	memset(fs, 0, sizeof(*fs));
	fs->fd = -1;
	fs->spec = *spec;
	fs->seed = seed;
	fs->rng = seed | 1;
	fs->max_files = max_files;
	fs->nleaves = (uint32_t)mix_fileset_leaves(spec);
	fs->leaf_changing = xcalloc(fs->nleaves, sizeof(*fs->leaf_changing));
	fs->leaf_listed = xcalloc(fs->nleaves, sizeof(*fs->leaf_listed));
}

void fset_virtual(struct fset *fs, const struct mix_fileset *spec, uint64_t seed,
                  uint64_t max_files)
{
	fset_init(fs, spec, seed, max_files);
	for (uint32_t leaf = 0; leaf < fs->nleaves; leaf++) {
		for (uint32_t i = 0; i < spec->files; i++)
			fset_add(&fs->files, leaf, i, 'f', fset_size_of(spec, seed, leaf, i));
		fset_add(&fs->dirs, leaf, 0, 'e', 0);
	}
}

/* One name put back as laid out: 1 when the disk changed, 0 when not, -1 when it failed. */
static int fset_put_back(struct fset *fs, struct fset_pool *p, uint32_t i, bool dir)
{
	struct fset_ent *e = &p->e[i];
	bool want = e->name == (dir ? 'e' : 'f') && (!dir || e->id == 0);
	uint32_t size = dir ? 0 : fset_size_of(&fs->spec, fs->seed, e->leaf, e->id);
	char leaf[FSET_PATH_MAX], name[32], alt[32];

	if (e->state == FSET_BUSY || e->users > 0)
		return 0; /* still in flight after the step's drain: left as it is */
	if (want && e->state == FSET_PRESENT && !e->renamed && e->size == size)
		return 0;
	if (!want && e->state != FSET_PRESENT)
		return 0;
	fset_leaf_path(fs, e->leaf, leaf, sizeof(leaf));
	snprintf(name, sizeof(name), "%c%u", e->name, e->id);
	snprintf(alt, sizeof(alt), "%c%u.r", e->name, e->id);
	if (fs->put_back != NULL) {
		struct fset_fix fx = {.leaf = leaf,
		                      .name = name,
		                      .alt = alt,
		                      .want = want,
		                      .dir = dir,
		                      .present = e->state == FSET_PRESENT,
		                      .renamed = e->renamed,
		                      .refill = want && !dir &&
		                                (e->state != FSET_PRESENT || e->size != size),
		                      .size = size};

		if (fs->put_back(fs, &fx) < 0)
			return -1;
	}
	if (want && e->state != FSET_PRESENT)
		fset_live_add(p, i);
	else if (!want) {
		fset_live_del(p, i);
		e->state = FSET_MISSING;
	}
	e->renamed = false;
	e->size = size;
	return 1;
}

int fset_restore(struct fset *fs, uint64_t *made, uint64_t *removed)
{
	struct fset_pool *pools[2] = {&fs->files, &fs->dirs};
	int failed = 0;

	*made = *removed = 0;
	for (int k = 0; k < 2; k++) {
		struct fset_pool *p = pools[k];

		for (uint32_t i = 0; i < p->n; i++) {
			bool was = p->e[i].state == FSET_PRESENT;
			int rc = fset_put_back(fs, p, i, k == 1);

			if (rc < 0)
				failed++;
			else if (rc > 0 && !was && p->e[i].state == FSET_PRESENT)
				(*made)++;
			else if (rc > 0 && was && p->e[i].state != FSET_PRESENT)
				(*removed)++;
		}
		/* what a create may make again: every name now missing */
		p->ngone = 0;
		for (uint32_t i = 0; i < p->n; i++)
			if (p->e[i].state == FSET_MISSING)
				p->gone[p->ngone++] = i;
	}
	return failed ? -1 : 0;
}

/* "d12" with n < limit: 12; else -1 (a name the layout did not make). */
long fset_name_num(const char *name, char c, const char *suffix)
{
	char *end;
	long v;

	if (name[0] != c || name[1] < '0' || name[1] > '9')
		return -1;
	v = strtol(name + 1, &end, 10);
	return strcmp(end, suffix) == 0 ? v : -1;
}
