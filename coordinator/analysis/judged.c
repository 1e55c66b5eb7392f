/* SPDX-License-Identifier: MIT */
/* A workload's curve judged once per step: each rule of curve.c and verdict.c run once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bgfig.h"
#include "judged.h"
#include "limit.h"
#include "xalloc.h"

/* Where point p (of the run) went in curve order: a step's index in run order is its own. */
static size_t judged_find(const struct judged_curve *j, const struct step_point *p)
{
	for (size_t i = 0; i < j->n; i++)
		if (j->sorted[i].step == p->step)
			return i;
	return 0;
}

static void judged_point(const struct campaign *c, const struct workload *w,
                         const struct step_point *p, struct judged_point *v)
{
	v->reasons = verdict_point(p);
	v->valid = v->reasons == 0;
	v->slo = verdict_judge(c, p);
	v->violates = v->slo == VERDICT_VIOLATED;
	v->meets = v->slo == VERDICT_MET;
	v->why[0] = '\0';
	v->saturated = verdict_saturated(c, p, v->why, sizeof(v->why));
	if (v->valid) {
		snprintf(v->words, sizeof(v->words), "%s", verdict_slo_word(v->slo));
	} else if (v->slo == VERDICT_VIOLATED) {
		char why[sizeof(v->words) - 16];

		verdict_words(p, v->reasons, why, sizeof(why));
		snprintf(v->words, sizeof(v->words), "violated; %s", why);
	} else {
		verdict_words(p, v->reasons, v->words, sizeof(v->words));
	}
	if (p->bg.on && !bgfig_kept_up(p)) {
		/* the point stands, but not for the load the campaign asked about */
		char bg[160];
		size_t used = strlen(v->words);

		bgfig_words(p, bg, sizeof(bg));
		snprintf(v->words + used, sizeof(v->words) - used,
		         "; background %s: the foreground's knee was measured with less "
		         "background than asked",
		         bg);
	}
	v->tp = curve_throughput(w, p);
	v->offered_tp = curve_offered_tp(w, p);
}

/* The limit's client-bound words gain what disturbed the client at the first such step. */
static void judged_client_cause(struct judged_curve *j)
{
	char cause[256], change[160];
	size_t used = strlen(j->limit);

	for (size_t i = 0; i < j->n; i++) {
		if (j->sorted[i].offered_ops != j->client_bound || !j->sorted[i].client.bound)
			continue;
		verdict_client_cause(&j->sorted[i], cause, sizeof(cause), change, sizeof(change));
		/* in a fleet, the client most disturbed, named */
		if (j->sorted[i].client.worst_agent[0] != '\0' && used < sizeof(j->limit))
			used += (size_t)snprintf(j->limit + used, sizeof(j->limit) - used,
			                         " (most on agent %s: %.0fus mean client delay)",
			                         j->sorted[i].client.worst_agent,
			                         j->sorted[i].client.worst_ns / 1e3);
		if (cause[0] != '\0' && used < sizeof(j->limit))
			snprintf(j->limit + used, sizeof(j->limit) - used, "; %s", cause);
		return;
	}
}

void judged_update(struct judged_curve *j, const struct campaign *c, const struct workload *w,
                   const struct step_point *pts, size_t n)
{
	const struct step_point *first;

	judged_free(j);
	j->c = c;
	j->w = w;
	j->n = n;
	j->sorted = curve_sorted(pts, n);
	j->v = xcalloc(n ? n : 1, sizeof(*j->v));
	for (size_t i = 0; i < n; i++)
		judged_point(c, w, &j->sorted[i], &j->v[i]);
	j->last = n ? judged_find(j, &pts[n - 1]) : 0;
	j->knee = curve_knee(c, w, j->sorted, n);
	/*
	 * A client-bound step above the knee's: the figures above the measured step are
	 * the client's, not the device's, so no line is drawn to them and nothing is
	 * confirmed; the knee is a lower bound, and every word below says so.
	 */
	j->client_bound = curve_client_bound(&j->knee, j->sorted, n, &j->client_measured);
	if (j->client_bound > 0) {
		if (j->knee.kind == KNEE_INTERPOLATED) {
			j->knee.kind = KNEE_AT_STEP;
			j->knee.throughput = j->knee.bracket_lo;
			j->knee.above = j->knee.below;
		}
		j->knee.confirmed = false;
	}
	j->width = curve_band_width(&j->knee);
	j->digits = curve_knee_digits(&j->knee);
	j->capped = curve_capped(&j->knee, j->sorted, n);
	j->kind = curve_knee_kind(&j->knee);
	curve_knee_precision(c, w, &j->knee, j->sorted, n, j->precision, sizeof(j->precision));
	curve_knee_advice(c, w, &j->knee, j->sorted, n, j->advice, sizeof(j->advice));
	j->max_achieved = curve_max_achieved(j->sorted, n);
	j->peak = curve_peak(w, j->sorted, n);
	j->peak_tp = j->peak ? j->v[j->peak - j->sorted].tp : 0;
	j->sustained = curve_sustained(w, j->sorted, n);
	ratecap_judge(j->sorted, n, &j->ratecap);
	j->limit_word = limit_judge(c, w, j->sorted, n, &j->ratecap, j->limit, sizeof(j->limit));
	/*
	 * A disturbed client makes the knee a lower bound; a cap is still the
	 * storage's (its evidence is throughput and service time, not the client's
	 * lateness), so it is said first.
	 */
	if (j->client_bound > 0) {
		char cap[sizeof(j->limit)];
		size_t used;

		ratecap_words(&j->ratecap, cap, sizeof(cap));
		used =
		    (size_t)snprintf(j->limit, sizeof(j->limit), "%s%s", cap, cap[0] ? "; " : "");
		if (used >= sizeof(j->limit))
			used = sizeof(j->limit) - 1;
		if (j->client_measured > 0)
			snprintf(j->limit + used, sizeof(j->limit) - used,
			         "client-bound: this client could not measure above %.0f ops/s "
			         "(disturbed from %.0f ops/s)",
			         j->client_measured, j->client_bound);
		else
			snprintf(j->limit + used, sizeof(j->limit) - used,
			         "client-bound: this client could not measure even %.0f ops/s, the "
			         "lowest rate offered",
			         j->client_bound);
		j->limit_word = "client";
		judged_client_cause(j);
	}
	curve_repeats(c, w, j->sorted, n, &j->repeats);
	/* the first failure as the run met it, not as the curve orders the steps */
	j->errors = curve_errors(pts, n, &first);
	j->first_error = first ? &j->sorted[judged_find(j, first)] : NULL;
}

void judged_free(struct judged_curve *j)
{
	free(j->sorted);
	free(j->v);
	memset(j, 0, sizeof(*j));
	j->kind = curve_knee_kind(&j->knee);
}

struct judged_curve *judged_all(const struct campaign *c, const struct step_point *const *pts,
                                const size_t *npts)
{
	struct judged_curve *j = xcalloc(c->nworkloads ? c->nworkloads : 1, sizeof(*j));

	for (size_t i = 0; i < c->nworkloads; i++)
		judged_update(&j[i], c, &c->workloads[i], pts[i], npts[i]);
	return j;
}

void judged_free_all(struct judged_curve *j, size_t n)
{
	for (size_t i = 0; j != NULL && i < n; i++)
		judged_free(&j[i]);
	free(j);
}
