/* SPDX-License-Identifier: MIT */
/*
 * What limited a workload: an ordered table of rules (limit.c), the first that holds
 * wins. Each row has a word for the headline ("storage", "client queue") and the
 * words for the tables ("client queue depth (64 slots, 63.8 in flight at the peak,
 * full 98% of the time)").
 */
#ifndef IOCURVE_LIMIT_H
#define IOCURVE_LIMIT_H

#include <stddef.h>

#include "aggregate.h"
#include "campaign.h"
#include "ratecap.h"

/*
 * The limit of the curve over pts (n, in curve order) into buf, the cap diagnosis
 * (ratecap.h; NULL: none) named after the client's queue depth and before its CPU,
 * the client's own disk at its limit beside it. Returns the row's word.
 */
const char *limit_judge(const struct campaign *c, const struct workload *w,
                        const struct step_point *pts, size_t n, const struct ratecap *rc, char *buf,
                        size_t len);
/* The words of each row of the table in order, for the docs' test: NULL past the last. */
const char *limit_row_word(size_t i);

#endif
