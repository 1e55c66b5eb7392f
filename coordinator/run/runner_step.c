/* SPDX-License-Identifier: MIT */
/*
 * The runner's stepping and cooling states: a step's start, its interval reports fed
 * to its step object (analysis/step.h) and written, its end, point and what comes
 * next; a cooldown's probes before a step.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "derive.h"
#include "events.h"
#include "log.h"
#include "runner_core.h"
#include "runner_features.h"
#include "runner_work.h"
#include "xalloc.h"

/*
 * An agent's step starts after its StartStep was sent and before its StepDone came
 * back; brought onto the coordinator's clock, it may lie outside that span by the
 * clock model's uncertainty and this much more (a model off by more is no clock line).
 */
#define RUNNER_START_SLACK_NS NSEC_PER_SEC

/* The agents present (compacted first) by name, for a new step: *n of them. */
static const char **runner_step_names(struct runner *r, uint32_t *n)
{
	const char **names;

	runner_agents_compact(r->agents);
	*n = runner_agents_count(r->agents);
	names = xcalloc(*n ? *n : 1, sizeof(*names));
	for (uint32_t i = 0; i < *n; i++)
		names[i] = runner_agents_name(r->agents, i);
	return names;
}

/*
 * StartStep for step `step` to every agent present: `rate` split over their
 * workers, one start time on the coordinator's clock that each agent moves onto
 * its own. Returns how long until the start.
 */
static uint64_t runner_send_start(struct runner *r, double rate, uint64_t warmup_ns,
                                  uint64_t measure_ns, uint64_t interval_ns)
{
	const struct workload *w = runner_workload(r);
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__StartStep ss = IOCURVE__START_STEP__INIT;
	uint32_t n = runner_agents_count(r->agents);
	double *rates = xcalloc(w->io.workers, sizeof(*rates));
	uint64_t lead = RUNNER_LEAD_NS + 4 * runner_agents_max_rtt(r->agents);

	for (uint32_t k = 0; k < w->io.workers; k++)
		rates[k] = n ? rate / ((double)n * w->io.workers) : 0;
	ss.workload_index = (uint32_t)r->w;
	ss.step = r->step;
	ss.n_worker_rate = w->io.workers;
	ss.worker_rate = rates;
	ss.start_time = clock_now_ns() + lead;
	ss.warmup_ns = warmup_ns;
	ss.measure_ns = measure_ns;
	ss.interval_ns = interval_ns;
	env.body_case = IOCURVE__ENVELOPE__BODY_START_STEP;
	env.start_step = &ss;
	if (w->work.on && r->state == RUNNER_STEPPING) {
		/* fixed work (not a probe): each worker's share, think time and start */
		ss.work_ops = w->work.ops;
		ss.think_ns = w->work.think_ns;
		ss.n_worker_start_ns = w->io.workers;
		ss.worker_start_ns = xcalloc(w->io.workers, sizeof(*ss.worker_start_ns));
	}
	for (uint32_t i = 0; i < n; i++) {
		ss.clock_offset = runner_agents_plan_start(r->agents, i, ss.start_time);
		for (uint32_t k = 0; k < ss.n_worker_start_ns; k++)
			ss.worker_start_ns[k] = runner_work_offset(w, i * w->io.workers + k, n);
		runner_agents_send(r->agents, i, &env);
	}
	free(ss.worker_start_ns);
	free(rates);
	return lead;
}

/*
 * The intervals the next step may run on past its planned ones: steady.extend, within what
 * the workload's earlier steps left of steady.budget (their points say what they used).
 */
static uint32_t runner_extend_left(const struct runner *r)
{
	const struct workload *w = runner_workload(r);
	uint64_t measured = w->measure_ns / w->interval_ns, used = 0, budget;

	for (size_t i = 0; i < r->npoints[r->w]; i++)
		if (r->points[r->w][i].intervals > measured)
			used += r->points[r->w][i].intervals - measured;
	budget = w->steady_budget_ns / w->interval_ns;
	if (used >= budget)
		return 0;
	return budget - used < w->steady_extend ? (uint32_t)(budget - used) : w->steady_extend;
}

