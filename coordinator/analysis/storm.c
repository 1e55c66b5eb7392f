/* SPDX-License-Identifier: MIT */
/* Fixed work's completion times: per worker, per agent and for the fleet. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storm.h"
#include "xalloc.h"

static int storm_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank percentile of sorted v[n]: the smallest value with pct% at or below it. */
static double storm_rank(const double *v, size_t n, double pct)
{
	size_t k = (size_t)ceil(pct / 100.0 * (double)n);

	return v[k > 0 ? k - 1 : 0];
}

void storm_stats_of(double *v, size_t n, struct storm_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->n = (uint32_t)n;
	if (n == 0)
		return;
	qsort(v, n, sizeof(*v), storm_cmp);
	out->min_s = v[0];
	out->median_s = storm_rank(v, n, 50);
	out->p90_s = storm_rank(v, n, 90);
	out->max_s = v[n - 1];
}

/* Agent a's completion: its first worker's start to its last worker's finish; < 0: not all did. */
static double storm_agent(const struct storm_worker *ws, size_t n, uint32_t a, double *finish)
{
	double first = INFINITY, last = 0;
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		if (ws[i].agent != a)
			continue;
		any = true;
		if (ws[i].done_s < 0)
			return -1;
		if (ws[i].start_s < first)
			first = ws[i].start_s;
		if (ws[i].start_s + ws[i].done_s > last)
			last = ws[i].start_s + ws[i].done_s;
	}
	*finish = last;
	return any ? last - first : -1;
}

static void storm_mark(struct storm *s, double at, const char *agent, int worker)
{
	if (s->nmarks >= STORM_MAX_MARKS)
		return;
	s->mark_s[s->nmarks] = at;
	if (worker >= 0)
		snprintf(s->mark_label[s->nmarks], STORM_LABEL_MAX, "%s/w%d", agent, worker);
	else
		snprintf(s->mark_label[s->nmarks], STORM_LABEL_MAX, "%s", agent);
	s->nmarks++;
}

/* Marks in time order (then by label): the same whatever order the agents reported in. */
static void storm_sort_marks(struct storm *s)
{
	for (uint32_t i = 1; i < s->nmarks; i++)
		for (uint32_t j = i; j > 0; j--) {
			double t;
			char l[STORM_LABEL_MAX];

			if (s->mark_s[j - 1] < s->mark_s[j] ||
			    (s->mark_s[j - 1] == s->mark_s[j] &&
			     strcmp(s->mark_label[j - 1], s->mark_label[j]) <= 0))
				break;
			t = s->mark_s[j];
			s->mark_s[j] = s->mark_s[j - 1];
			s->mark_s[j - 1] = t;
			memcpy(l, s->mark_label[j], sizeof(l));
			memcpy(s->mark_label[j], s->mark_label[j - 1], sizeof(l));
			memcpy(s->mark_label[j - 1], l, sizeof(l));
		}
}

void storm_compute(struct storm *s, const struct storm_worker *ws, size_t n, uint32_t nagents,
                   const char *const *names, uint64_t work_ops)
{
	double *v = xcalloc(n + nagents + 1, sizeof(*v));
	size_t k = 0;
	char buf[16];

	memset(s, 0, sizeof(*s));
	s->on = true;
	s->work_ops = work_ops;
	s->workers = (uint32_t)n;
	s->least_pct = n ? 100 : 0;
	s->first_start_s = n ? INFINITY : 0;
	s->marks_per_agent = n > STORM_MAX_MARKS;
	for (size_t i = 0; i < n; i++) {
		double pct = work_ops ? 100.0 * (double)ws[i].ops / (double)work_ops : 0;

		s->ops += ws[i].ops;
		if (pct < s->least_pct)
			s->least_pct = pct;
		if (ws[i].start_s < s->first_start_s)
			s->first_start_s = ws[i].start_s;
		if (ws[i].done_s < 0)
			continue;
		s->finished++;
		v[k++] = ws[i].done_s;
		if (ws[i].start_s + ws[i].done_s > s->last_finish_s)
			s->last_finish_s = ws[i].start_s + ws[i].done_s;
		if (!s->marks_per_agent) {
			snprintf(buf, sizeof(buf), "a%u", ws[i].agent);
			storm_mark(s, ws[i].start_s + ws[i].done_s,
			           names != NULL && ws[i].agent < nagents ? names[ws[i].agent]
			                                                  : buf,
			           (int)ws[i].worker);
		}
	}
	storm_stats_of(v, k, &s->worker);
	k = 0;
	for (uint32_t a = 0; a < nagents; a++) {
		double finish = 0, c;
		bool has = false;

		for (size_t i = 0; i < n && !has; i++)
			has = ws[i].agent == a;
		if (!has)
			continue;
		s->agents++;
		c = storm_agent(ws, n, a, &finish);
		if (c < 0)
			continue;
		s->agents_done++;
		v[k++] = c;
		if (s->marks_per_agent) {
			snprintf(buf, sizeof(buf), "a%u", a);
			storm_mark(s, finish, names != NULL ? names[a] : buf, -1);
		}
	}
	storm_stats_of(v, k, &s->agent);
	storm_sort_marks(s);
	if (s->finished > 0)
		s->storm_s = s->last_finish_s - s->first_start_s;
	free(v);
}

void storm_text(const struct storm *s, char *buf, size_t len)
{
	if (s->workers == 0) {
		snprintf(buf, len, "Fixed work: no worker reported");
		return;
	}
	if (s->finished < s->workers) {
		snprintf(
		    buf, len,
		    "Fixed work UNFINISHED: %u of %u workers did all of their work before the "
		    "deadline (the least advanced %.1f%% of it); of those, completion min %.3f "
		    "s, median %.3f s, p90 %.3f s, max %.3f s (no knee: one step, not a curve)",
		    s->finished, s->workers, s->least_pct, s->worker.min_s, s->worker.median_s,
		    s->worker.p90_s, s->worker.max_s);
		return;
	}
	snprintf(buf, len,
	         "Storm: %.3f s from the first start to the last finish (%u workers on %u agents); "
	         "per worker min %.3f s, median %.3f s, p90 %.3f s, max %.3f s; per agent min "
	         "%.3f s, median %.3f s, p90 %.3f s, max %.3f s (no knee: fixed work is one "
	         "step, not a curve)",
	         s->storm_s, s->workers, s->agents, s->worker.min_s, s->worker.median_s,
	         s->worker.p90_s, s->worker.max_s, s->agent.min_s, s->agent.median_s,
	         s->agent.p90_s, s->agent.max_s);
}
