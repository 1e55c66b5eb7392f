/* SPDX-License-Identifier: MIT */
/* Small file-system helpers both programs use. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