/* Entering STEPPING: step `step` of workload w at `rate`, split over the agents present. */
void runner_start_step(struct runner *r)
{
	const struct workload *w = runner_workload(r);
	/* The step may run on to the end of a steady extension, within the budget. */
	uint32_t extend = runner_extend_left(r);
	uint64_t measure_ns = w->measure_ns + (uint64_t)extend * w->interval_ns;
	uint64_t lead;
	uint32_t n;
	const char **names = runner_step_names(r, &n);

	step_free(r->st);
	r->st = step_new(r->c, r->w, r->step, r->rate, n, names);
	step_limit_extend(r->st, extend);
	free(names);
	/* what the point carries beside its intervals: the cooldown before it, the attempts */
	step_set_cooldown(r->st, r->cool_ms, r->cool_outcome);
	step_set_retries(r->st, r->retries);
	lead = runner_send_start(r, r->rate, w->warmup_ns, measure_ns, w->interval_ns);
	r->step_start_ns = clock_now_ns() + lead; /* within microseconds of StartStep's */
	r->start_w = r->w;
	r->start_step = r->step;
	r->started = true;
	runner_features_step(r, r->step_start_ns, measure_ns);
	events_emit(r->ev,
	            &(struct event){
	                .kind = EVENT_STEP,
	                .step = {.workload = (uint32_t)r->w,
	                         .step = r->step,
	                         .offered_ops = r->rate,
	                         .per_worker = r->rate / ((double)runner_agents_count(r->agents) *
	                                                  w->io.workers),
	                         .qd = w->io.queue_depth,
	                         .seconds = (double)(w->warmup_ns + w->measure_ns) / 1e9 + 0.5}});
	/* The watchdog allows for a steady extension running to its end. */
	runner_arm(r, lead + w->warmup_ns + measure_ns + RUNNER_SLACK_NS);
}

/* The rate of a cooldown's probe: what the workload's first step achieved (10% of a max one). */
static double runner_probe_rate(const struct runner *r)
{
	const struct step_point *ref = &r->points[r->w][0];

	return ref->offered_ops > 0 ? ref->achieved_ops : 0.1 * ref->achieved_ops;
}

/* Entering COOLING: a probe of one short interval before step `step`; not a point. */
void runner_start_probe(struct runner *r)
{
	uint64_t lead;
	uint32_t n;
	const char **names = runner_step_names(r, &n);

	step_free(r->probe);
	r->probe = step_new_probe(n, names);
	free(names);
	lead = runner_send_start(r, runner_probe_rate(r), 0, RUNNER_PROBE_NS, RUNNER_PROBE_NS);
	runner_arm(r, lead + RUNNER_PROBE_NS + RUNNER_SLACK_NS);
}

/*
 * The step's point: appended to the workload's points once its intervals and
 * its row are on disk, the derived files rewritten, its event out; then the
 * planner chooses the next rate. 1: a next step at r->rate; 0: the workload
 * is done; -1: err says why.
 */
static int runner_step_point(struct runner *r, struct error *err)
{
	const struct workload *w = runner_workload(r);
	const struct judged_curve *j = &r->judged[r->w];
	struct step_point *pt;
	struct event e;
	double peak;
	int rc;

	if (r->npoints[r->w] == r->cap[r->w]) {
		r->cap[r->w] = r->cap[r->w] ? 2 * r->cap[r->w] : 8;
		r->points[r->w] = xreallocarray(r->points[r->w], r->cap[r->w], sizeof(**r->points));
	}
	pt = &r->points[r->w][r->npoints[r->w]];
	step_point(r->st, pt);
	if (runner_features_point(r, pt, err) < 0)
		return -1;
	r->cool_ms = 0;
	r->cool_outcome = NULL;
	r->retries = 0;
	/* A point counts once its intervals and its row are on disk, not before. */
	if (results_point(r->res, w, pt, err) < 0 || results_sync(r->res, err) < 0)
		return -1;
	r->npoints[r->w]++;
	/* The curve judged once for this step: files, events and the planner read it. */
	judged_update(&r->judged[r->w], r->c, w, r->points[r->w], r->npoints[r->w]);
	/* Between steps the files say the campaign is running: only its end says more. */
	r->end.meta = r->meta;
	snprintf(r->end.state, sizeof(r->end.state), "%s", RUNEND_RUNNING);
	rc = derive_all(results_dir(r->res), r->c, (const struct step_point *const *)r->points,
	                r->npoints, r->judged, &r->end, err);
	r->end.state[0] = '\0';
	if (rc < 0)
		return -1;
	event_point_fill(&e, pt);
	e.point.workload = (uint32_t)r->w;
	e.point.step = r->step;
	e.point.metric_us = step_metric(pt, r->c->slo_metric) / 1e3;
	e.point.saturated = j->v[j->last].why; /* "" unless the step saturated */
	e.point.agents_lost = pt->agents_lost;
	e.point.verdict = j->v[j->last].words;
	e.point.knee = event_knee_of(j, &peak);
	events_emit(r->ev, &e);
	r->step++;
	return runner_next_rate(r) ? 1 : 0;
}

