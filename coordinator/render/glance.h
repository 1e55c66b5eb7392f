/* SPDX-License-Identifier: MIT */
/*
 * The answer at a glance: what `iocurve run` prints at its end. A headline of at most
 * GLANCE_HEAD_MAX characters per workload that names the judged metric ("randread-8k
 * 82.5k ops/s @ 1.00ms storage mean [80.0k-84.0k]  peak 145k  storage"), its reasons
 * wrapped below, and a step table of at most GLANCE_COLS columns whose long verdicts
 * become numbered notes under it. The wide table is summary.md's (table.c).
 */
#ifndef IOCURVE_GLANCE_H
#define IOCURVE_GLANCE_H

#include <stddef.h>
#include <stdio.h>

#include "judged.h"

#define GLANCE_HEAD_MAX 100 /* a headline's characters, and a reason line's */
#define GLANCE_COLS     9   /* the run's step table's columns */

/* The workload's headline into buf (at most GLANCE_HEAD_MAX characters); its length. */
size_t glance_headline(const struct judged_curve *j, char *buf, size_t len);
/* The run's step table of j, its verdicts' reasons numbered under it. */
void glance_steps(FILE *f, const struct judged_curve *j);

#endif
