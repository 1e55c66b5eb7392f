/* SPDX-License-Identifier: MIT */
/* The runner's observe: sources (observer.h): started, fed each step, their lines kept. */
#include <string.h>

#include "events.h"
#include "log.h"
#include "runner_core.h"
#include "runner_features.h"
#include "runner_marks.h"

/* A line's events: one per value, or one saying the source was late (the dashboard). */
static void runner_emit_observed(struct runner *r, const struct obs_line *l)
{
	struct event e = {.kind = EVENT_OBSERVED};
	size_t w = 0;

	while (w < r->c->nworkloads && strcmp(r->c->workloads[w].name, l->workload) != 0)
		w++;
	e.observed = (struct event_observed){.workload = (uint32_t)w,
	                                     .step = l->step,
	                                     .interval = l->interval,
	                                     .source = l->source,
	                                     .series = "",
	                                     .late = l->late};
	if (l->late[0] != '\0' || l->n == 0) {
		events_emit(r->ev, &e);
		return;
	}
	for (size_t i = 0; i < l->n; i++) {
		e.observed.series = l->values[i].series;
		e.observed.has = l->values[i].has;
		e.observed.value = l->values[i].has ? l->values[i].v : 0;
		events_emit(r->ev, &e);
	}
}

/* A source's line for an interval: on disk, kept for the derived files, shown. */
static void runner_observed(void *arg, const struct obs_line *l)
{
	struct runner *r = arg;
	struct error err;

	if (r->state == RUNNER_FAILED || r->state == RUNNER_CANCELLED)
		return;
	if (results_obs(r->res, l, &err) < 0) {
		if (r->state != RUNNER_DONE)
			runner_fail(r, "%s", err.msg);
		return;
	}
	obs_list_add(&r->obsl, l);
	r->end.obs = r->obsl.v;
	r->end.nobs = r->obsl.n;
	runner_emit_observed(r, l);
}

/* The observer made (token and CA files read): -1 with err naming what could not be taken. */
static int runner_observe_start(struct runner *r, struct error *err)
{
	if (r->c->nobserve == 0 || r->obs != NULL)
		return 0;
	r->obs = observer_new(r->base, r->c, runner_observed, r, err);
	return r->obs != NULL ? 0 : -1;
}

/* The step in progress started at start_ns: its boundaries are polled. */
static void runner_observe_step(struct runner *r, uint64_t start_ns, uint64_t measure_ns)
{
	const struct workload *w = runner_workload(r);

	if (r->obs == NULL)
		return;
	observer_step(r->obs, w->name, r->step, start_ns, w->interval_ns,
	              (uint32_t)((w->warmup_ns + measure_ns) / w->interval_ns));
}

/* The attempt in progress is void (retried): its polls dropped, its lines let go. */
static void runner_observe_void(struct runner *r)
{
	if (r->obs == NULL)
		return;
	observer_cancel(r->obs);
	obs_list_void(&r->obsl, runner_workload(r)->name, r->step);
	r->end.obs = r->obsl.v;
	r->end.nobs = r->obsl.n;
}

/* Every agent is done: the polls stop at the step window's last interval. */
static void runner_observe_step_end(struct runner *r, uint32_t to)
{
	if (r->obs != NULL)
		observer_step_stop(r->obs, to);
}

/*
 * A complete campaign waits for the polls of its last interval (each within its
 * deadline), so its files hold them as `report` will; any other end drops them.
 */
static bool runner_observe_end(struct runner *r, bool complete, void (*go)(void *), void *arg)
{
	if (r->obs == NULL)
		return false;
	if (!complete)
		observer_cancel(r->obs);
	observer_when_idle(r->obs, go, arg);
	return true;
}

static void runner_observe_free(struct runner *r)
{
	observer_free(r->obs);
	obs_list_free(&r->obsl);
}

const struct runner_feature runner_observe_feature = {
    .name = "observe",
    .free = runner_observe_free,
    .start = runner_observe_start,
    .step = runner_observe_step,
    .step_end = runner_observe_step_end,
    .retry = runner_observe_void,
    .end = runner_observe_end,
};

void runner_resume_observed(struct runner *r, const struct obs_kept *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		obs_list_add_kept(&r->obsl, &l[i]);
	r->end.obs = r->obsl.v;
	r->end.nobs = r->obsl.n;
}
