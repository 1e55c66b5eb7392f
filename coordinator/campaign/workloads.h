/* SPDX-License-Identifier: MIT */
/* The workloads: list: top-level defaults, matrices expanded into workloads, unique names. */
#ifndef IOCURVE_WORKLOADS_H
#define IOCURVE_WORKLOADS_H

#include "access.h"
#include "campaign_def.h"
#include "error.h"
#include "yamlnode.h"

/* At most this many keys in a mapping that takes the workload settings. */
#define WORKLOADS_MAX_KEYS 64

/* A matrix expands to at most this many workloads in a campaign. */
#define WORKLOADS_MAX 1024

/*
 * Read workloads: (list) with the defaults root gives, into c->workloads.
 * The target must be read already: defaults and checks depend on it.
 */
/*
 * The keys of a mapping that takes the workload settings (a workload, the top level):
 * before (NULL-terminated), the settings' keys in their table's order, then after,
 * into keys (NULL-terminated, WORKLOADS_MAX_KEYS entries).
 */
void workloads_known(const char *const *before, const char *const *after, const char **keys);
int workloads_parse(struct yamlnode_doc *y, const yaml_node_t *root, const yaml_node_t *list,
                    struct campaign *c);

#endif
