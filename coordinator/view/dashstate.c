/* SPDX-License-Identifier: MIT */
/* What the dashboard knows about a running campaign, from its event lines alone. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dashstate.h"
#include "jsonline.h"
#include "xalloc.h"

#define DASHSTATE_MAX_WORKLOADS 4096 /* a bad index must not allocate gigabytes */

static double dashstate_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

static void dashstate_copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src != NULL ? src : "");
}

/* The workload of index idx (grown on demand), or NULL for an index no campaign has. */
static struct dashstate_workload *dashstate_wl(struct dashstate *s, double idx)
{
	size_t i;

	if (!(idx >= 0 && idx < DASHSTATE_MAX_WORKLOADS))
		return NULL;
	i = (size_t)idx;
	if (i >= s->nwl) {
		s->wl = xreallocarray(s->wl, i + 1, sizeof(*s->wl));
		memset(s->wl + s->nwl, 0, (i + 1 - s->nwl) * sizeof(*s->wl));
		s->nwl = i + 1;
	}
	return &s->wl[i];
}

static struct dashstate_agent *dashstate_agent(struct dashstate *s, const char *name)
{
	struct dashstate_agent *a;

	if (name == NULL || *name == '\0')
		return NULL;
	for (size_t i = 0; i < s->nagents; i++)
		if (strcmp(s->agents[i].name, name) == 0)
			return &s->agents[i];
	s->agents = xreallocarray(s->agents, s->nagents + 1, sizeof(*s->agents));
	a = &s->agents[s->nagents++];
	memset(a, 0, sizeof(*a));
	dashstate_copy(a->name, sizeof(a->name), name);
	a->layout_wl = -1;
	return a;
}

static void dashstate_on_campaign(struct dashstate *s, const struct jsonline *j)
{
	dashstate_copy(s->campaign, sizeof(s->campaign), jsonline_str(j, "name"));
	dashstate_copy(s->results, sizeof(s->results), jsonline_str(j, "results"));
	dashstate_copy(s->metric, sizeof(s->metric), jsonline_str(j, "metric"));
	s->slo_us = jsonline_num(j, "slo_us", 0);
	s->agents_wanted = jsonline_num(j, "agents_wanted", 0);
	s->nwl_total = jsonline_num(j, "workloads", 0);
	s->started = true;
	clock_gettime(CLOCK_MONOTONIC, &s->t0);
}

static void dashstate_on_workload(struct dashstate *s, const struct jsonline *j)
{
	struct dashstate_workload *w = dashstate_wl(s, jsonline_num(j, "workload", -1));

	if (w == NULL)
		return;
	w->seen = true;
	dashstate_copy(w->name, sizeof(w->name), jsonline_str(j, "name"));
	dashstate_copy(w->rw, sizeof(w->rw), jsonline_str(j, "rw"));
	dashstate_copy(w->unit, sizeof(w->unit), jsonline_str(j, "unit"));
	w->block_size = jsonline_num(j, "block_size", 0);
	w->workers = jsonline_num(j, "workers", 0);
	w->qd = jsonline_num(j, "qd", 0);
	w->max_steps = jsonline_num(j, "max_steps", 0);
	s->nwl_total = fmax(s->nwl_total, jsonline_num(j, "of", 0));
	s->cur_wl = (int)(w - s->wl);
	s->cur_step = -1;
	s->step_seconds = 0;
	/* The fleet lines are about the workload running: start them afresh. */
	s->nfleet = 0;
}

static void dashstate_on_step(struct dashstate *s, const struct jsonline *j)
{
	if (dashstate_wl(s, jsonline_num(j, "workload", -1)) == NULL)
		return;
	s->cur_wl = (int)jsonline_num(j, "workload", 0);
	s->cur_step = (int)jsonline_num(j, "step", 0);
	s->offered = jsonline_num(j, "offered_ops", 0);
	s->step_seconds = jsonline_num(j, "seconds", 0);
	clock_gettime(CLOCK_MONOTONIC, &s->t_step);
}

static void dashstate_on_interval(struct dashstate *s, const struct jsonline *j)
{
	const char *agent = jsonline_str(j, "agent");
	struct dashstate_agent *a;

	if (agent != NULL && strcmp(agent, "*") == 0) {
		struct dashstate_interval *f = &s->fleet[s->nfleet++ % DASHSTATE_FLEET_LINES];

		f->step = (int)jsonline_num(j, "step", 0);
		f->interval = (int)jsonline_num(j, "interval", 0);
		f->warmup = jsonline_bool(j, "warmup");
		f->ops_s = jsonline_num(j, "ops_s", NAN);
		f->mib_s = jsonline_num(j, "mib_s", NAN);
		f->mean_us = jsonline_num(j, "mean_us", NAN);
		f->p99_us = jsonline_num(j, "p99_us", NAN);
		return;
	}
	if ((a = dashstate_agent(s, agent)) == NULL)
		return;
	a->have = true;
	a->ops_s = jsonline_num(j, "ops_s", NAN);
	a->mib_s = jsonline_num(j, "mib_s", NAN);
	a->mean_us = jsonline_num(j, "mean_us", NAN);
	a->p99_us = jsonline_num(j, "p99_us", NAN);
	a->cpu_pct = jsonline_num(j, "cpu_pct", NAN);
	a->errors = jsonline_num(j, "errors", 0);
}

