/* SPDX-License-Identifier: MIT */
/*
 * A mix's parts in the summaries and report.html: each part's ops/s, MiB/s and
 * latency (from its operations' due time) per step, as a table under the workload's
 * step table, and the step the parts are said at (the knee's, else the peak).
 */
#ifndef IOCURVE_MIXPARTS_H
#define IOCURVE_MIXPARTS_H

#include <stdbool.h>
#include <stdio.h>

#include "judged.h"

/*
 * The step a mix's parts are given at: the met step at or under the knee when there
 * is one (*at_knee true), else the peak; NULL for a workload that is no mix, has no
 * steps, or whose steps have no parts (an agent without the capability).
 */
const struct step_point *mixparts_step(const struct judged_curve *j, bool *at_knee);
/*
 * | Step | Part | Share | Pattern | ops/s | MiB/s | Mean | p50 | p99 | p99.9 | Max |, a
 * row per part of each step (knee_only: of mixparts_step's only), as summary.md's
 * tables; nothing for a workload that is no mix.
 */
void mixparts_print(FILE *f, const struct judged_curve *j, bool knee_only);
/* The same table of every step for report.html (id "parts-N", N the workload from 1). */
void mixparts_html(FILE *f, const struct judged_curve *j, size_t wi);

#endif
