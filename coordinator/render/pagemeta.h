/* SPDX-License-Identifier: MIT */
/* report.html's list of what was run: the SLO, agents, targets and meta.json's provenance. */
#ifndef IOCURVE_PAGEMETA_H
#define IOCURVE_PAGEMETA_H

#include <stddef.h>
#include <stdio.h>

#include "aggregate.h"
#include "campaign.h"

/*
 * The page's <dl class="meta">: the SLO, the agents that took part (as the per-agent
 * tables name them), each target, then what meta.json (its text, may be NULL) says of
 * the run: mounts, date, iocurve, command, coordinator and agent hosts. Every string
 * from the plan or an agent is escaped.
 */
void pagemeta_html(FILE *f, const struct campaign *c, const struct step_point *const *pts,
                   const size_t *npts, const char *meta);

#endif
