/* SPDX-License-Identifier: MIT */
/* A stream's file set on an NFS export, laid out and put back over the agent's own client. */
#ifndef IOCURVE_FSET_NFS_H
#define IOCURVE_FSET_NFS_H

#include "engine.h"
#include "fset.h"

/*
 * As fset_layout, in root (a directory within p's export, made when missing): every file of
 * the layout at its size and committed, extras of an earlier run removed, renamed files
 * named back. The set keeps a connection for fset_restore (freed by fset_close).
 */
int fset_nfs_layout(struct fset *fs, const struct engine_nfs_params *p, const char *root,
                    const struct mix_fileset *spec, uint64_t seed, uint64_t max_files,
                    uint64_t *progress, uint64_t *written, struct error *err);

#endif
