/* SPDX-License-Identifier: MIT */
/*
 * The observe: sources over time, for report.html under the latency plot: one panel per
 * series on the time axis timeplot.h draws (seconds since the workload's first interval,
 * the steps in run order, end to end), a point at each interval's end the source
 * answered, the steps shaded in turn and numbered, the warm-up lighter, a series' limit
 * (observe.h) as a dashed line, and an interval the source gave nothing for as a red
 * tick at the panel's foot. Deterministic: the same input gives the same bytes.
 */
#ifndef IOCURVE_OBSPLOT_H
#define IOCURVE_OBSPLOT_H

#include <stddef.h>
#include <stdio.h>

#include "aggregate.h"
#include "campaign.h"
#include "runend.h"

/* An <svg id="observed-W"> of workload w's steps pts[0..n) (run order); nothing if none. */
void obsplot_svg(FILE *f, const struct campaign *c, size_t wi, const struct step_point *pts,
                 size_t n, const struct runend *end);

#endif
