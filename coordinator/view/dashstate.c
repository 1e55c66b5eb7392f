/* SPDX-License-Identifier: MIT */
/* What the dashboard knows about a running campaign, from its events alone. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dashstate.h"
#include "text.h"
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
static struct dashstate_workload *dashstate_wl(struct dashstate *s, uint32_t idx)
{
	size_t i;

	if (idx >= DASHSTATE_MAX_WORKLOADS)
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

static void dashstate_on_campaign(struct dashstate *s, const struct event_campaign *c)
{
	dashstate_copy(s->campaign, sizeof(s->campaign), c->name);
	dashstate_copy(s->results, sizeof(s->results), c->results);
	dashstate_copy(s->metric, sizeof(s->metric), c->metric);
	s->slo_us = c->slo_us;
	s->agents_wanted = c->agents_wanted;
	s->nwl_total = c->workloads;
	s->started = true;
	clock_gettime(CLOCK_MONOTONIC, &s->t0);
}

static void dashstate_on_workload(struct dashstate *s, const struct event_workload *e)
{
	struct dashstate_workload *w = dashstate_wl(s, e->workload);

	if (w == NULL)
		return;
	w->seen = true;
	dashstate_copy(w->name, sizeof(w->name), e->name);
	dashstate_copy(w->rw, sizeof(w->rw), e->rw);
	dashstate_copy(w->unit, sizeof(w->unit), event_unit_name(e->unit));
	w->block_size = e->block_size;
	w->workers = e->workers;
	w->qd = e->qd;
	w->max_steps = e->max_steps;
	s->nwl_total = fmax(s->nwl_total, e->of);
	s->cur_wl = (int)(w - s->wl);
	s->cur_step = -1;
	s->step_seconds = 0;
	/* The fleet lines are about the workload running: start them afresh. */
	s->nfleet = 0;
}

static void dashstate_on_step(struct dashstate *s, const struct event_step *e)
{
	if (dashstate_wl(s, e->workload) == NULL)
		return;
	s->cur_wl = (int)e->workload;
	s->cur_step = (int)e->step;
	s->offered = e->offered_ops;
	s->step_seconds = e->seconds;
	clock_gettime(CLOCK_MONOTONIC, &s->t_step);
}

/* A mark: a row of its own among the fleet's intervals. */
static void dashstate_on_mark(struct dashstate *s, const struct event_mark *e)
{
	struct dashstate_interval *f = &s->fleet[s->nfleet++ % DASHSTATE_FLEET_LINES];

	*f = (struct dashstate_interval){.step = (int)e->step,
	                                 .interval = e->between ? -1 : (int)e->interval};
	text_clean(e->text, f->mark, sizeof(f->mark), false); /* cut on a character's edge */
	if (f->mark[0] == '\0')
		dashstate_copy(f->mark, sizeof(f->mark), "?");
	dashstate_copy(s->last_mark, sizeof(s->last_mark), f->mark);
	s->last_mark_step = f->step;
}

/* The row of key, made when there is room; NULL when there is none. */
static struct dashstate_observed *dashstate_observed_row(struct dashstate *s, const char *key)
{
	struct dashstate_observed *o;

	for (size_t i = 0; i < s->nobserved; i++)
		if (strcmp(s->observed[i].key, key) == 0)
			return &s->observed[i];
	if (s->nobserved == DASHSTATE_OBSERVED_MAX)
		return NULL;
	o = &s->observed[s->nobserved++];
	*o = (struct dashstate_observed){.step = -1, .interval = -1};
	dashstate_copy(o->key, sizeof(o->key), key);
	return o;
}

/*
 * A value replaces its series' last one; a source's silence marks each of its series
 * (their last values kept, said to be stale) or, before any value, the source's own row.
 */
static void dashstate_on_observed(struct dashstate *s, const struct event_observed *e)
{
	char raw[160], key[96], src[64];
	size_t marked = 0, n;
	struct dashstate_observed *o;

	text_clean(e->source, src, sizeof(src), false);
	if (e->late != NULL && e->late[0] != '\0') {
		n = strlen(src);
		for (size_t i = 0; i < s->nobserved; i++)
			if (strncmp(s->observed[i].key, src, n) == 0 &&
			    s->observed[i].key[n] == '/') {
				text_clean(e->late, s->observed[i].late,
				           sizeof(s->observed[i].late), false);
				marked++;
			}
		if (marked == 0 && (o = dashstate_observed_row(s, src)) != NULL)
			text_clean(e->late, o->late, sizeof(o->late), false);
		return;
	}
	snprintf(raw, sizeof(raw), "%s/%s", src, e->series != NULL ? e->series : "");
	text_clean(raw, key, sizeof(key), false);
	if ((o = dashstate_observed_row(s, key)) == NULL)
		return;
	o->has = e->has;
	o->value = e->value;
	o->step = (int)e->step;
	o->interval = (int)e->interval;
	o->late[0] = '\0';
	/* the source answered: its own "silent" row, if it had one, is history */
	for (size_t i = 0; i < s->nobserved; i++)
		if (strcmp(s->observed[i].key, src) == 0)
			s->observed[i].late[0] = '\0';
}

