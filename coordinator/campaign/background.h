/* SPDX-License-Identifier: MIT */
/*
 * Load under load: a workload with background: true runs on its own workers at one
 * rate through every step of every other workload (the foreground). What the campaign
 * allows of it, and which workload it is.
 */
#ifndef IOCURVE_BACKGROUND_H
#define IOCURVE_BACKGROUND_H

#include <stdbool.h>

#include "campaign.h"

/* No libyaml here: the analysis layer reads BACKGROUND_KEPT_UP_PCT and background_of. */
struct yamlnode_doc;
struct yaml_node_s;

/* A background runs at under this share of its asked rate: it fell behind. */
#define BACKGROUND_KEPT_UP_PCT 95.0

/*
 * Workload w (just read; load: its load node, at: where background: is written, or
 * the workload's node): a background takes one rate (load: {steps: [RATE]}) or max
 * (load: {max: true}), no curve, ramp, refine, repeat or fixed work, and a campaign has
 * at most one. Returns 0, or -1 with a file:line:column error.
 */
int background_check(struct yamlnode_doc *y, const struct yaml_node_s *load,
                     const struct yaml_node_s *at, const struct campaign *c,
                     const struct workload *w);
/*
 * Workload entry node (before its keys are checked, what: "workload 'NAME'"): select:
 * on a background is refused with why. No workload has a select of its own (the
 * campaign's agents.select and each target's select.labels choose agents), and the
 * background runs on the agents of the first foreground workload, whose files it
 * shares the devices of; a select there would promise agents it cannot pick. Any
 * other workload's select is left to the unknown-key check. Returns 0, or -1 with a
 * file:line:column error.
 */
int background_check_select(struct yamlnode_doc *y, const struct yaml_node_s *node,
                            const char *what);
/* The whole campaign: at least one foreground workload beside a background. */
int background_check_campaign(struct yamlnode_doc *y, const struct yaml_node_s *list,
                              const struct campaign *c);
/* The index of the campaign's background workload, or -1. */
long background_of(const struct campaign *c);

#endif
