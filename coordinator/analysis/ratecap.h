/* SPDX-License-Identifier: MIT */
/* A rate cap told from saturation: throughput flat at the top, fast below it. */
#ifndef IOCURVE_RATECAP_H
#define IOCURVE_RATECAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aggregate.h"

/*
 * The rule (docs/methodology.md, "Ceilings: a rate cap or saturation"), over the
 * points with operations, no errors and no agent lost:
 *
 * 1. A flat top: the steps whose achieved rate's 95% interval (ratecap_rate_ci)
 *    reaches the highest one's, at least THRESH_CAP_MIN_FLAT of them offered distinct
 *    rates, and at least one offered more than it achieved beyond noise (or ran
 *    closed-loop). The ceiling is the mean achieved rate of those held back.
 *    Without a flat top there is nothing to diagnose (flat false).
 * 2. The excess queued in the storage: at the top the service time is at least
 *    THRESH_CAP_QUEUED x that of the highest step below it (throughput flat, so by
 *    Little's law the operations in flight grew in the same proportion).
 * 3. Fast below: the highest step that kept up with its load (under the ceiling
 *    or in the flat top, open-loop, not behind) served within
 *    THRESH_CAP_FAST x the service time of a step at THRESH_CAP_LOW or less of it (over
 *    that, at any share of the ceiling: saturated, it queued before it was full),
 *    and it kept up at THRESH_CAP_NEAR or more of the ceiling (else too little
 *    evidence). A device saturated by its own servers queues before it is full
 *    (an M/M/c with c <= 8 serves in 1.5-6.7x its service time at 85% of capacity,
 *    1.0-2x at 50%); a throttle does not.
 * capped when all three hold. Not capped, rule 3's saturation is asked before rule 2's
 * "the client set the rate": a step that queued below the ceiling leaves the top no
 * room to double its service time.
 */

struct ratecap {
	bool flat;          /* rule 1 held: the rest is filled */
	bool capped;        /* rules 1-3 held */
	double ceiling_ops; /* the mean achieved rate of the flat steps held back */
	double ceiling_lo;  /* the lowest end of their 95% intervals... */
	double ceiling_hi;  /* ...and the highest */
	uint32_t nflat;     /* flat steps (flat_steps holds the first THRESH_CAP_MAX_FLAT) */
	uint32_t flat_steps[THRESH_CAP_MAX_FLAT]; /* their step numbers, from 1, in curve order */
	double top_svc_ns;                        /* the flat steps' highest mean service time... */
	double top_in_flight; /* ...and that step's operations in flight (Little's law) */
	bool below;           /* a step kept up with its load: near_* are filled */
	uint32_t near_step;   /* the highest such step (from 1) */
	double near_ops, near_svc_ns;
	bool low; /* a lower one at or under THRESH_CAP_LOW of the ceiling: low_* */
	uint32_t low_step;
	double low_ops, low_svc_ns;
	double in_service; /* ceiling x the low step's service time: busy servers unqueued */
	char why[512];     /* the evidence in words, capped or not ("" without a flat top) */
};

/*
 * The 95% interval of a point's achieved rate: batch means over its measured
 * intervals (at most 10 contiguous batches, t(0.975, batches - 1)), and at
 * least the Poisson count noise of its operations (1.96 sqrt(ops) / seconds).
 */
void ratecap_rate_ci(const struct step_point *p, double *lo, double *hi);

/* Judge sorted points (curve order) by the rule above into *rc. */
void ratecap_judge(const struct step_point *sorted, size_t n, struct ratecap *rc);

/*
 * The limiting factor's words for a cap: "throughput capped at 4,990 ops/s (a
 * rate limit such as a QoS policy): service time grows with queue depth while
 * throughput stays flat (...)", and when in_service is 1 or more "; or a device
 * of N parallel units that do not slow before all are busy" (the same curve);
 * "" when not capped.
 */
void ratecap_words(const struct ratecap *rc, char *buf, size_t len);

#endif
