/* SPDX-License-Identifier: MIT */
/* Files written so that nothing planted at their name is written through. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safefile.h"

/*
 * Why the file being written cannot hold what it was given (NULL: nothing
 * went wrong). jansson returns NULL for a value JSON cannot hold (a string not
 * UTF-8, a real that is not finite) as well as when out of memory: the file
 * being written fails with this (safefile_write), the process goes on.
 * The first fault a writer reports is the one said.
 */
static _Thread_local const char *safefile_fault_why;

void safefile_fault(const char *why)
{
	if (safefile_fault_why == NULL)
		safefile_fault_why = why;
}

int safefile_write(const char *dir, const char *name, safefile_writer fn, const void *arg,
                   struct error *err)
{
	int dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC), fd = -1;
	char tmp[256];
	struct stat st;
	FILE *f = NULL;
	int rc = -1;

	if (dirfd < 0) {
		error_set(err, "%s: cannot open: %s", dir, strerror(errno));
		return -1;
	}
	for (int tries = 0; fd < 0 && tries < 8; tries++) {
		uint64_t r = 0;

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = (uint64_t)getpid() << 32 ^ (uint64_t)tries;
		snprintf(tmp, sizeof(tmp), ".%.200s.%016" PRIx64 ".tmp", name, r);
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
		/* The file meant, then the temp file that could not be made. */
		error_set(err, "%s/%s: cannot write (its temp file %s): %s", dir, name, tmp,
		          strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	errno = 0;
	safefile_fault_why = NULL;
	fn(f, arg);
	if (safefile_fault_why != NULL) {
		error_set(err, "%s/%s: cannot write: %s", dir, name, safefile_fault_why);
		safefile_fault_why = NULL;
		fclose(f);
		goto out_unlink; /* the previous version stays */
	}
	/* A write that failed in fn (disk full) leaves the stream's error flag set. */
	if (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0) {
		error_set(err, "%s/%s: cannot write: %s", dir, name, strerror(errno ? errno : EIO));
		fclose(f);
		goto out_unlink; /* the previous version stays; no temp file is left */
	}
	fclose(f);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode)) {
		error_set(err, "%s/%s: refusing to replace %s", dir, name,
		          S_ISLNK(st.st_mode) ? "a symbolic link" : "something not a regular file");
		goto out_unlink;
	}
	if (renameat(dirfd, tmp, dirfd, name) < 0) {
		error_set(err, "%s/%s: cannot replace: %s", dir, name, strerror(errno));
		goto out_unlink;
	}
	rc = 0;
	goto out;
out_unlink:
	unlinkat(dirfd, tmp, 0);
out:
	close(dirfd);
	return rc;
}

/* Why st (of DIR/NAME, about to be written) is no file of ours to write; NULL when it is. */
static const char *safefile_not_ours(const struct stat *st)
{
	if (S_ISLNK(st->st_mode))
		return "is a symbolic link";
	if (!S_ISREG(st->st_mode))
		return "not a regular file";
	if (st->st_uid != geteuid())
		return "not owned by this user";
	if (st->st_nlink > 1)
		return "has another hard link";
	return NULL;
}

int safefile_append(int dirfd, const char *dir, const char *name, int flags, struct error *err)
{
	/* O_NONBLOCK: a FIFO planted here fails at once (ENXIO) instead of waiting for a reader. */
	int fd = openat(dirfd, name,
	                O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | flags,
	                0644);
	const char *sep = dir != NULL ? "/" : "";
	struct stat st;
	const char *why;

	if (dir == NULL)
		dir = "";
	if (fd < 0) {
		if (errno == ELOOP)
			error_set(err, "%s%s%s: is a symbolic link; refusing to write through it",
			          dir, sep, name);
		else if (errno == ENXIO)
			error_set(err,
			          "%s%s%s: not a regular file (a FIFO); refusing to write to it",
			          dir, sep, name);
		else
			error_set(err, "%s%s%s: cannot create: %s", dir, sep, name,
			          strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		error_set(err, "%s%s%s: cannot stat: %s", dir, sep, name, strerror(errno));
		close(fd);
		return -1;
	}
	if ((why = safefile_not_ours(&st)) != NULL) {
		error_set(err, "%s%s%s: %s; refusing to write to it", dir, sep, name, why);
		close(fd);
		return -1;
	}
	if (fcntl(fd, F_SETFL, O_APPEND) < 0) {
		error_set(err, "%s%s%s: cannot open: %s", dir, sep, name, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

FILE *safefile_create(const char *path, mode_t mode, struct error *err)
{
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, mode);
	FILE *f;

	if (fd < 0) {
		if (errno == EEXIST)
			error_set(err, "%s: already exists; refusing to overwrite it", path);
		else
			error_set(err, "%s: cannot create: %s", path, strerror(errno));
		return NULL;
	}
	if (fchmod(fd, mode) < 0 || (f = fdopen(fd, "w")) == NULL) {
		error_set(err, "%s: cannot create: %s", path, strerror(errno));
		close(fd);
		unlink(path);
		return NULL;
	}
	return f;
}