/* The step's window line, once decided: intervals.jsonl keeps what the run measured. */
static int runner_write_window(struct runner *r, struct error *err)
{
	uint32_t from, to;

	step_window(r->st, &from, &to);
	return results_window(r->res, runner_workload(r), r->step, from, to, err);
}

static void runner_emit_interval(struct runner *r, uint32_t interval, const char *agent,
                                 const struct agg_record *m)
{
	double secs = (double)m->duration_ns / 1e9;

	events_emit(r->ev,
	            &(struct event){
	                .kind = EVENT_INTERVAL,
	                .interval = {
	                    .workload = (uint32_t)r->w,
	                    .step = r->step,
	                    .interval = interval,
	                    .warmup = m->warmup,
	                    .agent = agent,
	                    .ops_s = secs > 0 ? (double)m->rec.ops / secs : 0,
	                    .mib_s = secs > 0 ? (double)m->rec.bytes / secs / (1024.0 * 1024.0) : 0,
	                    .mean_us = hist_mean(&m->rec.latency) / 1e3,
	                    .p99_us = (double)hist_quantile(&m->rec.latency, 99) / 1e3,
	                    .cpu_pct = m->host_cpu_pct,
	                    .errors = m->rec.errors}});
}

/* The window ended before the extension ran out: the agents end the step now. */
static void runner_end_step(struct runner *r)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__EndStep es = IOCURVE__END_STEP__INIT;
	uint32_t from, to;

	step_window(r->st, &from, &to);
	if (runner_workload(r)->work.on)
		log_info("%s: every worker did its work by interval %u: ending the step",
		         runner_workload(r)->name, to);
	else
		log_info("%s step %u decided after %u extra interval(s): ending it",
		         runner_workload(r)->name, r->step + 1, to - step_planned(r->st));
	es.workload_index = (uint32_t)r->w;
	es.step = r->step;
	env.body_case = IOCURVE__ENVELOPE__BODY_END_STEP;
	env.end_step = &es;
	runner_agents_send_all(r->agents, &env);
}

/* The record every report is decoded into (zeroed the first time: agg_add empties it). */
static struct agg_record *runner_report_record(struct runner *r)
{
	if (r->report == NULL)
		r->report = xcalloc(1, sizeof(*r->report));
	return r->report;
}

/*
 * One interval through the pipeline, each stage once:
 *   feed   agent ai's report to the step, which merges it and, once its interval
 *          is complete, judges whether the measured window ends with it (ir NULL:
 *          an agent's loss completed interval i, whose reports are all in already);
 *   write  the agent's line, the window, the fleet's line (in that order);
 *   emit   the agent's interval event, the fleet's, and an early end of the step.
 * An interval still waiting for agents stops at the agent's line and event.
 * RUNNER_BAD_REPORT: the agent's report was refused (err says why), nothing merged.
 */
static int runner_interval(struct runner *r, uint32_t ai, uint32_t i,
                           const Iocurve__IntervalReport *ir, struct error *err)
{
	const struct workload *w = runner_workload(r);
	const char *name = ir != NULL ? runner_agents_name(r->agents, ai) : NULL;
	struct agg_record *rec = NULL;
	const struct agg_record *m;
	int answer, rc = -1;

	/* Feed. */
	if (ir != NULL) {
		rec = runner_report_record(r);
		answer = step_feed(r->st, ai, ir, rec, &m, err);
		if (answer < 0) {
			error_prefix(err, "agent %s: bad interval report: ", name);
			rc = RUNNER_BAD_REPORT;
			goto out;
		}
	} else {
		answer = step_judge(r->st, i, &m);
	}
	/* Write. */
	if (rec != NULL && results_interval(r->res, w, r->step, r->rate, i, name, rec, err) < 0)
		goto out;
	if ((answer == STEP_CUT || answer == STEP_END) && runner_write_window(r, err) < 0)
		goto out;
	if (m != NULL && results_interval(r->res, w, r->step, r->rate, i, NULL, m, err) < 0)
		goto out;
	/*
	 * Emit. An agent's own interval event, for the dashboard's agent rows and
	 * --json: not over agents.detail's limit, where a fleet's thousands a second
	 * would fill the daemon's history and every watcher's socket (the fleet's line
	 * says it all).
	 */
	if (rec != NULL && campaign_agent_histograms(r->c))
		runner_emit_interval(r, i, name, rec);
	if (m != NULL)
		runner_emit_interval(r, i, EVENT_FLEET, m);
	if (answer == STEP_END)
		runner_end_step(r);
	rc = 0;
out:
	return rc;
}

