/* SPDX-License-Identifier: MIT */
/* The workloads: list: top-level defaults, matrices expanded into workloads, unique names. */
#ifndef IOCURVE_WORKLOADS_H
#define IOCURVE_WORKLOADS_H

#include "access.h"
#include "campaign_def.h"
#include "error.h"
#include "yamlnode.h"

/* The workload keys the top level also takes, as defaults for every workload. */
#define WORKLOADS_SETTING_KEYS                                                                     \
	"rw", "block_size", "workers", "queue_depth", "interval", "warmup", "measure",             \
	    ACCESS_KEYS, "steady", "retry", "load"

/* A matrix expands to at most this many workloads in a campaign. */
#define WORKLOADS_MAX 1024
/* At most this many values in one list of a matrix. */
#define WORKLOADS_MAX_VALUES 64

/*
 * Read workloads: (list) with the defaults root gives, into c->workloads.
 * The target must be read already: defaults and checks depend on it.
 */
int workloads_parse(struct yamlnode_doc *y, const yaml_node_t *root, const yaml_node_t *list,
                    struct campaign *c);

#endif
