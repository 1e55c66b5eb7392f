/* SPDX-License-Identifier: MIT */
/* A workload's curve judged: its order, throughput unit, knee, peak and limiting factor. */
#ifndef IOCURVE_CURVE_H
#define IOCURVE_CURVE_H

#include <stdbool.h>
#include <stddef.h>

#include "aggregate.h"
#include "campaign.h"
#include "knee.h"

/* Sequential workloads are judged in MiB/s, random ones in ops/s, as published tables do. */
bool curve_uses_mib(const struct workload *w);
/* A point's throughput in the workload's unit. */
double curve_throughput(const struct workload *w, const struct step_point *p);
/*
 * The points in curve order: by offered rate, max (closed-loop) steps last,
 * then by run order. Returns a copy the caller frees.
 */
struct step_point *curve_sorted(const struct step_point *pts, size_t n);
/*
 * The knee of sorted points (curve_sorted) against the campaign's SLO and
 * metric. A step that fell short of its offered rate never counts as under the SLO.
 */
struct knee curve_knee(const struct campaign *c, const struct workload *w,
                       const struct step_point *sorted, size_t n);
/* "measured", "interpolated", "above_peak", "none": for summary.json. */
const char *curve_knee_kind(const struct knee *k);
/* The highest-throughput point (NULL when n is 0). */
const struct step_point *curve_peak(const struct workload *w, const struct step_point *pts,
                                    size_t n);
/* What limited the workload, plainly: client CPU, queue depth, rate shortfall, errors, SLO. */
void curve_limit(const struct campaign *c, const struct workload *w, const struct step_point *pts,
                 size_t n, char *buf, size_t len);
#endif
