/* SPDX-License-Identifier: MIT */
/* The runner's marks on the timeline (marks.h): stamped, written, kept and sent. */
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "events.h"
#include "runner_core.h"
#include "runner_marks.h"

/* A mark's event (the dashboard's list, `iocurve watch`). */
static void runner_emit_mark(struct runner *r, const struct run_mark *m)
{
	size_t w = 0;

	while (w < r->c->nworkloads && strcmp(r->c->workloads[w].name, m->workload) != 0)
		w++;
	events_emit(
	    r->ev,
	    &(struct event){.kind = EVENT_MARK,
	                    .mark = {.workload = (uint32_t)w,
	                             .step = m->step,
	                             .interval = m->interval != MARK_NO_INTERVAL ? m->interval : 0,
	                             .between = m->interval == MARK_NO_INTERVAL,
	                             .at_s = (double)m->at_ns / 1e9,
	                             .text = m->text,
	                             .source = m->source,
	                             .agent = m->agent}});
}

int runner_add_mark(struct runner *r, const struct run_mark *m, struct error *err)
{
	if (results_mark(r->res, m, err) < 0)
		return -1;
	mark_list_add(&r->marks, m);
	r->end.marks = r->marks.v;
	r->end.nmarks = r->marks.n;
	runner_emit_mark(r, m);
	return 0;
}

/* One finish mark on the timeline (marks.h): worker k of agent ai, or (k < 0) the agent. */
static int runner_finish_mark(struct runner *r, uint32_t ai, int k, double at_s, struct error *err)
{
	const struct workload *w = runner_workload(r);
	const char *name = runner_agents_name(r->agents, ai);
	uint64_t at = (uint64_t)(at_s * 1e9);
	uint32_t iv = at / w->interval_ns < step_intervals(r->st) ? (uint32_t)(at / w->interval_ns)
	                                                          : MARK_NO_INTERVAL;
	struct run_mark m;
	char text[MARK_TEXT_MAX];

	if (k >= 0)
		snprintf(text, sizeof(text), "%s/w%d done", name, k);
	else
		snprintf(text, sizeof(text), "%s done", name);
	mark_set(&m, w->name, r->step, at, iv, MARK_SOURCE_FINISH, name, text);
	return runner_add_mark(r, &m, err);
}

/*
 * Fixed work: agent ai's finishes (ws[n]) marked on the timeline, each worker's while
 * the fleet has at most STORM_MAX_MARKS workers, else the agent's once all of its
 * workers are done.
 */
int runner_finish_marks(struct runner *r, uint32_t ai, const struct storm_worker *ws, size_t n,
                        struct error *err)
{
	const struct workload *w = runner_workload(r);
	bool per_agent = (size_t)runner_agents_count(r->agents) * w->io.workers > STORM_MAX_MARKS;
	double last = 0;

	for (size_t i = 0; i < n; i++) {
		const struct storm_worker *sw = &ws[i];

		if (sw->done_s < 0) {
			if (per_agent)
				return 0; /* the agent did not finish */
			continue;
		}
		if (sw->start_s + sw->done_s > last)
			last = sw->start_s + sw->done_s;
		if (!per_agent &&
		    runner_finish_mark(r, ai, (int)sw->worker, sw->start_s + sw->done_s, err) < 0)
			return -1;
	}
	return per_agent && n > 0 ? runner_finish_mark(r, ai, -1, last, err) : 0;
}

int runner_mark(struct runner *r, const char *text, const char *source, const char *agent,
                struct run_mark *out, struct error *err)
{
	const struct workload *w;
	uint64_t now = clock_now_ns(), at = 0;
	uint32_t step, interval = MARK_NO_INTERVAL;
	char why[160];

	if (!mark_text_check(text, why, sizeof(why))) {
		error_set(err, "%s", why);
		return -1;
	}
	if (r->state == RUNNER_DONE || r->state == RUNNER_FAILED || r->state == RUNNER_CANCELLED ||
	    r->w >= r->c->nworkloads) {
		error_set(err, "the campaign has ended (%s)", runner_state_name(r->state));
		return -1;
	}
	w = runner_workload(r);
	step = r->step;
	if (r->started && r->start_w == r->w && r->start_step == r->step) {
		/* the step in progress (or its retry): since its start, in an interval or not */
		at = now > r->step_start_ns ? now - r->step_start_ns : 0;
		if (r->state == RUNNER_STEPPING && now >= r->step_start_ns &&
		    at / w->interval_ns < step_intervals(r->st))
			interval = (uint32_t)(at / w->interval_ns);
	} else if (r->npoints[r->w] > 0) {
		/* between steps: after the step that ran last, past its end */
		step = r->points[r->w][r->npoints[r->w] - 1].step;
		at = r->started && r->start_w == r->w && r->start_step == step &&
		             now > r->step_start_ns
		         ? now - r->step_start_ns
		         : w->warmup_ns + w->measure_ns;
	} /* else before the workload's first step: at its start */
	mark_set(out, w->name, step, at, interval, source, agent, text);
	return runner_add_mark(r, out, err);
}

void runner_resume_marks(struct runner *r, const struct run_mark *marks, size_t n)
{
	for (size_t i = 0; i < n; i++)
		mark_list_add(&r->marks, &marks[i]);
	r->end.marks = r->marks.v;
	r->end.nmarks = r->marks.n;
}
