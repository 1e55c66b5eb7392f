/* SPDX-License-Identifier: MIT */
/* A workload's entry in summary.json: its knee, repeats, peak, limit and what it ran. */
#ifndef IOCURVE_WORKJSON_H
#define IOCURVE_WORKJSON_H

#include <jansson.h>

#include "judged.h"
#include "runend.h"

/*
 * The knee in both units: ops/s and MiB/s, whichever the workload is judged in; the
 * other at the mean block (a mix's shares times its sizes, curve_mean_mibps).
 */
void workjson_knee_units(const struct workload *w, const struct knee *k, double *ops,
                         double *mibps);
/* j's object in summary.json's "workloads" (end: how the run ended, may be NULL). */
json_t *workjson_workload(const struct judged_curve *j, const struct runend *end);

#endif
