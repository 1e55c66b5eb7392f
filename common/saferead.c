/* SPDX-License-Identifier: MIT */
/* Files read without being led anywhere (saferead.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "saferead.h"
#include "xalloc.h"

/* What st is, for "not a regular file (a FIFO)". */
static const char *saferead_kind(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a file";
}

int saferead_open(int dirfd, const char *dir, const char *name, unsigned flags, struct error *err)
{
	/*
	 * O_NONBLOCK: opening a FIFO for reading would wait for a writer. O_NOCTTY: a
	 * terminal planted here does not become ours. Both only for the open: the
	 * regular file it must be is then read as any other.
	 */
	int how = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, fd;
	const char *sep = dir != NULL ? "/" : "";
	struct stat st;
	int e;

	if (dirfd != AT_FDCWD) {
		fd = fs_open_nofollow(dirfd, name, how, 0);
	} else if (dir != NULL) {
		char *path = xasprintf("%s/%s", dir, name);

		fd = open(path, how);
		e = errno;
		free(path);
		errno = e;
	} else {
		fd = open(name, how);
	}
	if (dir == NULL)
		dir = "";
	if (fd < 0) {
		e = errno;
		if (e == ELOOP || e == EXDEV)
			error_set(err, "%s%s%s: is a symbolic link; refusing to read it", dir, sep,
			          name);
		else
			error_set(err, "%s%s%s: cannot read: %s", dir, sep, name, strerror(e));
		errno = e;
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		e = errno;
		error_set(err, "%s%s%s: cannot read: %s", dir, sep, name, strerror(e));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		error_set(err, "%s%s%s: not a regular file (%s); refusing to read it", dir, sep,
		          name, saferead_kind(st.st_mode));
		e = EINVAL;
		goto fail;
	}
	if ((flags & SAFEREAD_OWN) && st.st_uid != geteuid()) {
		error_set(err, "%s%s%s: belongs to uid %u, not to us (uid %u)", dir, sep, name,
		          (unsigned)st.st_uid, (unsigned)geteuid());
		e = EPERM;
		goto fail;
	}
	if (fcntl(fd, F_SETFL, O_RDONLY) < 0) {
		e = errno;
		error_set(err, "%s%s%s: cannot read: %s", dir, sep, name, strerror(e));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	errno = e;
	return -1;
}

FILE *saferead_fopen(int dirfd, const char *dir, const char *name, unsigned flags,
                     struct error *err)
{
	int fd = saferead_open(dirfd, dir, name, flags, err);
	FILE *f;
	int e;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "re");
	if (f == NULL) {
		e = errno;
		error_set(err, "%s%s%s: cannot read: %s", dir ? dir : "", dir ? "/" : "", name,
		          strerror(e));
		close(fd);
		errno = e;
	}
	return f;
}

char *saferead_all(int dirfd, const char *dir, const char *name, size_t max, unsigned flags,
                   size_t *len, struct error *err)
{
	int fd = saferead_open(dirfd, dir, name, flags, err);
	size_t have = 0, cap = 0;
	char *buf = NULL;
	int e;

	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t n;

		if (have == cap) {
			/* One byte past max tells a file of exactly max bytes from a longer one. */
			cap = cap == 0 ? 8192 : cap * 2;
			if (cap > max + 1)
				cap = max + 1;
			buf = xreallocarray(buf, cap + 1, 1);
		}
		n = read(fd, buf + have, cap - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			error_set(err, "%s%s%s: cannot read: %s", dir ? dir : "", dir ? "/" : "",
			          name, strerror(e));
			goto fail;
		}
		if (n == 0)
			break;
		have += (size_t)n;
		if (have > max) {
			error_set(err, "%s%s%s: longer than %zu bytes; refusing to read it",
			          dir ? dir : "", dir ? "/" : "", name, max);
			e = EFBIG;
			goto fail;
		}
	}
	close(fd);
	if (buf == NULL)
		buf = xmalloc(1);
	buf[have] = '\0';
	if (len != NULL)
		*len = have;
	return buf;
fail:
	free(buf);
	close(fd);
	errno = e;
	return NULL;
}

ssize_t saferead_line(FILE *f, char **buf, size_t *cap, size_t max)
{
	size_t n = 0;
	ssize_t rc;
	int c = 0;

	flockfile(f);
	while ((c = getc_unlocked(f)) != EOF) {
		if (n + 2 > *cap) {
			size_t want = *cap < 128 ? 128 : *cap * 2;

			*buf = xreallocarray(*buf, want, 1);
			*cap = want;
		}
		(*buf)[n++] = (char)c;
		if (c == '\n')
			break;
		if (n >= max) {
			/* max bytes and still no newline: the line with its newline is longer. */
			funlockfile(f);
			return SAFEREAD_TOO_LONG;
		}
	}
	rc = c == EOF && ferror_unlocked(f) ? -1 : (ssize_t)n;
	funlockfile(f);
	if (rc > 0)
		(*buf)[n] = '\0';
	if (rc < 0 && errno == 0)
		errno = EIO;
	return rc;
}
