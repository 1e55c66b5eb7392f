/* SPDX-License-Identifier: MIT */
/* A stream's file set laid out: its directories and files made, what an earlier run left put back.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fset.h"
#include "fsutil.h"
#include "xalloc.h"

#define FSET_CHUNK (1u << 20)

struct fset_lay {
	struct fset *fs;
	const char *path;
	unsigned char *data; /* FSET_CHUNK bytes of the files' content */
	uint64_t *progress;
	uint64_t written, reused;
	uint64_t changed; /* names removed or renamed back: metadata to sync too */
	struct error *err;
};

/* The names in dirfd, read whole before anything in it changes. */
static char **fset_names(int dirfd, size_t *n)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	char **names = NULL;
	size_t cap = 0;
	struct dirent *de;

	*n = 0;
	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			names = xreallocarray(names, cap, sizeof(*names));
		}
		names[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	return names;
}

static void fset_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* A directory the layout made (d<k>, e<k>) removed with what it holds; depth bounds it. */
static void fset_remove_tree(int dirfd, const char *name, int depth)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	size_t n;
	char **names;

	if (fd < 0)
		return;
	names = fset_names(fd, &n);
	for (size_t i = 0; i < n; i++)
		if (unlinkat(fd, names[i], 0) < 0 && errno == EISDIR && depth > 0)
			fset_remove_tree(fd, names[i], depth - 1);
	fset_names_free(names, n);
	close(fd);
	unlinkat(dirfd, name, AT_REMOVEDIR);
}

static int fset_write(struct fset_lay *l, int dirfd, const char *name, uint32_t size)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	uint32_t done = 0;

	if (fd < 0) {
		error_set(l->err, "%s: creating a file of the set: %s", l->path, strerror(errno));
		return -1;
	}
	while (done < size) {
		uint32_t n = size - done < FSET_CHUNK ? size - done : FSET_CHUNK;
		ssize_t w = write(fd, l->data, n);

		if (w <= 0) {
			error_set(l->err, "%s: writing a file of the set: %s", l->path,
			          w < 0 ? strerror(errno) : "nothing written");
			close(fd);
			return -1;
		}
		done += (uint32_t)w;
	}
	close(fd);
	l->written += size;
	if (l->progress != NULL)
		*l->progress += size;
	return 0;
}

/* A leaf: f0.. at their sizes (renamed ones named back), e0, nothing a run added. */
static int fset_lay_leaf(struct fset_lay *l, int fd, uint32_t leaf)
{
	struct fset *fs = l->fs;
	uint32_t files = fs->spec.files;
	size_t n;
	char **names = fset_names(fd, &n);
	char name[32];

	for (size_t i = 0; i < n; i++) {
		long k;

		if ((k = fset_name_num(names[i], 'f', ".r")) >= 0 && k < files) {
			snprintf(name, sizeof(name), "f%ld", k);
			l->changed += renameat(fd, names[i], fd, name) == 0;
		} else if (fset_name_num(names[i], 'c', "") >= 0 ||
		           ((k = fset_name_num(names[i], 'f', "")) >= 0 && k >= files)) {
			l->changed += unlinkat(fd, names[i], 0) == 0;
		} else if ((k = fset_name_num(names[i], 'e', "")) > 0) {
			fset_remove_tree(fd, names[i], 1);
			l->changed++;
		}
	}
	fset_names_free(names, n);
	for (uint32_t i = 0; i < files; i++) {
		uint32_t size = fset_size_of(&fs->spec, fs->seed, leaf, i);
		struct stat st;

		snprintf(name, sizeof(name), "f%u", i);
		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
		    (uint64_t)st.st_size == size)
			l->reused++;
		else if (fset_write(l, fd, name, size) < 0)
			return -1;
		fset_add(&fs->files, leaf, i, 'f', size);
	}
	if (mkdirat(fd, "e0", 0755) < 0 && errno != EEXIST) {
		error_set(l->err, "%s: making a directory of the set: %s", l->path,
		          strerror(errno));
		return -1;
	}
	fset_add(&fs->dirs, leaf, 0, 'e', 0);
	return 0;
}

