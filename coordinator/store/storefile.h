/* SPDX-License-Identifier: MIT */
/* Files of a results directory written whole: aside, then renamed over the old one. */
#ifndef IOCURVE_STOREFILE_H
#define IOCURVE_STOREFILE_H

#include <stdio.h>

#include "error.h"

/*
 * Write DIR/NAME aside with fn and rename it over the old one: readers never see
 * half a file, and a failed write leaves the old one and no temp file. The temp
 * file is new (O_EXCL, a random name, no symlink followed) and the final name must
 * not be a symlink, so nothing planted in the directory is written through.
 * Every file of a results directory but the two appended ones is written this way.
 */
typedef void (*storefile_writer)(FILE *f, const void *arg);
int storefile_write(const char *dir, const char *name, storefile_writer fn, const void *arg,
                    struct error *err);

/*
 * Called by a writer (from inside storefile_write's fn): the file cannot hold what
 * it was given (a value JSON cannot hold); storefile_write fails with why and keeps
 * the previous version.
 */
void storefile_fault(const char *why);

#endif
