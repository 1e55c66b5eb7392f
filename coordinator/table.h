/* SPDX-License-Identifier: MIT */
/* Human-readable tables of a workload's curve and its knee, for the terminal and summary.md. */
#ifndef IOCURVE_TABLE_H
#define IOCURVE_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "aggregate.h"
#include "campaign.h"
#include "knee.h"

/* Sequential workloads are judged in MiB/s, random ones in ops/s. */
bool table_uses_mib(const struct workload *w);
/* The knee of a workload's points against the SLO (mean latency). */
struct knee table_knee(const struct workload *w, const struct step_point *pts, size_t n,
                       uint64_t slo_ns);
/* "Performance @ 1ms: 3,412 ops/s (interpolated between steps 3 and 4)". */
void table_knee_text(const struct workload *w, const struct step_point *pts, size_t n,
                     uint64_t slo_ns, char *buf, size_t len);
/* The step table, markdown-style so it reads the same on a terminal and in a file. */
void table_print_steps(FILE *f, const struct workload *w, const struct step_point *pts, size_t n);
/* | Workload | Performance @ 1ms | Peak | Latency at peak | Limiting factor | */
void table_print_summary(FILE *f, const struct campaign *c, const struct step_point *const *pts,
                         const size_t *npts);

#endif
