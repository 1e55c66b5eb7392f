/* SPDX-License-Identifier: MIT */
/* A workload's settings checked against each other and its target (wlcheck.c). */
#ifndef IOCURVE_WLCHECK_H
#define IOCURVE_WLCHECK_H

#include <stdint.h>

#include "campaign.h"
#include "yamlnode.h"

/* label's ns (warm-up, measure) a whole number of the workload's intervals, else refused. */
int wlcheck_multiple(struct yamlnode_doc *y, const yaml_node_t *wnode, const struct workload *w,
                     const char *label, uint64_t ns, const yaml_node_t *own,
                     const yaml_node_t *own_interval, const yaml_node_t *top,
                     const yaml_node_t *top_interval);
/* Enough measured intervals to judge a step, else refused. */
int wlcheck_count(struct yamlnode_doc *y, const yaml_node_t *wnode, const struct workload *w,
                  const yaml_node_t *own, const yaml_node_t *top);
/* working_set, align, verify and clone against the target. */
int wlcheck_access(struct yamlnode_doc *y, const yaml_node_t *root, const yaml_node_t *node,
                   const struct campaign *c, const struct workload *w);
/* A sequential worker's fixed work within its share of the target. */
int wlcheck_work(struct yamlnode_doc *y, const yaml_node_t *load, const struct campaign *c,
                 const struct workload *w);
/* Fixed work is one step measured whole: no warm-up, as long as its deadline. */
void wlcheck_fix_work(struct workload *w);

#endif