/* Level lv of the tree under fd: dirs directories d0.., extras of a wider set removed. */
static int fset_lay_level(struct fset_lay *l, int fd, uint32_t lv, uint32_t leaf)
{
	const struct mix_fileset *sp = &l->fs->spec;
	size_t n;
	char **names;
	char name[32];

	if (lv == sp->depth)
		return fset_lay_leaf(l, fd, leaf);
	names = fset_names(fd, &n);
	for (size_t i = 0; i < n; i++) {
		long k = fset_name_num(names[i], 'd', "");

		if (k >= (long)sp->dirs)
			fset_remove_tree(fd, names[i], MIX_FILESET_DEPTH_MAX + 1);
	}
	fset_names_free(names, n);
	for (uint32_t i = 0; i < sp->dirs; i++) {
		int sub;

		snprintf(name, sizeof(name), "d%u", i);
		if (mkdirat(fd, name, 0755) < 0 && errno != EEXIST) {
			error_set(l->err, "%s: making a directory of the set: %s", l->path,
			          strerror(errno));
			return -1;
		}
		sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			error_set(l->err, "%s: opening %s of the set: %s", l->path, name,
			          strerror(errno));
			return -1;
		}
		if (fset_lay_level(l, sub, lv + 1, leaf * sp->dirs + i) < 0) {
			close(sub);
			return -1;
		}
		close(sub);
	}
	return 0;
}

/* Write size bytes of the set's content into dirfd/name (made or truncated): 0 or -errno. */
static int fset_refill(int dirfd, const char *name, uint32_t size)
{
	static unsigned char chunk[1u << 16];
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	uint32_t done = 0;

	if (fd < 0)
		return -errno;
	if (chunk[0] == 0)
		for (size_t i = 0; i < sizeof(chunk); i++)
			chunk[i] = (unsigned char)(i * 131 + 7) | 1;
	while (done < size) {
		uint32_t n = size - done < sizeof(chunk) ? size - done : (uint32_t)sizeof(chunk);
		ssize_t w = write(fd, chunk, n);

		if (w <= 0) {
			int e = w < 0 ? errno : EIO;

			close(fd);
			return -e;
		}
		done += (uint32_t)w;
	}
	close(fd);
	return 0;
}

/* One name put back on the local set's directory (fset.put_back). */
static int fset_local_put_back(struct fset *fs, const struct fset_fix *fx)
{
	int dfd = fs_open_nofollow(fs->fd, fx->leaf[0] ? fx->leaf : ".",
	                           O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	int rc = 0;

	if (dfd < 0)
		return -1;
	if (!fx->want)
		rc = (fx->dir ? unlinkat(dfd, fx->name, AT_REMOVEDIR)
		              : unlinkat(dfd, fx->renamed ? fx->alt : fx->name, 0)) < 0 &&
		             errno != ENOENT
		         ? -1
		         : 0;
	else if (fx->dir)
		rc = mkdirat(dfd, fx->name, 0755) < 0 && errno != EEXIST ? -1 : 0;
	else if (fx->present && fx->renamed)
		rc = renameat(dfd, fx->alt, dfd, fx->name) < 0 ? -1 : 0;
	/* a file made again, or not at its size (a create's is empty): written whole */
	if (rc == 0 && fx->refill)
		rc = fset_refill(dfd, fx->name, fx->size) < 0 ? -1 : 0;
	close(dfd);
	return rc;
}

int fset_layout(struct fset *fs, int dirfd, const char *name, const char *path,
                const struct mix_fileset *spec, uint64_t seed, uint64_t max_files,
                uint64_t *progress, uint64_t *written, struct error *err)
{
	struct fset_lay l = {.fs = fs, .path = path, .progress = progress, .err = err};
	char text[320], sizes[128];
	uint64_t r = seed | 1;

	fset_init(fs, spec, seed, max_files);
	if (mkdirat(dirfd, name, 0755) < 0 && errno != EEXIST) {
		error_set(err, "%s: making the file set's directory: %s", path, strerror(errno));
		return -1;
	}
	fs->fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fs->fd < 0) {
		error_set(err, "%s: opening the file set's directory: %s", path, strerror(errno));
		return -1;
	}
	l.data = xmalloc(FSET_CHUNK);
	for (size_t i = 0; i < FSET_CHUNK / sizeof(uint64_t); i++) {
		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		memcpy(l.data + i * sizeof(r), &r, sizeof(r));
	}
	if (fset_lay_level(&l, fs->fd, 0, 0) < 0) {
		free(l.data);
		fset_close(fs);
		return -1;
	}
	free(l.data);
	/* what the first step works on is on the storage, its changes not in writeback */
	if (l.written > 0 || l.changed > 0)
		syncfs(fs->fd);
	mix_sizes_text(&spec->sizes, sizes, sizeof(sizes));
	snprintf(text, sizeof(text), "dirs=%u depth=%u files=%u sizes=%s seed=%llu", spec->dirs,
	         spec->depth, spec->files, sizes, (unsigned long long)seed);
	if (fsetxattr(fs->fd, FSET_XATTR, text, strlen(text), 0) < 0 && errno != ENOTSUP) {
		/* the record is for people; the set is what it is without it */
	}
	*written = l.written;
	fs->put_back = fset_local_put_back;
	return 0;
}
