/* SPDX-License-Identifier: MIT */
/* Sync writes: the campaign's checks of fsync, fdatasync and sync: dsync. */
#include <stdio.h>

#include "syncs.h"
#include "targets.h"

/* Where key was given: the workload's own, else the top level's default. */
static const yaml_node_t *syncs_where(struct yamlnode_doc *y, const yaml_node_t *root,
                                      const yaml_node_t *node, const char *key)
{
	const yaml_node_t *n = yamlnode_lookup(y, node, key);

	if (n == NULL)
		n = yamlnode_lookup(y, root, key);
	return n != NULL ? n : node;
}

/* The first sync key w sets, in the table's order. */
static const char *syncs_first_key(const struct workload *w)
{
	return w->io.fsync ? "fsync" : w->io.fdatasync ? "fdatasync" : "sync";
}

int syncs_check(struct yamlnode_doc *y, const yaml_node_t *root, const yaml_node_t *node,
                const struct campaign *c, const struct workload *w)
{
	const char *key;

	if (!syncs_asked(w))
		return 0;
	key = syncs_first_key(w);
	if (w->io.fsync != 0 && w->io.fdatasync != 0) {
		yamlnode_error(
		    y, syncs_where(y, root, node, "fdatasync"),
		    "fdatasync: workload '%s' has fsync: %u too; a worker syncs one way, "
		    "give one of fsync and fdatasync",
		    w->name, w->io.fsync);
		return -1;
	}
	if (!rw_writes(w->io.rw)) {
		yamlnode_error(y, syncs_where(y, root, node, key),
		               "%s: workload '%s' only reads (rw: %s), and a sync follows writes; "
		               "give %s to a workload that writes (write, randwrite, rw, randrw)",
		               key, w->name, rw_mode_name(w->io.rw), key);
		return -1;
	}
	if (w->io.dsync && campaign_target_of(c, w)->sim.enabled) {
		yamlnode_error(y, syncs_where(y, root, node, "sync"),
		               "sync: a simulated device has no file to open O_DSYNC in workload "
		               "'%s'; give its target a path, or leave sync out (fsync and "
		               "fdatasync are simulated as writes)",
		               w->name);
		return -1;
	}
	return 0;
}

void syncs_text(const struct workload *w, char *buf, size_t len)
{
	uint32_t n = w->io.fsync ? w->io.fsync : w->io.fdatasync;
	int k = 0;

	buf[0] = '\0';
	if (n != 0)
		k = snprintf(buf, len,
		             "an %s after every %u write%s of each worker (io_uring's own, "
		             "a queue slot each; its rate and latency apart, not in ops/s)",
		             w->io.fsync ? "fsync" : "fdatasync", n, n == 1 ? "" : "s");
	if (w->io.dsync && k >= 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, "%sfiles opened O_DSYNC: every write synced",
		         k ? "; " : "");
}
