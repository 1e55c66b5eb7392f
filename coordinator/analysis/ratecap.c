/* SPDX-License-Identifier: MIT */
/* A rate cap told from saturation: throughput flat at the top, fast below it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ratecap.h"
#include "units.h"
#include "verdict.h"

void ratecap_rate_ci(const struct step_point *p, double *lo, double *hi)
{
	double rates[STEP_MAX_TICKS], half = 0, mean = 0, ss = 0;
	uint32_t m = 0, b;

	/* the measured intervals the point kept (its first STEP_MAX_TICKS) */
	for (uint32_t i = 0; i < p->nticks && i < STEP_MAX_TICKS; i++)
		if (p->ticks[i].measured && p->ticks[i].seconds > 0)
			rates[m++] = p->ticks[i].ops_s;
	b = m < THRESH_CAP_BATCHES ? m : THRESH_CAP_BATCHES;
	if (b >= 2) {
		double batch[THRESH_CAP_BATCHES];

		/* batch k: intervals [k m / b, (k + 1) m / b), every one in a batch */
		for (uint32_t k = 0; k < b; k++) {
			uint32_t from = k * m / b, to = (k + 1) * m / b;
			double sum = 0;

			for (uint32_t i = from; i < to; i++)
				sum += rates[i];
			batch[k] = sum / (to - from);
			mean += batch[k];
		}
		mean /= b;
		for (uint32_t k = 0; k < b; k++)
			ss += (batch[k] - mean) * (batch[k] - mean);
		half = agg_t95(b - 1) * sqrt(ss / (b - 1)) / sqrt((double)b);
	}
	/* never narrower than the count noise of the operations completed */
	if (p->measured_s > 0 && 1.96 * sqrt((double)p->ops) / p->measured_s > half)
		half = 1.96 * sqrt((double)p->ops) / p->measured_s;
	*lo = p->achieved_ops - half;
	*hi = p->achieved_ops + half;
}

/*
 * A point the rule reads: operations done, none failed, every agent to the end,
 * and figures a count can hold (a hostile report's 1e300 is no evidence).
 */
static bool ratecap_usable(const struct step_point *p)
{
	return p->ops > 0 && p->errors == 0 && p->agents_lost == 0 && p->achieved_ops > 0 &&
	       p->achieved_ops < 1e15 && p->svc_mean_ns >= 0 && p->svc_mean_ns < 1e15 &&
	       isfinite(p->offered_ops);
}

/* Whether the distinct offered rates of the flat steps number at least two. */
static bool ratecap_rates_rise(const struct step_point *s, const size_t *idx, size_t m)
{
	for (size_t i = 1; i < m; i++)
		if (s[idx[i]].offered_ops != s[idx[0]].offered_ops)
			return true;
	return false;
}

static void ratecap_fmt_rate(double ops, char *buf, size_t len)
{
	units_format_count((uint64_t)llround(ops), buf, len);
}

/*
 * Rule 1: the flat top. The ceiling is what the steps held back (offered more
 * than they achieved, or closed-loop) achieved: a step of the top that kept up
 * measured its own load, not the cap. False when there is no flat top.
 */