static void dashstate_on_point(struct dashstate *s, const struct jsonline *j)
{
	struct dashstate_workload *w = dashstate_wl(s, jsonline_num(j, "workload", -1));
	bool mib;

	if (w == NULL)
		return;
	mib = strcmp(w->unit, "MiB/s") == 0;
	w->pts = xreallocarray(w->pts, w->npts + 1, sizeof(*w->pts));
	w->pts[w->npts++] = (struct dashstate_point){
	    .offered = jsonline_num(j, "offered_ops", 0),
	    .x = jsonline_num(j, mib ? "mib_s" : "achieved_ops", NAN),
	    .y = jsonline_num(j, "metric_us", NAN),
	    .step = (int)jsonline_num(j, "step", 0),
	};
}

static void dashstate_on_other(struct dashstate *s, const char *kind, const struct jsonline *j)
{
	struct dashstate_workload *w;
	struct dashstate_agent *a;

	if (strcmp(kind, "agent") == 0 &&
	    (a = dashstate_agent(s, jsonline_str(j, "name"))) != NULL) {
		const char *state = jsonline_str(j, "state");

		a->lost = state != NULL && strcmp(state, "lost") == 0;
		dashstate_copy(a->reason, sizeof(a->reason), jsonline_str(j, "reason"));
	} else if (strcmp(kind, "layout") == 0 &&
	           (a = dashstate_agent(s, jsonline_str(j, "agent"))) != NULL) {
		a->layout_wl = (int)jsonline_num(j, "workload", -1);
		a->layout_done = jsonline_num(j, "done", 0);
		a->layout_total = jsonline_num(j, "total", 0);
	} else if (strcmp(kind, "workload_done") == 0 &&
	           (w = dashstate_wl(s, jsonline_num(j, "workload", -1))) != NULL) {
		w->done = true;
		if (!w->seen)
			dashstate_copy(w->name, sizeof(w->name), jsonline_str(j, "name"));
		if (jsonline_str(j, "unit") != NULL)
			dashstate_copy(w->unit, sizeof(w->unit), jsonline_str(j, "unit"));
		dashstate_copy(w->knee, sizeof(w->knee), jsonline_str(j, "knee"));
		dashstate_copy(w->knee_kind, sizeof(w->knee_kind), jsonline_str(j, "knee_kind"));
		dashstate_copy(w->why, sizeof(w->why), jsonline_str(j, "why"));
		w->knee_tp = jsonline_num(j, "knee_tp", 0);
		w->peak_tp = jsonline_num(j, "peak_tp", 0);
	} else if (strcmp(kind, "done") == 0) {
		s->finished = true;
		s->status = (int)jsonline_num(j, "status", 0);
		dashstate_copy(s->message, sizeof(s->message), jsonline_str(j, "message"));
		if (jsonline_str(j, "results") != NULL)
			dashstate_copy(s->results, sizeof(s->results), jsonline_str(j, "results"));
		clock_gettime(CLOCK_MONOTONIC, &s->t_end);
	}
}

void dashstate_init(struct dashstate *s)
{
	memset(s, 0, sizeof(*s));
	s->cur_wl = s->cur_step = -1;
}

void dashstate_free(struct dashstate *s)
{
	for (size_t i = 0; i < s->nwl; i++)
		free(s->wl[i].pts);
	free(s->wl);
	free(s->agents);
	dashstate_init(s);
}

bool dashstate_event(struct dashstate *s, const char *line)
{
	struct jsonline j;
	const char *kind;

	if (line == NULL || jsonline_parse(&j, line) != 0 ||
	    (kind = jsonline_str(&j, "event")) == NULL)
		return false;
	if (strcmp(kind, "campaign") == 0)
		dashstate_on_campaign(s, &j);
	else if (strcmp(kind, "workload") == 0)
		dashstate_on_workload(s, &j);
	else if (strcmp(kind, "step") == 0)
		dashstate_on_step(s, &j);
	else if (strcmp(kind, "interval") == 0)
		dashstate_on_interval(s, &j);
	else if (strcmp(kind, "point") == 0)
		dashstate_on_point(s, &j);
	else
		dashstate_on_other(s, kind, &j);
	return true;
}

double dashstate_elapsed(const struct dashstate *s)
{
	if (!s->started)
		return 0;
	if (s->finished)
		return (double)(s->t_end.tv_sec - s->t0.tv_sec) +
		       (double)(s->t_end.tv_nsec - s->t0.tv_nsec) / 1e9;
	return dashstate_since(&s->t0);
}

