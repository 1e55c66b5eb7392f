/* SPDX-License-Identifier: MIT */
/* Small file-system helpers both programs use. */
#ifndef IOCURVE_FSUTIL_H
#define IOCURVE_FSUTIL_H

#include <sys/types.h>

#include "error.h"

/*
 * mkdir -p: create path and any missing parents with mode (an existing directory is
 * fine). Returns 0, or -1 with err naming the part that could not be made and why:
 * "cannot create a/b: Not a directory".
 */
int fs_mkdir_p(const char *path, mode_t mode, struct error *err);

/*
 * openat(dirfd, path, flags, mode) following no symbolic link at any component
 * (openat2 RESOLVE_NO_SYMLINKS, and RESOLVE_BENEATH when dirfd is a directory
 * fd); where openat2 is missing, path must be one name and is opened with
 * O_NOFOLLOW. A symlink fails with ELOOP. Returns the fd or -1 with errno.
 */
int fs_open_nofollow(int dirfd, const char *path, int flags, mode_t mode);

#endif