static void dashstate_on_interval(struct dashstate *s, const struct event_interval *e)
{
	struct dashstate_agent *a;

	if (strcmp(e->agent, EVENT_FLEET) == 0) {
		s->fleet[s->nfleet++ % DASHSTATE_FLEET_LINES] = (struct dashstate_interval){
		    .step = (int)e->step,
		    .interval = (int)e->interval,
		    .warmup = e->warmup,
		    .ops_s = e->ops_s,
		    .mib_s = e->mib_s,
		    .mean_us = e->mean_us,
		    .p99_us = e->p99_us,
		};
		return;
	}
	if ((a = dashstate_agent(s, e->agent)) == NULL)
		return;
	a->have = true;
	a->ops_s = e->ops_s;
	a->mib_s = e->mib_s;
	a->mean_us = e->mean_us;
	a->p99_us = e->p99_us;
	a->cpu_pct = e->cpu_pct;
	a->errors = (double)e->errors;
}

static void dashstate_on_point(struct dashstate *s, const struct event_point *e)
{
	struct dashstate_workload *w = dashstate_wl(s, e->workload);

	if (w == NULL)
		return;
	w->pts = xreallocarray(w->pts, w->npts + 1, sizeof(*w->pts));
	w->pts[w->npts++] = (struct dashstate_point){
	    .offered = e->offered_ops,
	    .x = strcmp(w->unit, "MiB/s") == 0 ? e->mib_s : e->achieved_ops,
	    .y = e->metric_us,
	    .step = (int)e->step,
	};
	w->knee = e->knee;
}

static void dashstate_on_workload_done(struct dashstate *s, const struct event_workload_done *e)
{
	struct dashstate_workload *w = dashstate_wl(s, e->workload);

	if (w == NULL)
		return;
	w->done = true;
	if (!w->seen)
		dashstate_copy(w->name, sizeof(w->name), e->name);
	dashstate_copy(w->unit, sizeof(w->unit), event_unit_name(e->unit));
	dashstate_copy(w->knee_text, sizeof(w->knee_text), e->knee_text);
	dashstate_copy(w->why, sizeof(w->why), e->why);
	w->knee = e->knee;
	w->peak_tp = e->peak_tp;
	w->knee_speed = e->knee_speed;
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

bool dashstate_event(struct dashstate *s, const struct event *e)
{
	struct dashstate_agent *a;

	switch (e->kind) {
	case EVENT_CAMPAIGN:
		dashstate_on_campaign(s, &e->campaign);
		break;
	case EVENT_AGENT:
		if ((a = dashstate_agent(s, e->agent.name)) == NULL)
			return false;
		a->lost = e->agent.state == EVENT_AGENT_LOST;
		dashstate_copy(a->reason, sizeof(a->reason), e->agent.reason);
		break;
	case EVENT_WORKLOAD:
		dashstate_on_workload(s, &e->workload);
		break;
	case EVENT_LAYOUT:
		if ((a = dashstate_agent(s, e->layout.agent)) == NULL)
			return false;
		a->layout_wl = (int)e->layout.workload;
		a->layout_done = (double)e->layout.done;
		a->layout_total = (double)e->layout.total;
		break;
	case EVENT_STEP:
		dashstate_on_step(s, &e->step);
		break;
	case EVENT_INTERVAL:
		dashstate_on_interval(s, &e->interval);
		break;
	case EVENT_POINT:
		dashstate_on_point(s, &e->point);
		break;
	case EVENT_WORKLOAD_DONE:
		dashstate_on_workload_done(s, &e->workload_done);
		break;
	case EVENT_MARK:
		dashstate_on_mark(s, &e->mark);
		break;
	case EVENT_OBSERVED:
		dashstate_on_observed(s, &e->observed);
		break;
	case EVENT_DONE:
		s->finished = true;
		s->status = e->done.status;
		dashstate_copy(s->message, sizeof(s->message), e->done.message);
		if (e->done.results != NULL && e->done.results[0] != '\0')
			dashstate_copy(s->results, sizeof(s->results), e->done.results);
		clock_gettime(CLOCK_MONOTONIC, &s->t_end);
		break;
	default:
		return false;
	}
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

void dashstate_sort_agents(struct dashstate *s, enum dashstate_sort by)
{
	static int (*const cmp[DASHSTATE_SORT_N])(const void *, const void *) = {
	    dashstate_sort_name, dashstate_sort_ops, dashstate_sort_mean, dashstate_sort_p99};

	if (by < DASHSTATE_SORT_N && s->nagents > 1)
		qsort(s->agents, s->nagents, sizeof(*s->agents), cmp[by]);
}
