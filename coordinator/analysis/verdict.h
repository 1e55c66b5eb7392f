/* SPDX-License-Identifier: MIT */
/* Verdicts on one step's point, shared by the knee, the planner and the reports. */
#ifndef IOCURVE_VERDICT_H
#define IOCURVE_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "aggregate.h"
#include "campaign.h"

/*
 * Whether a step saturated the target by the campaign's stop rules; *why (may
 * be NULL) says which rule ("achieved 81% of offered", "mean latency 62ms over the
 * 50ms ceiling", "12 errors").
 */
bool verdict_saturated(const struct campaign *c, const struct step_point *pt, char *why,
                       size_t len);

/* A step that fell short of its offered rate never counts as meeting the SLO. */
bool verdict_short(const struct campaign *c, const struct step_point *pt);

#endif
