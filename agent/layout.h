/* SPDX-License-Identifier: MIT */
/* Target layout: create a worker's file and write it whole before any I/O. */
#ifndef IOCURVE_LAYOUT_H
#define IOCURVE_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "datagen.h"
#include "error.h"

/*
 * Opens (creating when missing) path for I/O at size bytes, with O_DIRECT when
 * direct. Unless the file already carries the xattr user.iocurve.layout for
 * this size and data pattern, writes every byte once with data from datagen
 * (data: compress and dedupe; NULL: incompressible), fsyncs and records the
 * xattr, so that writes overwrite existing data and reads read real data.
 * Each file gets data of its own, unless data->clone names a clone: then every
 * file is the same image, from the clone's seed, the xattr names the clone
 * (" clone=NAME") and the sampled blocks must be of its seed.
 * A file carrying the xattr is still checked: holes in it (punched since) or
 * sampled blocks that are not datagen's (zeroed, overwritten by others) lay it
 * out again, with a warning that says why ("re-laying PATH: 48MiB of 64MiB are
 * holes").
 * With data->verify every 4KiB block laid out carries its verify header
 * (agent/verify.h) of the checksum it asks, and the xattr ends in " verify=crc32" or
 * " verify=xxh64". A file whose xattr says either is reused as it is, by a workload
 * with verify of either checksum or without (each header names its own), whatever its
 * sampled blocks show (a warning names the first that fails its header): damage
 * to it is evidence for the reads to report, never laid out over. A file without
 * headers is laid out again for a workload with verify.
 * *progress (may be NULL) follows the bytes written as it goes, for the
 * coordinator's progress line. Returns the open fd, or -1 with err naming the
 * path and the reason ("O_DIRECT is not supported on this file system; set
 * target direct: false"); a file it created is removed again then, one it found
 * goes back to its size. *written gets the bytes laid out (0 when skipped).
 */
int layout_open(const char *path, uint64_t size, bool direct, const struct datagen_config *data,
                uint64_t *progress, uint64_t *written, struct error *err);

/*
 * layout_open for the file NAME in the directory DIRFD (path: how messages name
 * it). No symbolic link is followed; the file must be a regular file owned by
 * this user with one link, else the error says why and nothing is written.
 */
int layout_open_at(int dirfd, const char *name, const char *path, uint64_t size, bool direct,
                   const struct datagen_config *data, uint64_t *progress, uint64_t *written,
                   struct error *err);

/*
 * Before any byte is written: the files PREFIX-w0.dat .. PREFIX-w(files-1).dat of
 * size bytes in the directory DIRFD (dir names it) fit in its free space (statvfs,
 * what an unprivileged user may allocate), counting the blocks files already there
 * hold. 0, or -1 with err naming the path, the bytes needed and the bytes free.
 */
int layout_check_space(int dirfd, const char *dir, const char *prefix, uint32_t files,
                       uint64_t size, struct error *err);

/*
 * The bytes of [0, size) of fd that are holes (SEEK_DATA/SEEK_HOLE; where the
 * file system has neither, size minus the blocks allocated). Ranges zeroed as
 * unwritten extents count where the file system reports them as holes. 0 or -1.
 */
int layout_hole_bytes(int fd, uint64_t size, uint64_t *holes);

/*
 * A block device the agent was allowed: opened read-write only when the
 * workload writes, never laid out; it must hold size bytes. pathfd >= 0: the
 * agent's O_PATH fd of it, reopened through /proc/self/fd (path names it in
 * messages); else path, no symlink followed.
 */
int layout_open_device(int pathfd, const char *path, uint64_t size, bool direct, bool writes,
                       struct error *err);

#endif
