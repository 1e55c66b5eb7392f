/* SPDX-License-Identifier: MIT */
/* Clock sync with an agent: min-RTT filter per round, a least-squares line over rounds. */
#include <math.h>
#include <stddef.h>

#include "clocksync.h"

enum clocksync_verdict clocksync_add(struct clocksync *cs, uint64_t t1, uint64_t t2, uint64_t t3,
                                     uint64_t t4, const char **why)
{
	/* Exact arithmetic: the agent's numbers are not trusted to keep differences small. */
	__int128 there = (__int128)t2 - t1, back = (__int128)t3 - t4;
	__int128 rtt = ((__int128)t4 - t1) - ((__int128)t3 - t2);
	__int128 offset = (there + back) / 2;
	struct clocksync_point p;
	const char *dummy;

	if (why == NULL)
		why = &dummy;
	*why = NULL;
	if (t3 < t2)
		*why = "the agent sent its reply before it received the ping (t3 < t2)";
	else if (t4 < t1)
		*why = "the reply came before the ping was sent (t4 < t1)";
	else if (rtt <= 0)
		*why = "a round trip of zero or less";
	else if (rtt > (__int128)CLOCKSYNC_RTT_MAX_NS)
		*why = "a round trip over 1 s";
	else if (offset > INT64_MAX || offset < INT64_MIN)
		*why = "an offset beyond 64 bits";
	if (*why != NULL) {
		cs->rejected++;
		return CLOCKSYNC_REJECTED;
	}
	cs->samples++;
	p.t = t1 + (uint64_t)((t4 - t1) / 2);
	p.offset_ns = (int64_t)offset;
	p.rtt_ns = (uint64_t)rtt;
	if (cs->have_best && p.rtt_ns >= cs->best.rtt_ns)
		return CLOCKSYNC_KEPT;
	cs->best = p;
	cs->have_best = true;
	return CLOCKSYNC_BEST;
}

/* Least squares through the window's quick points, relative to the newest one. */
static void clocksync_fit(struct clocksync *cs)
{
	const struct clocksync_point *last = &cs->window[cs->nwindow - 1];
	uint64_t min_rtt = UINT64_MAX, first_t = 0;
	double sx = 0, sy = 0, sxx = 0, sxy = 0, n = 0, a, b = 0;

	for (unsigned i = 0; i < cs->nwindow; i++)
		if (cs->window[i].rtt_ns < min_rtt)
			min_rtt = cs->window[i].rtt_ns;
	for (unsigned i = 0; i < cs->nwindow; i++) {
		const struct clocksync_point *p = &cs->window[i];
		double x = -(double)(last->t - p->t);
		double y = (double)(__int128)((__int128)p->offset_ns - last->offset_ns);

		if (p->rtt_ns > 2 * min_rtt + CLOCKSYNC_RTT_SLACK_NS)
			continue;
		if (n == 0)
			first_t = p->t;
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		n++;
	}
	a = sy / n;
	if (n >= 2 && n * sxx - sx * sx > 0) {
		b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
		if (b > CLOCKSYNC_DRIFT_MAX * 1e-6)
			b = CLOCKSYNC_DRIFT_MAX * 1e-6;
		if (b < -CLOCKSYNC_DRIFT_MAX * 1e-6)
			b = -CLOCKSYNC_DRIFT_MAX * 1e-6;
		a = (sy - b * sx) / n;
	}
	cs->t_ref = last->t;
	cs->offset_ns = (int64_t)((__int128)last->offset_ns + (__int128)llround(a));
	cs->drift_ppm = b * 1e6;
	cs->rtt_ns = min_rtt;
	cs->span_ns = last->t - first_t;
	cs->fit_points = (unsigned)n;
}

bool clocksync_round_end(struct clocksync *cs)
{
	if (!cs->have_best)
		return false;
	if (cs->nwindow == CLOCKSYNC_ROUNDS) {
		for (unsigned i = 1; i < CLOCKSYNC_ROUNDS; i++)
			cs->window[i - 1] = cs->window[i];
		cs->nwindow--;
	}
	cs->window[cs->nwindow++] = cs->best;
	cs->have_best = false;
	cs->rounds++;
	clocksync_fit(cs);
	return true;
}

/* Signed coordinator time from t_ref to t. */
static double clocksync_since_ref(const struct clocksync *cs, uint64_t t)
{
	return t >= cs->t_ref ? (double)(t - cs->t_ref) : -(double)(cs->t_ref - t);
}

int64_t clocksync_offset_at(const struct clocksync *cs, uint64_t t)
{
	__int128 o = (__int128)cs->offset_ns +
	             (__int128)llround(cs->drift_ppm * 1e-6 * clocksync_since_ref(cs, t));

	return o > INT64_MAX ? INT64_MAX : o < INT64_MIN ? INT64_MIN : (int64_t)o;
}

uint64_t clocksync_uncertainty_at(const struct clocksync *cs, uint64_t t)
{
	double since = fabs(clocksync_since_ref(cs, t));
	double drift_err = cs->fit_points >= 2 && cs->span_ns > 0
	                       ? (double)cs->rtt_ns / (double)cs->span_ns
	                       : CLOCKSYNC_DRIFT_PRIOR * 1e-6;

	return cs->rtt_ns / 2 + (uint64_t)llround(drift_err * since);
}