int runner_step_report(struct runner *r, uint32_t ai, const Iocurve__IntervalReport *ir,
                       struct error *err)
{
	return runner_interval(r, ai, ir->interval, ir, err);
}

/*
 * Whether the next step cools down first: the step just ended fell behind or
 * saturated, and the workload's first step gives a service time to come back to.
 */
static bool runner_needs_cooldown(const struct runner *r)
{
	const struct judged_curve *j = &r->judged[r->w];
	const struct judged_point *v;

	if (r->c->cooldown.max_ns == 0 || r->npoints[r->w] < 2 || j->n == 0)
		return false;
	if (!(r->points[r->w][0].svc_mean_ns > 0) || !(runner_probe_rate(r) > 0))
		return false;
	v = &j->v[j->last];
	return v->why[0] != '\0' || (v->reasons & VERDICT_BEHIND);
}

/*
 * Every agent is done with the probe: its service time back within the margin
 * of the workload's first step's, or cooldown.max spent, or its every operation
 * failed (a target gone: waiting cannot bring it back, and the step says its
 * errors), and the step starts (the cooldown line first); else another probe.
 */
static int runner_probe_end(struct runner *r, struct error *err)
{
	double svc = step_probe_service(r->probe);
	double ref = r->points[r->w][0].svc_mean_ns;
	uint64_t spent = clock_now_ns() - r->cool_from;
	bool ok = svc > 0 && svc <= ref * (1 + r->c->cooldown.margin_pct / 100);
	bool failed = step_probe_failed(r->probe);

	if (!ok && !failed && spent < r->c->cooldown.max_ns) {
		runner_enter(r, RUNNER_COOLING);
		return 0;
	}
	r->cool_ms = (uint32_t)(spent / NSEC_PER_MSEC);
	r->cool_outcome = ok ? "recovered" : failed ? "failed" : "timeout";
	log_info("%s step %u: cooldown %s after %u ms (probe service time %.0f us, first step's "
	         "%.0f us)",
	         runner_workload(r)->name, r->step + 1, r->cool_outcome, r->cool_ms, svc / 1e3,
	         ref / 1e3);
	if (results_cooldown(r->res, runner_workload(r), r->step, r->cool_ms, r->cool_outcome,
	                     err) < 0)
		return -1;
	runner_enter(r, RUNNER_STEPPING);
	return 0;
}

/*
 * retry: N: a step whose client was disturbed (step_disturbed) runs again at the same
 * rate, up to N times, before it counts; the attempt's lines stay in intervals.jsonl
 * behind a retried line. 1: it runs again; 0: it counts; -1: err.
 */
static int runner_retry(struct runner *r, struct error *err)
{
	const struct workload *w = runner_workload(r);
	struct step_point *pt;
	bool disturbed;

	if (r->retries >= w->retry)
		return 0;
	pt = xmalloc(sizeof(*pt));
	disturbed = step_disturbed(r->st, pt);
	if (disturbed)
		log_warn("%s step %u: the client's %.0f us in the SLO metric can have moved its "
		         "verdict (issue lateness %.0f us, reap delay %.0f us): running it again "
		         "(retry %u of %u)",
		         w->name, r->step + 1, pt->client.slo_ns / 1e3,
		         pt->client.issue_late_ns / 1e3, pt->client.reap_delay_ns / 1e3,
		         r->retries + 1, w->retry);
	free(pt);
	if (!disturbed)
		return 0;
	runner_features_retry(r);
	if (results_retried(r->res, w, r->step, ++r->retries, err) < 0 ||
	    results_sync(r->res, err) < 0)
		return -1;
	runner_enter(r, RUNNER_STEPPING);
	return 1;
}

/* Every agent (lost ones count) is done with the step: its window, its point, what next. */
static int runner_step_end(struct runner *r, struct error *err)
{
	uint32_t from, to;
	int next;

	if (step_close(r->st) && runner_write_window(r, err) < 0)
		return -1;
	step_window(r->st, &from, &to);
	runner_features_step_end(r, to ? to : step_intervals(r->st));
	if (!step_complete(r->st)) {
		error_set(err, "step %u: agents finished without reporting every interval",
		          r->step + 1);
		return -1;
	}
	next = runner_retry(r, err);
	if (next != 0)
		return next < 0 ? -1 : 0;
	/* a feature's last reports of the window (the background's) may be on their way */
	return runner_features_hold(r) ? 0 : runner_step_finish(r, err);
}

