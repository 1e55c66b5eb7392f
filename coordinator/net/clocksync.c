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

/* Whether window point i goes into the line: not much slower than the quickest. */
static bool clocksync_used(const struct clocksync *cs, unsigned i)
{
	return cs->window[i].rtt_ns <= 2 * cs->rtt_ns + CLOCKSYNC_RTT_SLACK_NS;
}

/* Point i's time before the newest point, in seconds (<= 0). */
static double clocksync_x(const struct clocksync *cs, const struct clocksync_point *last,
                          unsigned i)
{
	return -(double)(last->t - cs->window[i].t) / 1e9;
}

/* Point i's offset less the newest point's, ns. */
static double clocksync_y(const struct clocksync *cs, const struct clocksync_point *last,
                          unsigned i)
{
	return (double)(__int128)((__int128)cs->window[i].offset_ns - last->offset_ns);
}

/*
 * The spread a used point's offset may have: its error lies within half its round
 * trip, taken as even over that range (variance (rtt/2)^2 / 3), averaged over the
 * points. Over CLOCKSYNC_DRIFT_PRIOR^2 it is how much span (s^2 of Sxx) the line
 * needs before the drift it reads counts for half: a few ms of round trip read over
 * a few seconds cannot tell a drift from the legs' jitter.
 */
static double clocksync_shrink(const struct clocksync *cs)
{
	double v = 0, n = 0, tau = CLOCKSYNC_DRIFT_PRIOR * 1e-6 * 1e9; /* ns per s */

	for (unsigned i = 0; i < cs->nwindow; i++)
		if (clocksync_used(cs, i)) {
			double h = (double)cs->window[i].rtt_ns / 2;

			v += h * h / 3;
			n++;
		}
	return n > 0 ? v / n / (tau * tau) : 0;
}

/*
 * A line through the window's quick points, relative to the newest one: the offset
 * their mean, the drift least squares with the prior that clocks drift little
 * (ridge, CLOCKSYNC_DRIFT_PRIOR): Sxy / (Sxx + shrink). Over a long span it is the
 * plain fit; over seconds of a slow link it stays near zero instead of reading the
 * jitter as drift.
 */
static void clocksync_fit(struct clocksync *cs)
{
	const struct clocksync_point *last = &cs->window[cs->nwindow - 1];
	uint64_t min_rtt = UINT64_MAX;
	double mx = 0, my = 0, sxx = 0, sxy = 0, n = 0, b;

	for (unsigned i = 0; i < cs->nwindow; i++)
		if (cs->window[i].rtt_ns < min_rtt)
			min_rtt = cs->window[i].rtt_ns;
	cs->rtt_ns = min_rtt;
	for (unsigned i = 0; i < cs->nwindow; i++)
		if (clocksync_used(cs, i)) {
			mx += clocksync_x(cs, last, i);
			my += clocksync_y(cs, last, i);
			n++;
		}
	mx /= n;
	my /= n;
	for (unsigned i = 0; i < cs->nwindow; i++)
		if (clocksync_used(cs, i)) {
			double dx = clocksync_x(cs, last, i) - mx;

			sxx += dx * dx;
			sxy += dx * (clocksync_y(cs, last, i) - my);
		}
	/* x in seconds, y in ns: b in ns per s, ppm * 1e3 */
	b = sxy / (sxx + clocksync_shrink(cs));
	b = fmin(fmax(b, -CLOCKSYNC_DRIFT_MAX * 1e3), CLOCKSYNC_DRIFT_MAX * 1e3);
	cs->t_ref = last->t;
	cs->offset_ns = (int64_t)((__int128)last->offset_ns + (__int128)llround(my - b * mx));
	cs->drift_ppm = b / 1e3;
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

bool clocksync_round_settled(const struct clocksync *cs)
{
	return cs->have_best && cs->nwindow > 0 &&
	       cs->best.rtt_ns <= cs->rtt_ns + CLOCKSYNC_RTT_SLACK_NS;
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

/*
 * Each point's offset is within half its round trip of the truth; the line is a
 * weighted sum of the points' offsets, so its error at t is at most the sum of
 * those half round trips, each times the magnitude of its weight at t:
 * |1/n + (x_i - mean x)(t - mean x) / (Sxx + shrink)|, plus what the shrink holds
 * back of a drift up to CLOCKSYNC_DRIFT_PRIOR: prior * |t - mean x| * shrink /
 * (Sxx + shrink). With one point (Sxx = 0) that is the whole prior from the point on.
 */
uint64_t clocksync_uncertainty_at(const struct clocksync *cs, uint64_t t)
{
	double n = 0, mx = 0, sxx = 0, xt = clocksync_since_ref(cs, t) / 1e9, u = 0;
	double shrink = clocksync_shrink(cs);

	for (unsigned i = 0; i < cs->nwindow; i++)
		if (clocksync_used(cs, i)) {
			mx += clocksync_since_ref(cs, cs->window[i].t) / 1e9;
			n++;
		}
	if (n == 0)
		return 0;
	mx /= n;
	for (unsigned i = 0; i < cs->nwindow; i++)
		if (clocksync_used(cs, i))
			sxx += pow(clocksync_since_ref(cs, cs->window[i].t) / 1e9 - mx, 2);
	for (unsigned i = 0; i < cs->nwindow; i++) {
		double x = clocksync_since_ref(cs, cs->window[i].t) / 1e9;

		if (clocksync_used(cs, i))
			u += (double)cs->window[i].rtt_ns / 2 *
			     fabs(1 / n + (x - mx) * (xt - mx) / (sxx + shrink));
	}
	u += CLOCKSYNC_DRIFT_PRIOR * 1e3 * fabs(xt - mx) * shrink / (sxx + shrink);
	return (uint64_t)llround(u);
}
