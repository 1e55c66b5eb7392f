/* SPDX-License-Identifier: MIT */
/* Ops-latency curves drawn as SVG by iocurve itself: no plotting program needed. */
#ifndef IOCURVE_PLOT_H
#define IOCURVE_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "aggregate.h"
#include "campaign.h"
#include "knee.h"

/* One curve: a run's points of one workload, in step order. */
struct plot_series {
	const char *label; /* legend text ("run 1", a results dir name); NULL: no legend */
	const struct step_point *pts;
	size_t n;
	const struct knee *knee; /* marked when not NULL and found */
	/*
	 * Also draw, thin and dashed, the latency statistic the SLO does not use
	 * (p99 beside a mean SLO, the mean beside a percentile) and the service time
	 * (submission to completion, fio's clat), for one run's curve.
	 */
	bool companions;
};

/*
 * Write a standalone SVG document: x = achieved throughput (MiB/s for
 * sequential workloads, ops/s for random, as curve_uses_mib says), y = the SLO
 * metric's latency (axis labelled with its unit, e.g. "mean latency (ms)"), one
 * marker per step joined in step order (leftmost = lowest load), the SLO as a
 * horizontal line with its value, each series' knee marked and labelled, axis
 * ticks with units, a title with the workload's name. Several series overlay
 * (iocurve compare). Deterministic: the same input gives the same bytes.
 */
void plot_curve_svg(FILE *f, const struct workload *w, const struct plot_series *series,
                    size_t nseries, enum slo_metric metric, uint64_t slo_ns);

#endif
