/* SPDX-License-Identifier: MIT */
/* Sync writes (fsync, fdatasync, sync: dsync): what a workload may ask of them. */
#ifndef IOCURVE_SYNCS_H
#define IOCURVE_SYNCS_H

#include "campaign.h"
#include "yamlnode.h"

/*
 * Whether workload w's sync keys make sense, else -1 with the error at the key
 * (the workload's own, else the top level's): a sync follows writes, so a workload
 * that only reads takes none; fsync and fdatasync are two meanings of one count, so
 * a workload takes one of them; sync: dsync opens files, which a simulated device
 * has none of.
 */
int syncs_check(struct yamlnode_doc *y, const yaml_node_t *root, const yaml_node_t *node,
                const struct campaign *c, const struct workload *w);

/* Whether w issues syncs (fsync or fdatasync) or opens its files O_DSYNC. */
static inline bool syncs_asked(const struct workload *w)
{
	return w->io.fsync != 0 || w->io.fdatasync != 0 || w->io.dsync;
}

/*
 * What w syncs, in words for check's plan ("an fsync after every 4 writes of each
 * worker, O_DSYNC writes"); "" when it asks for none.
 */
void syncs_text(const struct workload *w, char *buf, size_t len);

#endif