int runner_step_finish(struct runner *r, struct error *err)
{
	int next = runner_step_point(r, err);

	if (next < 0)
		return -1;
	if (next == 1 && runner_needs_cooldown(r)) {
		r->cool_from = clock_now_ns();
		runner_enter(r, RUNNER_COOLING);
		return 0;
	}
	runner_go_on(r, next == 1);
	return 0;
}

/* Agent ai's report of the probe: merged, not written (a probe is not a point). */
int runner_probe_report(struct runner *r, uint32_t ai, const Iocurve__IntervalReport *ir,
                        struct error *err)
{
	const struct agg_record *m;
	int rc = step_feed(r->probe, ai, ir, runner_report_record(r), &m, err);

	if (rc < 0)
		error_prefix(err,
		             "agent %s: bad probe report: ", runner_agents_name(r->agents, ai));
	return rc < 0 ? RUNNER_BAD_REPORT : 0;
}

/* Agent ai's StepDone of the probe: the probe's end once every agent's is in. */
int runner_probe_done(struct runner *r, uint32_t ai, const Iocurve__StepDone *d, struct error *err)
{
	runner_agents_step_done(r->agents, ai, d->start_time);
	return runner_agents_all_done(r->agents) ? runner_probe_end(r, err) : 0;
}

/*
 * Agent ai's StepDone: its clock line; the step's end once every agent's is in.
 * RUNNER_BAD_REPORT: its start, brought onto the coordinator's clock, is not within
 * RUNNER_START_SLACK_NS of the planned one (err says so), nothing written.
 */
int runner_step_done(struct runner *r, uint32_t ai, const Iocurve__StepDone *d, struct error *err)
{
	uint64_t agent_start = d->start_time;
	const struct intervals_clock *k = runner_agents_step_done(r->agents, ai, agent_start);
	uint64_t slack = k->uncertainty_ns + RUNNER_START_SLACK_NS;
	uint64_t sent = runner_agents_sent(r->agents, ai), now = clock_now_ns();
	uint32_t missing, of;
	int rc;

	/* start_ns wraps past RUNNER_AGENT_TIME_MAX when it would lie before 0 */
	if (k->start_ns > RUNNER_AGENT_TIME_MAX || k->start_ns + slack < sent ||
	    k->start_ns > now + slack) {
		error_set(err,
		          "agent %s: bad StepDone: start_time %llu is %+.3f s from the planned "
		          "start on its clock, outside the %.3f s from its StartStep to its "
		          "StepDone (+-%.3f s)",
		          runner_agents_name(r->agents, ai), (unsigned long long)agent_start,
		          ((double)(int64_t)k->start_ns - (double)k->planned_ns) / 1e9,
		          (double)(now - sent) / 1e9, (double)slack / 1e9);
		return RUNNER_BAD_REPORT;
	}
	/* Done, so every interval it had is in: one missing was refused or never sent. */
	if (!runner_workload(r)->work.on && (missing = step_agent_missing(r->st, ai, &of)) > 0) {
		error_set(err,
		          "agent %s: bad StepDone: done with %u of its %u intervals not reported",
		          runner_agents_name(r->agents, ai), missing, of);
		return RUNNER_BAD_REPORT;
	}
	if (results_clock(r->res, runner_workload(r), r->step, runner_agents_name(r->agents, ai), k,
	                  err) < 0)
		return -1;
	rc = runner_features_done(r, ai, d, err);
	if (rc != 0)
		return rc;
	return runner_agents_all_done(r->agents) ? runner_step_end(r, err) : 0;
}

/* Agent ai is lost mid-step: intervals the others had all reported are complete now. */
int runner_step_lost(struct runner *r, uint32_t ai, uint32_t left, struct error *err)
{
	for (uint32_t i = left; i < step_intervals(r->st); i++)
		if (runner_interval(r, ai, i, NULL, err) < 0)
			return -1;
	return runner_agents_all_done(r->agents) ? runner_step_end(r, err) : 0;
}

/* Agent ai is lost during a probe: it waits for the others only. */
int runner_probe_lost(struct runner *r, uint32_t ai, uint32_t left, struct error *err)
{
	(void)left;
	step_drop_agent(r->probe, ai);
	return runner_agents_all_done(r->agents) ? runner_probe_end(r, err) : 0;
}