size_t dashstate_nfleet(const struct dashstate *s)
{
	return s->nfleet < DASHSTATE_FLEET_LINES ? s->nfleet : DASHSTATE_FLEET_LINES;
}

const struct dashstate_interval *dashstate_fleet(const struct dashstate *s, size_t i)
{
	return &s->fleet[(s->nfleet - dashstate_nfleet(s) + i) % DASHSTATE_FLEET_LINES];
}

/*
 * What is left, at most: the rest of this step, this workload's steps up to
 * the planner's bound, and the workloads to come at the same bound and step
 * length (their bounds are unknown until they start). Ramps often stop early.
 */
double dashstate_remaining(const struct dashstate *s)
{
	const struct dashstate_workload *w;
	double rem, m;

	if (s->finished || s->cur_wl < 0 || s->cur_step < 0 || s->step_seconds <= 0)
		return -1;
	w = &s->wl[s->cur_wl];
	m = w->max_steps;
	rem = fmax(0, s->step_seconds - dashstate_since(&s->t_step));
	if (s->cur_step + 1 < m)
		rem += (m - s->cur_step - 1) * s->step_seconds;
	for (int i = s->cur_wl + 1; i < (int)s->nwl_total; i++) {
		bool known = (size_t)i < s->nwl && s->wl[i].seen && s->wl[i].max_steps > 0;

		rem += (known ? s->wl[i].max_steps : m) * s->step_seconds;
	}
	return rem;
}

double dashstate_layout_pct(const struct dashstate *s)
{
	double done = 0, total = 0;

	for (size_t i = 0; i < s->nagents; i++)
		if (s->agents[i].layout_wl == s->cur_wl) {
			done += s->agents[i].layout_done;
			total += s->agents[i].layout_total;
		}
	return total > 0 && done < total && s->cur_step < 0 ? 100 * done / total : -1;
}

static int dashstate_sort_name(const void *pa, const void *pb)
{
	return strcmp(((const struct dashstate_agent *)pa)->name,
	              ((const struct dashstate_agent *)pb)->name);
}

/* Busiest or slowest first, agents without figures last; ties by name, so rows hold still. */
static int dashstate_sort_cmp(double a, double b, const void *pa, const void *pb)
{
	a = isfinite(a) ? a : -1;
	b = isfinite(b) ? b : -1;
	return a < b ? 1 : a > b ? -1 : dashstate_sort_name(pa, pb);
}

static int dashstate_sort_ops(const void *pa, const void *pb)
{
	const struct dashstate_agent *a = pa, *b = pb;

	return dashstate_sort_cmp(a->ops_s, b->ops_s, pa, pb);
}

static int dashstate_sort_mean(const void *pa, const void *pb)
{
	const struct dashstate_agent *a = pa, *b = pb;

	return dashstate_sort_cmp(a->mean_us, b->mean_us, pa, pb);
}

static int dashstate_sort_p99(const void *pa, const void *pb)
{
	const struct dashstate_agent *a = pa, *b = pb;

	return dashstate_sort_cmp(a->p99_us, b->p99_us, pa, pb);
}

static int dashstate_cmp_offered(const void *pa, const void *pb)
{
	const struct dashstate_point *a = pa, *b = pb;
	/* Offered 0 is "max": the highest load there is. */
	double oa = a->offered > 0 ? a->offered : INFINITY,
	       ob = b->offered > 0 ? b->offered : INFINITY;

	return oa < ob ? -1 : oa > ob ? 1 : a->step - b->step;
}

void dashstate_sort_agents(struct dashstate *s, enum dashstate_sort by)
{
	static int (*const cmp[DASHSTATE_SORT_N])(const void *, const void *) = {
	    dashstate_sort_name, dashstate_sort_ops, dashstate_sort_mean, dashstate_sort_p99};

	if (by < DASHSTATE_SORT_N && s->nagents > 1)
		qsort(s->agents, s->nagents, sizeof(*s->agents), cmp[by]);
}

/*
 * While a workload runs its knee is not known yet, but once a step over the
 * SLO follows one under it (in offered order, as knee_find reads them) the
 * crossing is bracketed: find it the same way the final answer will.
 */
struct knee dashstate_bracket(const struct dashstate *s, const struct dashstate_workload *w,
                              double *lo, double *hi)
{
	struct dashstate_point *pts = xcalloc(w->npts + 1, sizeof(*pts));
	struct knee_point *kp = xcalloc(w->npts + 1, sizeof(*kp));
	struct knee k;

	memcpy(pts, w->pts, w->npts * sizeof(*pts));
	qsort(pts, w->npts, sizeof(*pts), dashstate_cmp_offered);
	for (size_t i = 0; i < w->npts; i++)
		kp[i] = (struct knee_point){pts[i].x, pts[i].y};
	k = knee_find(kp, w->npts, s->slo_us);
	*lo = *hi = 0;
	if (k.kind == KNEE_INTERPOLATED) {
		*lo = pts[k.below].x;
		*hi = pts[k.above].x;
	}
	free(kp);
	free(pts);
	return k;
}
