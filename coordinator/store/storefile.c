/* SPDX-License-Identifier: MIT */
/* Files of a results directory written whole: aside, then renamed over the old one. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storefile.h"

/*
 * Why the file being written cannot hold what it was given (NULL: nothing
 * went wrong). jansson returns NULL for a value JSON cannot hold (a string not
 * UTF-8, a real that is not finite) as well as when out of memory: the file
 * being written fails with this (storefile_write), the process goes on.
 * The first fault a writer reports is the one said.
 */
static _Thread_local const char *storefile_fault_why;

void storefile_fault(const char *why)
{
	if (storefile_fault_why == NULL)
		storefile_fault_why = why;
}

int storefile_write(const char *dir, const char *name, storefile_writer fn, const void *arg,
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
	storefile_fault_why = NULL;
	fn(f, arg);
	if (storefile_fault_why != NULL) {
		error_set(err, "%s/%s: cannot write: %s", dir, name, storefile_fault_why);
		storefile_fault_why = NULL;
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
