/* SPDX-License-Identifier: MIT */
/* A workload's curve in words and tables: knee, peak, limiting factor, step table. */
#ifndef IOCURVE_TABLE_H
#define IOCURVE_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "aggregate.h"
#include "campaign.h"
#include "knee.h"

/* Sequential workloads are judged in MiB/s, random ones in ops/s, as published tables do. */
bool table_uses_mib(const struct workload *w);
/* A point's throughput in the workload's unit. */
double table_throughput(const struct workload *w, const struct step_point *p);
/*
 * The points in curve order: by offered rate, max (closed-loop) steps last,
 * then by run order. Returns a copy the caller frees.
 */
struct step_point *table_sorted(const struct step_point *pts, size_t n);
/*
 * The knee of sorted points (table_sorted) against the campaign's SLO and
 * metric. A step that fell short of its offered rate never counts as under the SLO.
 */
struct knee table_knee(const struct campaign *c, const struct workload *w,
                       const struct step_point *sorted, size_t n);
/* "measured", "interpolated", "above_peak", "none": for summary.json. */
const char *table_knee_kind(const struct knee *k);
/* The highest-throughput point (NULL when n is 0). */
const struct step_point *table_peak(const struct workload *w, const struct step_point *pts,
                                    size_t n);
/*
 * "Performance @ 1ms (mean): 46,332 ops/s (interpolated between steps 4 and 5)",
 * "> 64,000 ops/s at 1ms: every step met the SLO (peak 64,000 ops/s)", or "none:
 * the first step already exceeds the SLO". pts in any order.
 */
void table_knee_text(const struct campaign *c, const struct workload *w,
                     const struct step_point *pts, size_t n, char *buf, size_t len);
/* What limited the workload, plainly: client CPU, queue depth, rate shortfall, errors, SLO. */
void table_limit(const struct campaign *c, const struct workload *w, const struct step_point *pts,
                 size_t n, char *buf, size_t len);
/* The step table (curve order), markdown-style so it reads the same on a terminal and in a file. */
void table_print_steps(FILE *f, const struct workload *w, const struct step_point *pts, size_t n);
/* | Workload | Performance @ 1ms | Peak | Latency at peak | Limiting factor | */
void table_print_summary(FILE *f, const struct campaign *c, const struct step_point *const *pts,
                         const size_t *npts);

#endif
