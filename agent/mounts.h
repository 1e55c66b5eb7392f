/* SPDX-License-Identifier: MIT */
/* What a path lives on: its mount's source, filesystem type and options, for the report. */
#ifndef IOCURVE_MOUNTS_H
#define IOCURVE_MOUNTS_H

#include <stddef.h>

/*
 * "SOURCE FSTYPE OPTIONS" of the mount holding path (an absolute, resolved
 * path), from mountinfo (the text of /proc/self/mountinfo): the mount point
 * that is the longest prefix of path. Returns 0, or -1 (buf "") when none fits.
 */
int mounts_describe(const char *mountinfo, const char *path, char *buf, size_t len);

/* The same, reading /proc/self/mountinfo. */
int mounts_of(const char *path, char *buf, size_t len);

#endif
