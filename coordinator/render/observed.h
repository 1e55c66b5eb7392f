/* SPDX-License-Identifier: MIT */
/*
 * The observe: sources' figures per step (obsline.h's lines, as the run kept them or
 * replay read them back): each series' mean over the step's measured intervals (a
 * counter's per-interval rates, so its rate over them), for curve-*.json's `observed`
 * (keyed SOURCE/SERIES), report.html's plot and the storage-side bottleneck.
 */
#ifndef IOCURVE_OBSERVED_H
#define IOCURVE_OBSERVED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "campaign.h"
#include "runend.h"

/*
 * Series k of source s over step `step` of w: its mean over the measured intervals that
 * have a value (*n of them); *late: the measured intervals the source gave nothing for.
 * false when no interval had a value.
 */
bool observed_mean(const struct runend *end, const struct campaign *c, const struct workload *w,
                   uint32_t step, size_t s, size_t k, double *mean, uint32_t *n, uint32_t *late);

/* {"SOURCE/SERIES": mean or null, ...}; NULL when the campaign observes nothing. */
json_t *observed_step_json(const struct runend *end, const struct campaign *c,
                           const struct workload *w, uint32_t step);
/* {"SOURCE": intervals late, ...} for sources late in the step; NULL when none was. */
json_t *observed_late_json(const struct runend *end, const struct campaign *c,
                           const struct workload *w, uint32_t step);

struct judged_curve;
/*
 * The storage's side of the limiting factor: the first observed series (in the
 * campaign's order) at its limit (observe_series_threshold) at the first step in curve
 * order that violated the SLO or saturated, named from the step where it became so
 * and stayed so: "storage: node/busy 97% (saturated at 95%) from 24000 ops/s". false
 * (buf "") when no step violated or saturated, none was at its limit there, it was
 * already so at under half that step's load, or nothing is observed.
 */
bool observed_bottleneck(const struct runend *end, const struct judged_curve *j, char *buf,
                         size_t len);
/* "Storage bottleneck, W: ..." for each workload with one (after the summary table). */
void observed_print_bottlenecks(FILE *f, const struct campaign *c,
                                const struct judged_curve *judged, const struct runend *end);

#endif
