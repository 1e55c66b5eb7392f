/* SPDX-License-Identifier: MIT */
/*
 * Every file iocurve writes goes through here, so that nothing planted at its name
 * (a symbolic link, a hard link, a FIFO, someone else's file) is written through:
 * whole files are written aside and renamed over the old one, appended files are
 * opened without following a link and must be a regular file of ours with one link,
 * new files are made new (O_EXCL). The agent's data files are its own business.
 */
#ifndef IOCURVE_SAFEFILE_H
#define IOCURVE_SAFEFILE_H

#include <stdio.h>
#include <sys/types.h>

#include "error.h"

/*
 * Write DIR/NAME aside with fn and rename it over the old one: readers never see
 * half a file, and a failed write leaves the old one and no temp file. The temp
 * file is new (O_EXCL, a random name, no symlink followed) and the final name must
 * not be a symlink nor anything but a regular file, so nothing planted in the
 * directory is written through. Every file of a results directory but the two
 * appended ones, and compare's outputs, are written this way.
 */
typedef void (*safefile_writer)(FILE *f, const void *arg);
int safefile_write(const char *dir, const char *name, safefile_writer fn, const void *arg,
                   struct error *err);

/*
 * Called by a writer (from inside safefile_write's fn): the file cannot hold what
 * it was given (a value JSON cannot hold); safefile_write fails with why and keeps
 * the previous version.
 */
void safefile_fault(const char *why);

/*
 * NAME in the directory dirfd (called DIR in messages; NULL: NAME alone, as with
 * AT_FDCWD and a path) opened for appending, made with mode 0644 when missing
 * (flags may add O_EXCL). No symbolic link is followed,
 * and what is there must be a regular file owned by the effective user with no other
 * hard link: a results directory from elsewhere cannot aim our writes at a file of
 * ours. Returns the fd, or -1 with err: "DIR/NAME: is a symbolic link".
 */
int safefile_append(int dirfd, const char *dir, const char *name, int flags, struct error *err);

/*
 * PATH made new with exactly mode (the umask undone), for writing: O_EXCL, so
 * nothing already there (a file, a dangling symbolic link) is opened. Returns a
 * stream, or NULL with err: "PATH: already exists; refusing to overwrite it".
 */
FILE *safefile_create(const char *path, mode_t mode, struct error *err);

#endif
