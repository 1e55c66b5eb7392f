/* SPDX-License-Identifier: MIT */
/* A campaign as loaded from its YAML file, validated, with defaults applied. */
#ifndef IOCURVE_CAMPAIGN_H
#define IOCURVE_CAMPAIGN_H

#include <stdbool.h>
#include <stddef.h>

#include "campaign_def.h"
#include "error.h"

struct campaign;
/* Whether agents' interval lines carry their histograms' bins (agents.detail). */
bool campaign_agent_histograms(const struct campaign *c);

/*
 * Load and validate. On error returns -1 and err reads
 * "FILE:LINE:COLUMN: what is wrong (what was expected)", e.g.
 * "demo.yaml:7:3: unknown key 'queue_dept' in campaign (known: ...)".
 * name is used in messages in place of a file name for campaign_parse.
 */
int campaign_load(const char *path, struct campaign **out, struct error *err);
int campaign_parse(const char *text, size_t len, const char *name, struct campaign **out,
                   struct error *err);
void campaign_free(struct campaign *c);

/* "mean", "p50", "p90", "p99", "p99.9": as slo.metric takes them. */
const char *campaign_slo_metric_name(enum slo_metric m);

#endif
