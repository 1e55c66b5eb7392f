/* SPDX-License-Identifier: MIT */
/* Small file-system helpers both programs use. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fsutil.h"

/* One directory; an existing one is fine, an existing file is not. */
static int fs_mkdir_one(const char *dir, mode_t mode)
{
	struct stat st;

	if (mkdir(dir, mode) == 0)
		return 0;
	if (errno != EEXIST)
		return -1;
	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	errno = ENOTDIR;
	return -1;
}

int fs_mkdir_p(const char *path, mode_t mode, struct error *err)
{
	char buf[PATH_MAX];

	if (path[0] == '\0' || strlen(path) >= sizeof(buf)) {
		error_set(err, "cannot create '%s': %s", path,
		          path[0] ? "path too long" : "empty path");
		return -1;
	}
	memcpy(buf, path, strlen(path) + 1);
	for (char *p = buf + 1;; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		if (p[-1] != '/') { /* not for "a//b" or a trailing slash */
			*p = '\0';
			if (fs_mkdir_one(buf, mode) < 0) {
				error_set(err, "cannot create %s: %s", buf, strerror(errno));
				return -1;
			}
			*p = c;
		}
		if (c == '\0')
			return 0;
	}
}

/* The fd of a directory we may write in: not a symlink, ours. */
static int fs_dir_fd(const char *path, struct error *err)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0) {
		/* O_DIRECTORY|O_NOFOLLOW on a symlink fails with ENOTDIR (ELOOP elsewhere). */
		bool link = (errno == ELOOP || errno == ENOTDIR) && lstat(path, &st) == 0 &&
		            S_ISLNK(st.st_mode);

		error_set(err, "%s: %s", path,
		          link ? "is a symbolic link: refusing to write through it"
		               : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid()) {
		error_set(err, "%s belongs to uid %u, not to us (uid %u): refusing to write in it",
		          path, (unsigned)st.st_uid, (unsigned)geteuid());
		close(fd);
		return -1;
	}
	return fd;
}

int fs_mkdir_new(const char *path, mode_t mode, struct error *err)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);
	char *slash;

	if (len == 0 || len >= sizeof(buf)) {
		error_set(err, "cannot create '%s': %s", path,
		          len ? "path too long" : "empty path");
		return -1;
	}
	memcpy(buf, path, len + 1);
	while (len > 1 && buf[len - 1] == '/')
		buf[--len] = '\0';
	slash = strrchr(buf, '/');
	if (slash != NULL && slash != buf) {
		*slash = '\0';
		if (fs_mkdir_p(buf, mode, err) < 0)
			return -1;
		*slash = '/';
	}
	if (mkdir(buf, mode) < 0) {
		if (errno == EEXIST)
			error_set(err,
			          "%s already exists: refusing to write into a directory we did "
			          "not create",
			          path);
		else
			error_set(err, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	return fs_dir_fd(buf, err);
}

int fs_open_own_dir(const char *path, struct error *err)
{
	return fs_dir_fd(path, err);
}

int fs_open_nofollow(int dirfd, const char *path, int flags, mode_t mode)
{
	struct open_how how = {
	    .flags = (uint64_t)(flags | O_NOFOLLOW),
	    .mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
	    .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
	               (dirfd == AT_FDCWD ? 0 : RESOLVE_BENEATH),
	};
	long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

	if (fd >= 0 || errno != ENOSYS)
		return (int)fd;
	if (dirfd != AT_FDCWD && strchr(path, '/') != NULL) {
		errno = EXDEV;
		return -1;
	}
	return openat(dirfd, path, flags | O_NOFOLLOW, mode);
}
