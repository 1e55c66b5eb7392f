/* SPDX-License-Identifier: MIT */
/* Fixed-work loads: load: {work: {bytes | ops, deadline}, rate, think, start: {spread}}. */
#ifndef IOCURVE_WORKSPEC_H
#define IOCURVE_WORKSPEC_H

#include <stdbool.h>

#include "campaign.h"
#include "yamlnode.h"

/* The deadline when work: gives none. */
#define WORKSPEC_DEADLINE_NS (600ull * 1000000000ull)

/* Whether load: names one of work:'s keys (work, rate, think, start). */
bool workspec_given(struct yamlnode_doc *y, const yaml_node_t *load);
/*
 * Read work:, rate:, think: and start: of load: into w->work and one step
 * (rate or max); every other load key is refused beside work: (fixed work is
 * one step, not a curve), and rate:, think:, start: without it. w->block_size
 * must be final. -1 with a file:line:column error.
 */
int workspec_parse(struct yamlnode_doc *y, const yaml_node_t *load, struct workload *w);

#endif
