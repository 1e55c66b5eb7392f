/* SPDX-License-Identifier: MIT */
/*
 * Load under load in summary.json: beside each foreground workload, the background it
 * ran beside, at the knee's step and over every step (docs/campaign.md).
 */
#ifndef IOCURVE_BGSUMMARY_H
#define IOCURVE_BGSUMMARY_H

#include <jansson.h>

#include "judged.h"

/*
 * The "background" object of foreground workload j's summary: {name, asked_ops (null
 * for a max background), at_knee: {step, ops, mean_us, p99_us, kept_up} (the step the
 * knee's figure is from; null without a knee), kept_up_all, behind_steps (the steps, as
 * curve-*.json numbers them, where it fell behind)}. The step figures are curve-*.json's
 * values of the same rows, rounded the same way. NULL when the campaign has no
 * background or j is the background itself.
 */
json_t *bgsummary_json(const struct judged_curve *j);

#endif
