/* SPDX-License-Identifier: MIT */
/* Step control: steps, curve (fractions of a measured peak), ramp until saturation, refine. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "planner.h"
#include "verdict.h"
#include "units.h"

/* Refinement stops when the knee's bracket is this narrow, relative to its throughput. */
#define PLANNER_KNEE_PRECISION 0.02

void planner_init(struct planner *p, const struct campaign *c, const struct workload *w)
{
	memset(p, 0, sizeof(*p));
	p->c = c;
	p->w = w;
}

const char *planner_why(const struct planner *p)
{
	return p->why;
}

/* Whether any planned step needs the peak (a % of it) before it can run. */
static bool planner_needs_peak(const struct workload *w)
{
	if (w->mode == LOAD_CURVE)
		return true;
	for (size_t i = 0; i < w->nsteps; i++)
		if (w->steps[i].peak_pct > 0)
			return true;
	return false;
}

static bool planner_pass(struct planner *p, const struct step_point *pts, size_t n, double *rate)
{
	const struct workload *w = p->w;
	const struct step_point *last = n ? &pts[n - 1] : NULL;

	if (!p->peak_known && planner_needs_peak(w)) {
		if (n == 0) {
			*rate = 0; /* the peak, closed loop, before any share of it */
			return true;
		}
		p->peak_known = true;
		p->peak_ops = last->achieved_ops;
	}
	if (w->mode == LOAD_RAMP) {
		if (n == 0) {
			*rate = w->ramp_start;
			return true;
		}
		if (verdict_saturated(p->c, last, p->why, sizeof(p->why)))
			return false;
		if (n >= w->ramp_max_steps) {
			snprintf(p->why, sizeof(p->why),
			         "ramp ended after %u steps without saturating", w->ramp_max_steps);
			return false;
		}
		*rate = w->ramp_factor > 1 ? last->offered_ops * w->ramp_factor
		                           : last->offered_ops + w->ramp_increment;
		return true;
	}
	if (p->next >= w->nsteps) {
		snprintf(p->why, sizeof(p->why), "all planned steps run");
		return false;
	}
	{
		const struct step_rate *s = &w->steps[p->next++];

		*rate = s->peak_pct > 0 ? p->peak_ops * s->peak_pct / 100.0 : s->ops;
		/* A share of a peak of nothing is nothing: run it as max rather than stall. */
		if (s->peak_pct > 0 && *rate < 1)
			*rate = 0;
	}
	return true;
}

/*
 * Refinement: bisect between the highest rated step meeting the SLO and the
 * lowest rated step above it (in offered rate), until the bracket is narrow.
 */
static bool planner_refine(struct planner *p, const struct step_point *pts, size_t n, double *rate)
{
	const struct step_point *lo = NULL, *hi = NULL;
	double slo = (double)p->c->slo_latency_ns;

	if (p->refined >= p->w->refine)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct step_point *pt = &pts[i];
		bool under;

		if (pt->offered_ops <= 0)
			continue;
		under = !verdict_short(p->c, pt) && step_metric(pt, p->c->slo_metric) <= slo;
		if (under && (lo == NULL || pt->offered_ops > lo->offered_ops))
			lo = pt;
	}
	for (size_t i = 0; i < n; i++) {
		const struct step_point *pt = &pts[i];
		bool under;

		if (pt->offered_ops <= 0 || lo == NULL || pt->offered_ops <= lo->offered_ops)
			continue;
		under = !verdict_short(p->c, pt) && step_metric(pt, p->c->slo_metric) <= slo;
		if (!under && (hi == NULL || pt->offered_ops < hi->offered_ops))
			hi = pt;
	}
	if (lo == NULL || hi == NULL) {
		snprintf(p->refine_why, sizeof(p->refine_why),
		         "no bracket around the knee to refine");
		return false;
	}
	if (hi->offered_ops - lo->offered_ops <= PLANNER_KNEE_PRECISION * lo->offered_ops) {
		snprintf(p->refine_why, sizeof(p->refine_why), "knee bracketed within %.0f%%",
		         100 * PLANNER_KNEE_PRECISION);
		return false;
	}
	*rate = (lo->offered_ops + hi->offered_ops) / 2;
	p->refined++;
	return true;
}

bool planner_next(struct planner *p, const struct step_point *pts, size_t n, double *rate)
{
	if (!p->pass_done) {
		if (planner_pass(p, pts, n, rate))
			return true;
		p->pass_done = true;
	}
	return planner_refine(p, pts, n, rate);
}
