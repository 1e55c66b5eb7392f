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
 * A new directory at path, made by us: missing parents are made as by fs_mkdir_p, but
 * the last component must not exist (not as a directory, a file nor a symbolic link).
 * Returns an O_DIRECTORY fd on it, or -1 with err: "PATH already exists: ..." when it
 * was there.
 */
int fs_mkdir_new(const char *path, mode_t mode, struct error *err);

/*
 * An existing directory to write in again: not a symbolic link, and owned by the
 * effective user. Returns an O_DIRECTORY fd on it, or -1 with err saying why.
 */
int fs_open_own_dir(const char *path, struct error *err);

/*
 * openat(dirfd, path, flags, mode) following no symbolic link at any component
 * (openat2 RESOLVE_NO_SYMLINKS, and RESOLVE_BENEATH when dirfd is a directory
 * fd); where openat2 is missing, path must be one name and is opened with
 * O_NOFOLLOW. A symlink fails with ELOOP. Returns the fd or -1 with errno.
 */
int fs_open_nofollow(int dirfd, const char *path, int flags, mode_t mode);

#endif
