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
 * name is used in messages in place of a file name for campaign_parse, which reads
 * text literally (a daemon's, a plan.yaml: the effective campaign).
 */
int campaign_load(const char *path, struct campaign **out, struct error *err);
/*
 * A campaign file in the campaign language (campsource.h: include:, ${NAME}, --set
 * in src): the campaign's text is then the effective campaign, what plan.yaml keeps
 * and a daemon is handed, and an error names the file, line and column or the --set
 * argument its value came from. campaign_load is this with src NULL.
 */
struct campsource;
int campaign_load_source(const char *path, const struct campsource *src, struct campaign **out,
                         struct error *err);
/*
 * A results directory's plan.yaml: the effective campaign, read as written (its
 * values are literal, nothing expanded). The directory may come from elsewhere:
 * the file must be a regular one (saferead_all), at most CAMPAIGN_PLAN_MAX bytes.
 * With plain (a plan to resume), every target's path must be absolute and plain
 * (targets.c): `run --resume` hands those paths to its local agents as what they
 * may create and write, as root when it runs as root.
 */
#define CAMPAIGN_PLAN_MAX (16u << 20)
/* slo.latency's bound: its lateness budget (a share of it) stays inside the agent's own bound. */
#define CAMPAIGN_MAX_SLO_NS (3600ull * 1000 * 1000 * 1000)
int campaign_load_plan(const char *path, bool plain, struct campaign **out, struct error *err);
int campaign_parse(const char *text, size_t len, const char *name, struct campaign **out,
                   struct error *err);
void campaign_free(struct campaign *c);

/* "mean", "p50", "p90", "p99", "p99.9": as slo.metric takes them. */
const char *campaign_slo_metric_name(enum slo_metric m);
/* Whose latency the SLO judges, and which figure of it: "storage mean", "response p99". */
const char *campaign_slo_label(const struct campaign *c, char *buf, size_t len);

#endif
