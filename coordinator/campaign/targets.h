/* SPDX-License-Identifier: MIT */
/*
 * What a campaign's workloads run on: target: (one) or targets: (a list of named
 * targets, each with the labels of the agents that drive it), read and checked.
 */
#ifndef IOCURVE_TARGETS_H
#define IOCURVE_TARGETS_H

#include "campaign_def.h"
#include "yamlnode.h"

/*
 * Read root's target: or targets: (one of them, not both) into c->targets.
 * Before the workloads: their defaults and checks depend on it.
 */
int targets_parse(struct yamlnode_doc *y, const yaml_node_t *root, struct campaign *c);
/* After the workloads: each target holds a whole block of every workload run on it. */
int targets_check(struct yamlnode_doc *y, const yaml_node_t *root, const struct campaign *c);
/* The index of the target named name, or -1. */
long targets_find(const struct campaign *c, const char *name);
/*
 * A mapping of label names to values such as {zone: a} into labels; what names the
 * key in messages ("agents.select.labels").
 */
int targets_labels(struct yamlnode_doc *y, const yaml_node_t *map, const char *what,
                   struct label **labels, size_t *nlabels);
void targets_free(struct campaign_target *t, size_t n);

#endif
