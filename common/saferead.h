/* SPDX-License-Identifier: MIT */
/*
 * Files read from a directory that may come from elsewhere (a results directory
 * handed to `report`, `compare` or `run --resume`, its siblings): whatever is
 * planted at a name must not lead the reader anywhere. No symbolic link is followed,
 * the open does not wait (a FIFO would hold it until a writer came), what was opened
 * must be a regular file, and nothing is read without a bound: a whole file up to a
 * size, a line up to a length (a file of one endless line, or a link to /dev/zero,
 * would otherwise grow the buffer until memory ran out).
 */
#ifndef IOCURVE_SAFEREAD_H
#define IOCURVE_SAFEREAD_H

#include <stdio.h>
#include <sys/types.h>

#include "error.h"

/* The file must belong to the effective user (a resumed directory's files). */
#define SAFEREAD_OWN 1u

/*
 * DIR/NAME opened for reading. With dirfd AT_FDCWD, DIR/NAME (NAME when dir is
 * NULL) is a path whose last component must not be a symbolic link (the directories
 * on the way are the caller's to name); with a directory fd, NAME is opened beneath
 * it and none of its components may be a link (dir then only names it in messages). Returns the fd
 * (blocking, close-on-exec), or -1 with errno (ENOENT when there is no such file) and err:
 * "DIR/NAME: is a symbolic link", "DIR/NAME: not a regular file (a FIFO)", "DIR/NAME: belongs to
 * uid 65534, not to us (uid 0)".
 */
int saferead_open(int dirfd, const char *dir, const char *name, unsigned flags, struct error *err);

/* saferead_open as a stream ("re"); NULL with errno and err. */
FILE *saferead_fopen(int dirfd, const char *dir, const char *name, unsigned flags,
                     struct error *err);

/*
 * The whole file (saferead_open) in memory, NUL-terminated, its length in *len (may
 * be NULL): at most max bytes, a longer file is refused ("DIR/NAME: longer than N
 * bytes"). NULL with errno and err.
 */
char *saferead_all(int dirfd, const char *dir, const char *name, size_t max, unsigned flags,
                   size_t *len, struct error *err);

/*
 * One line of f into *buf (grown as needed, *cap its size), its newline kept and a
 * NUL after it, as getline(3) does, but at most max bytes with the newline. Returns
 * its length, 0 at the end of the file, -1 on a read error (errno), or
 * SAFEREAD_TOO_LONG when the line is longer than max (what was read of it is
 * dropped: the caller refuses the file, naming file and line).
 */
#define SAFEREAD_TOO_LONG (-2)
ssize_t saferead_line(FILE *f, char **buf, size_t *cap, size_t max);

#endif
