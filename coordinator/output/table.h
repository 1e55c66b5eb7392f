/* SPDX-License-Identifier: MIT */
/* A workload's curve in words and tables: the knee sentence, the step and summary tables. */
#ifndef IOCURVE_TABLE_H
#define IOCURVE_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "curve.h"

/*
 * "Performance @ 1ms (mean): 46,332 ops/s (interpolated between steps 4 and 5)",
 * "> 64,000 ops/s at 1ms: every step met the SLO (peak 64,000 ops/s)", or "none:
 * the first step already exceeds the SLO". pts in any order.
 */
void table_knee_text(const struct campaign *c, const struct workload *w,
                     const struct step_point *pts, size_t n, char *buf, size_t len);
/* The step table (curve order), markdown-style so it reads the same on a terminal and in a file. */
void table_print_steps(FILE *f, const struct workload *w, const struct step_point *pts, size_t n);
/* | Workload | Performance @ 1ms | Peak | Latency at peak | Limiting factor | */
void table_print_summary(FILE *f, const struct campaign *c, const struct step_point *const *pts,
                         const size_t *npts);

#endif
