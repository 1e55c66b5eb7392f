/* SPDX-License-Identifier: MIT */
/* Find the knee of a throughput/latency curve: the throughput sustained at the SLO. */
#include <stdbool.h>

#include "knee.h"

/* Written as comparisons that are false for NaN, so a NaN step is neither. */
static bool knee_under(double latency, double slo)
{
	return latency <= slo;
}

static bool knee_over(double latency, double slo)
{
	return latency > slo;
}

/*
 * Linear in latency between a step at or under the SLO and the next step over
 * it. t is clamped to [0, 1] (NaN to 0) so that infinities in the input cannot
 * carry the answer outside the two measured throughputs.
 */
static double knee_interpolate(const struct knee_point *lo, const struct knee_point *hi, double slo)
{
	double t = (slo - lo->latency) / (hi->latency - lo->latency);

	if (!(t >= 0.0))
		t = 0.0;
	if (t > 1.0)
		t = 1.0;
	return lo->throughput + t * (hi->throughput - lo->throughput);
}

struct knee knee_find(const struct knee_point *points, size_t n, double slo)
{
	struct knee k = {.kind = KNEE_NONE};
	bool any_under = false, any_over = false, have = false, best_is_cross = false;
	double best = 0.0, v;
	size_t i, best_i = 0;

	if (n == 0)
		return k;
	for (i = 0; i < n; i++) {
		if (knee_over(points[i].latency, slo))
			any_over = true;
		if (!knee_under(points[i].latency, slo))
			continue;
		any_under = true;
		v = points[i].throughput;
		if (!have || v > best) {
			best = v;
			best_i = i;
			best_is_cross = false;
			have = true;
		}
		if (i + 1 < n && knee_over(points[i + 1].latency, slo)) {
			v = knee_interpolate(&points[i], &points[i + 1], slo);
			/* A crossing wins a tie: it says more about where the SLO is met. */
			if (v > best || (v == best && !best_is_cross)) {
				best = v;
				best_i = i;
				best_is_cross = true;
			}
		}
	}

	if (!any_under) {
		k.kind = KNEE_ALL_OVER;
		return k;
	}
	k.throughput = best;
	k.below = best_i;
	k.above = best_is_cross ? best_i + 1 : best_i;
	if (best_is_cross)
		k.kind = KNEE_INTERPOLATED;
	else if (any_over)
		k.kind = KNEE_AT_STEP;
	else
		k.kind = KNEE_ALL_UNDER;
	return k;
}