static bool ratecap_top(const struct step_point *s, size_t n, struct ratecap *rc)
{
	size_t idx[STEP_MAX_TICKS], m = 0, nover = 0, peak = n;
	double plo = 0, phi = 0, sum = 0;

	for (size_t i = 0; i < n; i++)
		if (ratecap_usable(&s[i]) &&
		    (peak == n || s[i].achieved_ops > s[peak].achieved_ops))
			peak = i;
	if (peak == n)
		return false;
	ratecap_rate_ci(&s[peak], &plo, &phi);
	for (size_t i = 0; i < n && m < STEP_MAX_TICKS; i++) {
		double lo, hi;

		if (!ratecap_usable(&s[i]))
			continue;
		ratecap_rate_ci(&s[i], &lo, &hi);
		if (hi < plo)
			continue;
		idx[m++] = i;
		if (rc->nflat < THRESH_CAP_MAX_FLAT)
			rc->flat_steps[rc->nflat] = s[i].step + 1;
		rc->nflat++;
		if (s[i].svc_mean_ns > rc->top_svc_ns) {
			rc->top_svc_ns = s[i].svc_mean_ns;
			rc->top_in_flight = s[i].achieved_ops * s[i].svc_mean_ns / 1e9;
		}
		/* offered beyond what it achieved, past the noise: the cap held it back */
		if (s[i].offered_ops > 0 && s[i].offered_ops <= hi)
			continue;
		sum += s[i].achieved_ops;
		if (nover++ == 0 || lo < rc->ceiling_lo)
			rc->ceiling_lo = lo;
		if (nover == 1 || hi > rc->ceiling_hi)
			rc->ceiling_hi = hi;
	}
	if (nover == 0)
		return false;
	rc->ceiling_ops = sum / (double)nover;
	return m >= THRESH_CAP_MIN_FLAT && ratecap_rates_rise(s, idx, m);
}

/*
 * The steps that kept up with what they were offered (open-loop, not behind, no
 * more offered than their achieved rate's interval holds), in the flat top or
 * under it: the highest (near) and the lowest (low).
 */
static void ratecap_below(const struct step_point *s, size_t n, struct ratecap *rc)
{
	const struct step_point *near = NULL, *low = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct step_point *p = &s[i];
		double lo, hi;

		if (!ratecap_usable(p) || p->offered_ops <= 0 || p->svc_mean_ns <= 0 ||
		    (verdict_point(p) & VERDICT_BEHIND))
			continue;
		ratecap_rate_ci(p, &lo, &hi);
		if (p->offered_ops > hi)
			continue;
		if (near == NULL || p->achieved_ops > near->achieved_ops)
			near = p;
		if (low == NULL || p->achieved_ops < low->achieved_ops)
			low = p;
	}
	if (near == NULL)
		return;
	rc->below = true;
	rc->near_step = near->step + 1;
	rc->near_ops = near->achieved_ops;
	rc->near_svc_ns = near->svc_mean_ns;
	if (low != near && low->achieved_ops <= THRESH_CAP_LOW * rc->ceiling_ops) {
		rc->low = true;
		rc->low_step = low->step + 1;
		rc->low_ops = low->achieved_ops;
		rc->low_svc_ns = low->svc_mean_ns;
		rc->in_service = rc->ceiling_ops * low->svc_mean_ns / 1e9;
	}
}

