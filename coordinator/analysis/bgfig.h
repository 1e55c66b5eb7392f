/* SPDX-License-Identifier: MIT */
/*
 * Load under load: the background workload's figures over one foreground step (its
 * achieved rate and latency from the background's interval reports that fall inside
 * the step's measured window), and whether it kept up with its asked rate.
 */
#ifndef IOCURVE_BGFIG_H
#define IOCURVE_BGFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aggregate.h"
#include "record.h"

/*
 * The background's figures into p: asked ops/s (0: max), acc the merge of its n
 * reports (agents x intervals) covering secs seconds of the step.
 */
void bgfig_fill(struct step_point *p, double asked, const struct record *acc, uint32_t n,
                double secs);
/*
 * Whether the background kept up in p's step: at least BACKGROUND_KEPT_UP_PCT of its
 * asked rate (operations left due at its intervals' ends are said beside, in bg_missed
 * and the words); a max background always keeps up (it asks nothing); none measured
 * (no report in the window) did not.
 */
bool bgfig_kept_up(const struct step_point *p);
/* "kept up (2,000 of 2,000 ops/s)" or "fell behind: 1,500 of 2,000 ops/s asked (75%)". */
void bgfig_words(const struct step_point *p, char *buf, size_t len);

#endif
