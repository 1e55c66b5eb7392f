/* SPDX-License-Identifier: MIT */
/* A worker's data file on an NFS export, laid out over the agent's own NFS client. */
#ifndef IOCURVE_NFSLAYOUT_H
#define IOCURVE_NFSLAYOUT_H

#include <stdint.h>

#include "datagen.h"
#include "engine.h"
#include "error.h"

/*
 * path (within p's export, "dir/AGENT-w0.dat"): its directory made, the file written whole
 * with data's pattern (and verify headers) and committed, unless a record beside it
 * (".NAME.layout", NFSv3 has no xattrs) says it was laid out so before. *progress counts
 * bytes written as they go (may be NULL), *written the total. 0, or -1 with err naming it.
 */
int nfslayout_file(const struct engine_nfs_params *p, const char *path, uint64_t size,
                   const struct datagen_config *data, uint64_t *progress, uint64_t *written,
                   struct error *err);
/* The path within p's export of url (nfs://SERVER/EXPORT/PATH): PATH, or NULL. */
const char *nfslayout_within(const struct engine_nfs_params *p, const char *url);

#endif
