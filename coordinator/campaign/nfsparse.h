/* SPDX-License-Identifier: MIT */
/* An NFS target's settings (target: {nfs: ...}), read and checked. */
#ifndef IOCURVE_NFSPARSE_H
#define IOCURVE_NFSPARSE_H

#include "campaign_def.h"
#include "yamlnode.h"

/* connections: per worker stream at most */
#define NFSPARSE_CONNECTIONS_MAX 16

/*
 * map (the nfs: mapping of the target pre names) into nfs, and the target's path as its URL,
 * nfs://SERVER/EXPORT[/PATH], into *url (the caller's to free).
 */
int nfsparse_target(struct yamlnode_doc *y, const yaml_node_t *map, const char *pre,
                    struct campaign_nfs *nfs, char **url);
void nfsparse_free(struct campaign_nfs *nfs);

#endif
