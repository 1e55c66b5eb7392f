/* SPDX-License-Identifier: MIT */
/* A workload over time: throughput and latency per interval across its steps, as SVG. */
#ifndef IOCURVE_TIMEPLOT_H
#define IOCURVE_TIMEPLOT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "aggregate.h"
#include "campaign.h"
#include "marks.h"

/*
 * Write a standalone SVG document: two panels sharing a time axis (seconds
 * since the workload's first interval, the steps in run order, end to end).
 * The upper one draws the fleet's throughput per interval (MiB/s for a
 * sequential workload, ops/s for a random one) with each step's offered rate
 * as a dashed level; the lower one its mean and p99 latency per interval on a
 * log scale, with the SLO as a line. Steps are shaded in turn and numbered;
 * warm-up intervals are drawn on a lighter band. The view a storage engineer
 * reads for a boot storm or a garbage-collection pause inside a step.
 * marks[0..nmarks) of this workload (the others are skipped) are drawn as
 * labelled vertical lines across both panels at their time (marks.h: a step's
 * start plus at_ns, held to the step's end), their full text in a <title>.
 * Deterministic: the same input gives the same bytes.
 */
void timeplot_svg(FILE *f, const struct workload *w, const struct step_point *pts, size_t n,
                  uint64_t slo_ns, const struct run_mark *marks, size_t nmarks);

#endif
