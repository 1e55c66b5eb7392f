/* SPDX-License-Identifier: MIT */
/* Step control: steps, curve (fractions of a measured peak), ramp until saturation, refine. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner.h"
#include "units.h"

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

static bool planner_pass(struct planner *p, const struct judged_curve *j, double *rate)
{
	const struct workload *w = p->w;
	size_t n = j->n;
	const struct step_point *last = n ? &j->sorted[j->last] : NULL;

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
		if (j->v[j->last].saturated) {
			snprintf(p->why, sizeof(p->why), "%s", j->v[j->last].why);
			return false;
		}
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
 * The confirmation rate: the knee interpolated in latency between the
 * bracket's offered rates when its upper step is valid, else the midpoint.
 */
static double planner_confirm_rate(const struct planner *p, const struct step_point *lo,
                                   const struct step_point *hi, bool hi_valid)
{
	double slo = (double)p->c->slo_latency_ns, t = 0.5;
	double llo = step_metric(lo, p->c->slo_metric), lhi = step_metric(hi, p->c->slo_metric);

	if (hi_valid && lhi > llo) {
		t = (slo - llo) / (lhi - llo);
		t = t < 0 ? 0 : t > 1 ? 1 : t;
	}
	return lo->offered_ops + t * (hi->offered_ops - lo->offered_ops);
}

/*
 * No violation above the knee, but a client-bound step: what the client could not measure
 * there it may below. Bisect between the highest step it measured and that one, so the
 * knee's bound is the storage's (a violation found) or the client's limit, found to 2%.
 */
static bool planner_refine_client(struct planner *p, const struct judged_curve *j, double *rate)
{
	double from = j->client_measured, top = j->client_bound, r = (from + top) / 2;
	bool wide = from > 0 && top - from > THRESH_PRECISION * from;

	if (top > 0 && wide && p->refined < p->w->refine) {
		p->refined++;
		*rate = j->max_achieved > from ? fmin(r, j->max_achieved) : r;
		return true;
	}
	if (!(top > 0) || !(from > 0))
		snprintf(p->refine_why, sizeof(p->refine_why),
		         "no bracket around the knee to refine");
	else if (wide)
		snprintf(p->refine_why, sizeof(p->refine_why),
		         "the refinement's steps spent below the client-bound step at %.0f ops/s",
		         top);
	else
		snprintf(p->refine_why, sizeof(p->refine_why),
		         "the client's limit found within %.0f%% (%.0f-%.0f ops/s)",
		         THRESH_PRECISION * 100, from, top);
	return false;
}

/*
 * Refinement on the judged curve: bisect the knee's bracket's offered rates,
 * never above the highest achieved rate seen, until the bracket is within 2%
 * or the budget is spent; then one confirmation step at the knee.
 */
static bool planner_refine(struct planner *p, const struct judged_curve *j, double *rate)
{
	const struct step_point *lo, *hi, *s = j->sorted;
	const struct knee *k = &j->knee;
	double cap = j->max_achieved, r, from, top, ulo, uhi;
	size_t n = j->n;

	if (!(k->bracket_hi > 0))
		return planner_refine_client(p, j, rate);
	lo = &s[k->below];
	hi = &s[k->over];
	/* repeat: N: the confirmation step again at its rate, right after it */
	if (p->confirmed && p->repeats + 1 < (p->w->repeat ? p->w->repeat : 1)) {
		p->repeats++;
		*rate = p->confirm_rate;
		return true;
	}
	/*
	 * Steps inside the bracket that were not met (undecided, or not judged):
	 * they span [ulo, uhi]. First bisect between the highest of them and the
	 * violation (offering one of them again would only repeat it); once that is
	 * within 2%, bisect between the knee's valid low end and the lowest of them,
	 * where only a valid step can raise the knee (before the confirmation step:
	 * after it the repeats follow). Without such steps both are the plain
	 * bisection of the bracket.
	 */
	from = lo->offered_ops;
	top = hi->offered_ops;
	ulo = top;
	uhi = from;
	for (size_t i = 0; i < n; i++)
		if (s[i].offered_ops > from && s[i].offered_ops < top) {
			ulo = fmin(ulo, s[i].offered_ops);
			uhi = fmax(uhi, s[i].offered_ops);
		}
	r = 0;
	if (curve_bracket_width(k) > THRESH_PRECISION && p->refined < p->w->refine) {
		if (top - uhi > THRESH_PRECISION * uhi)
			r = (uhi + top) / 2;
		else if (!p->confirmed && ulo < top && ulo - from > THRESH_PRECISION * from)
			r = (from + ulo) / 2;
	}
	/* Offering more than was ever achieved measures the backlog, not the storage. */
	if (r > cap)
		r = cap;
	if (r > from * (1 + 1e-3)) {
		p->refined++;
		*rate = r;
		return true;
	}
	if (p->w->refine > 0 && !p->w->skip_confirm && !p->confirmed) {
		r = planner_confirm_rate(p, lo, hi, j->v[k->over].valid);
		/* well below the steps that were not valid: halfway to the lowest of them */
		if (ulo < top && r > (from + ulo) / 2)
			r = (from + ulo) / 2;
		if (r > cap)
			r = cap;
		if (r > lo->offered_ops * (1 + 1e-3) && r < hi->offered_ops) {
			p->confirmed = true;
			p->confirm_rate = r;
			*rate = r;
			return true;
		}
	}
	if (p->repeats > 0)
		snprintf(p->refine_why, sizeof(p->refine_why),
		         "knee %s after a confirmation step run %u times", j->precision,
		         p->repeats + 1);
	else
		snprintf(p->refine_why, sizeof(p->refine_why), "knee %s%s", j->precision,
		         p->confirmed ? " after a confirmation step" : "");
	return false;
}

bool planner_next(struct planner *p, const struct judged_curve *j, double *rate)
{
	if (!p->pass_done) {
		if (planner_pass(p, j, rate))
			return true;
		p->pass_done = true;
	}
	return planner_refine(p, j, rate);
}