void ratecap_judge(const struct step_point *sorted, size_t n, struct ratecap *rc)
{
	char c[32], top[32], nsv[32], nr[32], lsv[32] = "", lr[32] = "";
	double growth = 0;

	memset(rc, 0, sizeof(*rc));
	if (n > STEP_MAX_TICKS)
		n = STEP_MAX_TICKS; /* a curve that long is not a refined one: its first steps */
	if (!ratecap_top(sorted, n, rc)) {
		memset(rc, 0, sizeof(*rc));
		return;
	}
	rc->flat = true;
	ratecap_fmt_rate(rc->ceiling_ops, c, sizeof(c));
	ratecap_below(sorted, n, rc);
	if (!rc->below) {
		snprintf(
		    rc->why, sizeof(rc->why),
		    "throughput flat at %s ops/s over %u steps, but no step kept up with its load: "
		    "a cap cannot be told from saturation without steps under the ceiling",
		    c, rc->nflat);
		return;
	}
	units_format_duration((uint64_t)llround(rc->top_svc_ns), top, sizeof(top));
	units_format_duration((uint64_t)llround(rc->near_svc_ns), nsv, sizeof(nsv));
	ratecap_fmt_rate(rc->near_ops, nr, sizeof(nr));
	/*
	 * Queueing below the ceiling, at any share of it, is a saturation's; asked first,
	 * since a step below the top that had queued already leaves the top no room to
	 * double its service time: that is not the client setting the rate (an M/M/2 of
	 * 2 ms per worker read 2.0 ms at 25% of capacity, 50 ms at 92%, 64 ms at the top).
	 */
	if (rc->low) {
		units_format_duration((uint64_t)llround(rc->low_svc_ns), lsv, sizeof(lsv));
		ratecap_fmt_rate(rc->low_ops, lr, sizeof(lr));
		growth = rc->near_svc_ns / rc->low_svc_ns;
	}
	if (rc->low && growth > THRESH_CAP_FAST) {
		snprintf(rc->why, sizeof(rc->why),
		         "saturated, not capped: service time grew %.2fx below the ceiling of %s "
		         "ops/s (%s at %s ops/s against %s at %s ops/s): the storage queued before "
		         "it was full, as a device saturated by its own servers does",
		         growth, c, nsv, nr, lsv, lr);
		return;
	}
	if (rc->top_svc_ns < THRESH_CAP_QUEUED * rc->near_svc_ns) {
		snprintf(rc->why, sizeof(rc->why),
		         "throughput flat at %s ops/s, but its service time (%s) is under %.0fx "
		         "that below it (%s at %s ops/s): the storage did not queue the excess, so "
		         "something before it (the client) set the rate",
		         c, top, THRESH_CAP_QUEUED, nsv, nr);
		return;
	}
	if (rc->near_ops < THRESH_CAP_NEAR * rc->ceiling_ops || !rc->low) {
		snprintf(rc->why, sizeof(rc->why),
		         "throughput flat at %s ops/s; to tell a cap from saturation a step must "
		         "keep up at %.0f%% of it or more (the highest that did: %s ops/s) and a "
		         "lower one at %.0f%% or less",
		         c, 100 * THRESH_CAP_NEAR, nr, 100 * THRESH_CAP_LOW);
		return;
	}
	rc->capped = true;
	snprintf(rc->why, sizeof(rc->why),
	         "capped: throughput flat at %s ops/s over %u steps while service time grew to %s "
	         "(%.1f in flight); below it service time held (%s at %s ops/s against %s at %s "
	         "ops/s, %.2fx)%s",
	         c, rc->nflat, top, rc->top_in_flight, nsv, nr, lsv, lr, growth,
	         rc->in_service < 1 ? "; under 1 operation in service at the ceiling: the storage "
	                              "idled while it refused more"
	                            : "");
}

void ratecap_words(const struct ratecap *rc, char *buf, size_t len)
{
	char c[32], a[32], b[32];

	if (len == 0)
		return;
	buf[0] = '\0';
	if (!rc->capped)
		return;
	ratecap_fmt_rate(rc->ceiling_ops, c, sizeof(c));
	units_format_duration((uint64_t)llround(rc->near_svc_ns), a, sizeof(a));
	units_format_duration((uint64_t)llround(rc->top_svc_ns), b, sizeof(b));
	/*
	 * At 1 or more in service unqueued, parallel units that do not slow before
	 * they are all busy would draw the same curve (a fixed-service-time device
	 * under even arrivals): say both, the cap not first, rather than claim a policy.
	 */
	if (rc->in_service >= 1) {
		snprintf(
		    buf, len,
		    "throughput flat at %s ops/s: a rate limit such as a QoS policy, or a device "
		    "of %.1f parallel units that do not slow before all are busy (these steps "
		    "cannot tell them apart): service time grows with queue depth while "
		    "throughput stays flat (%s below it, %s with %.1f in flight at it)",
		    c, rc->in_service, a, b, rc->top_in_flight);
		return;
	}
	snprintf(buf, len,
	         "throughput capped at %s ops/s (a rate limit such as a QoS policy): service time "
	         "grows with queue depth while throughput stays flat (%s below the cap, %s with "
	         "%.1f in flight at it)",
	         c, a, b, rc->top_in_flight);
}
