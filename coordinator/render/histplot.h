/* SPDX-License-Identifier: MIT */
/* One step's latency distribution as a small inline SVG: bars on a log latency axis. */
#ifndef IOCURVE_HISTPLOT_H
#define IOCURVE_HISTPLOT_H

#include <stdint.h>
#include <stdio.h>

#include "aggregate.h"

/*
 * An SVG of p->hist: one bar per bin (8 a decade) between the first and last
 * bin that hold operations, its height the bin's share of the step's
 * operations, decades labelled, the SLO (slo_ns, 0: none) as a line.
 * Nothing when the step has no operations. Deterministic.
 */
void histplot_svg(FILE *f, const struct step_point *p, uint64_t slo_ns);

#endif
