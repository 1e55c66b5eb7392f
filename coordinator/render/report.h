/* SPDX-License-Identifier: MIT */
/* report.html: one self-contained page a person would rather look at than read. */
#ifndef IOCURVE_REPORT_H
#define IOCURVE_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "aggregate.h"
#include "campaign.h"
#include "judged.h"

/*
 * Write report.html to f: the campaign's name and SLO, the summary table
 * (| Workload | Performance @ 1ms | Peak | Latency at peak | Limiting factor |,
 * from table.h), then per workload: its inline SVG curve (plot.h), the knee
 * text, the step table (steady flag, errors, client CPU), the per-agent
 * breakdown (step_point.agents) and finally the plan as submitted
 * (campaign->text, HTML-escaped). No external resource: readable offline.
 * Deterministic: the same input gives the same bytes. pts[i] are workload
 * i's points in run order (the plot over time, the agents' names) and
 * judged[i] its judged curve: the curve, the knee, the verdicts and the
 * shading (a row is shaded exactly when its point violates the SLO, so the
 * knee lies below the first shaded row) come from it alone.
 */
struct runend;
/* end: how the campaign ended when it did not complete (a banner at the top), or NULL. */
void report_html(FILE *f, const struct campaign *c, const struct step_point *const *pts,
                 const size_t *npts, const struct judged_curve *judged, const struct runend *end);

#endif
