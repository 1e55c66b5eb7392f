/* SPDX-License-Identifier: MIT */
/* The campaign runner: claims agents, prepares each workload, runs its steps in lockstep. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "curve.h"
#include "derive.h"
#include "events.h"
#include "loadspec.h"
#include "log.h"
#include "runner_int.h"
#include "planner.h"
#include "prepare.h"
#include "runmeta.h"
#include "table.h"
#include "text.h"
#include "units.h"
#include "xalloc.h"

static void runner_send_all(struct runner *r, const Iocurve__Envelope *env)
{
	for (uint32_t i = 0; i < r->nagents; i++)
		if (r->agents[i].s != NULL)
			server_send(r->agents[i].s, env);
}

/*
 * A campaign whose steps had failed operations does not end complete unless its
 * plan allows errors (stop: {errors: allow}): its error says how many and the first.
 */
static int runner_check_errors(struct runner *r)
{
	const struct step_point *first = NULL, *f;
	uint64_t errors = 0;
	char words[192];

	for (size_t w = 0; w < r->c->nworkloads; w++) {
		errors += r->judged[w].errors;
		f = r->judged[w].first_error;
		first = first ? first : f;
	}
	if (errors == 0 || r->c->stop.allow_errors)
		return 0;
	curve_error_words(first, errors, words, sizeof(words));
	if (first != NULL)
		snprintf(
		    r->error, sizeof(r->error),
		    "I/O errors: %llu failed operations, the first %s (agent %s, offset %llu); "
		    "stop: {errors: allow} lets a campaign with errors end complete",
		    (unsigned long long)errors, words, first->err_agent,
		    (unsigned long long)first->err_offset);
	else
		snprintf(r->error, sizeof(r->error),
		         "I/O errors: %s; stop: {errors: allow} lets a campaign with errors end "
		         "complete",
		         words);
	return 1;
}

static void runner_finish(struct runner *r, int status)
{
	char msg[sizeof(r->error) + sizeof(r->losses) + 4];
	char *summary = NULL;
	size_t len = 0;
	struct derive_run end = {.meta = r->meta};
	struct error err;
	FILE *f;

	event_del(r->timer);
	if (status == 0)
		status = runner_check_errors(r);
	r->state = status == 0 ? RUNNER_DONE : RUNNER_FAILED;
	for (uint32_t i = 0; i < r->nagents; i++)
		if (r->agents[i].s != NULL)
			session_release(r->agents[i].s, r);
	snprintf(msg, sizeof(msg), "%s%s%s", status ? r->error : "campaign complete",
	         r->losses[0] ? "; " : "", r->losses);
	/* Not complete: said in intervals.jsonl, so `iocurve report` says it too. */
	if (status != 0) {
		snprintf(end.state, sizeof(end.state), "%s", r->cancelled ? "cancelled" : "failed");
		snprintf(end.reason, sizeof(end.reason), "%.500s", msg);
		if (results_end(r->res, end.state, end.reason, &err) < 0)
			log_error("%s", err.msg);
	}
	if (results_sync(r->res, &err) < 0)
		log_error("%s", err.msg);
	if (derive_all(results_dir(r->res), r->c, (const struct step_point *const *)r->points,
	               r->npoints, r->judged, &end, &err) < 0)
		log_error("%s", err.msg);
	/* The end report travels in the event: a daemon's clients print what `run` prints. */
	f = open_memstream(&summary, &len);
	if (f != NULL) {
		runner_report(r, f);
		fclose(f);
	}
	events_emit_done(r->ev, status, msg, results_dir(r->res), summary);
	free(summary);
	r->done(r->done_arg, status);
}

const char *runner_error(const struct runner *r)
{
	return r->error;
}

/* Stop I/O everywhere, keep what is on disk, report once. */
void runner_fail(struct runner *r, const char *fmt, ...)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Abort ab = IOCURVE__ABORT__INIT;
	char msg[1024];
	va_list ap;

	if (r->state == RUNNER_DONE || r->state == RUNNER_FAILED)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(r->error, sizeof(r->error), "%s", msg);
	ab.reason = msg;
	env.body_case = IOCURVE__ENVELOPE__BODY_ABORT;
	env.abort = &ab;
	runner_send_all(r, &env);
	runner_finish(r, 1);
}

static void runner_emit_workload_done(struct runner *r)
{
	const struct workload *w = runner_workload(r);
	char knee[512], why[400];
	double peak;
	struct event_knee k = event_knee_of(&r->judged[r->w], &peak);

	table_knee_text(&r->judged[r->w], knee, sizeof(knee));
	snprintf(why, sizeof(why), "%s%s%s", planner_why(&r->plan),
	         r->plan.refine_why[0] ? "; " : "", r->plan.refine_why);
	events_emit(r->ev, &(struct event){.kind = EVENT_WORKLOAD_DONE,
	                                   .workload_done = {.workload = (uint32_t)r->w,
	                                                     .name = w->name,
	                                                     .knee_text = knee,
	                                                     .knee = k,
	                                                     .peak_tp = peak,
	                                                     .unit = event_unit_of(w),
	                                                     .why = why}});
}

/*
 * A resumed campaign: feed the planner the points already on disk, in run
 * order, as the first run did. false when the workload needs no further step.
 */
static bool runner_replan(struct runner *r)
{
	const struct step_point *pts = r->points[r->w];
	size_t n = r->npoints[r->w];
	struct judged_curve j = {0};
	double rate;

	planner_init(&r->plan, r->c, runner_workload(r));
	r->step = (uint32_t)n;
	r->have_next = false;
	if (n == 0)
		return true;
	/* the curve as it was judged after each step of the first run */
	for (size_t k = 0; k < n; k++) {
		judged_update(&j, r->c, runner_workload(r), pts, k);
		if (!planner_next(&r->plan, &j, &rate))
			break;
	}
	judged_free(&j);
	r->have_next = planner_next(&r->plan, &r->judged[r->w], &r->next_rate);
	return r->have_next;
}

void runner_prepare(struct runner *r)
{
	const struct workload *w;
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	struct prepare_msg m;

	/* Workloads a resumed campaign finished before are done again, without I/O. */
	while (!runner_replan(r)) {
		runner_emit_workload_done(r);
		if (++r->w == r->c->nworkloads) {
			runner_finish(r, 0);
			return;
		}
	}
	w = runner_workload(r);
	runner_compact(r);
	r->state = RUNNER_PREPARING;
	events_emit(r->ev,
	            &(struct event){.kind = EVENT_WORKLOAD,
	                            .workload = {.workload = (uint32_t)r->w,
	                                         .of = (uint32_t)r->c->nworkloads,
	                                         .name = w->name,
	                                         .rw = rw_mode_name(w->rw),
	                                         .block_size = w->block_size,
	                                         .workers = w->workers,
	                                         .qd = w->queue_depth,
	                                         .agents = r->nagents,
	                                         .unit = event_unit_of(w),
	                                         .max_steps = (uint32_t)loadspec_max_steps(w)}});
	prepare_build(&m, r->c, r->w);
	env.body_case = IOCURVE__ENVELOPE__BODY_PREPARE;
	env.prepare = &m.p;
	for (uint32_t i = 0; i < r->nagents; i++) {
		r->agents[i].ready = false;
		prepare_for_agent(&m, i, r->nagents);
		server_send(r->agents[i].s, &env);
	}
	runner_arm(r, RUNNER_PREPARE_NS);
}

static void runner_start_step(struct runner *r)
{
	const struct workload *w = runner_workload(r);
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__StartStep ss = IOCURVE__START_STEP__INIT;
	double per_worker;
	const char **names;
	double *rates = xcalloc(w->workers, sizeof(*rates));
	uint64_t max_rtt = 0, start;

	runner_compact(r);
	per_worker = r->rate / ((double)r->nagents * w->workers);
	names = xcalloc(r->nagents, sizeof(*names));
	r->state = RUNNER_STEPPING;
	r->planned = (uint32_t)((w->warmup_ns + w->measure_ns) / w->interval_ns);
	r->nintervals = r->planned + w->steady_extend;
	r->cut = 0;
	agg_step_free(r->agg);
	for (uint32_t i = 0; i < r->nagents; i++)
		names[i] = r->agents[i].name;
	r->agg = agg_step_new(r->nagents, names, r->nintervals);
	free(names);
	for (uint32_t i = 0; i < r->nagents; i++) {
		r->agents[i].step_done = false;
		if (session_clock(r->agents[i].s)->rtt_ns > max_rtt)
			max_rtt = session_clock(r->agents[i].s)->rtt_ns;
	}
	for (uint32_t k = 0; k < w->workers; k++)
		rates[k] = per_worker;
	/* One start time on the coordinator's clock; each agent moves it onto its own. */
	start = clock_now_ns() + RUNNER_LEAD_NS + 4 * max_rtt;
	ss.workload_index = (uint32_t)r->w;
	ss.step = r->step;
	ss.n_worker_rate = w->workers;
	ss.worker_rate = rates;
	ss.start_time = start;
	ss.warmup_ns = w->warmup_ns;
	ss.measure_ns = w->measure_ns + (uint64_t)w->steady_extend * w->interval_ns;
	ss.interval_ns = w->interval_ns;
	env.body_case = IOCURVE__ENVELOPE__BODY_START_STEP;
	env.start_step = &ss;
	for (uint32_t i = 0; i < r->nagents; i++) {
		const struct clocksync *cs = session_clock(r->agents[i].s);

		/* The offset the clock model gives at the start: drift included. */
		ss.clock_offset = clocksync_offset_at(cs, start);
		r->agents[i].clock = (struct intervals_clock){
		    .planned_ns = start,
		    .offset_ns = ss.clock_offset,
		    .uncertainty_ns = clocksync_uncertainty_at(cs, start),
		    .drift_ppm = cs->drift_ppm,
		    .rtt_ns = cs->rtt_ns,
		};
		server_send(r->agents[i].s, &env);
	}
	free(rates);
	events_emit(r->ev,
	            &(struct event){
	                .kind = EVENT_STEP,
	                .step = {.workload = (uint32_t)r->w,
	                         .step = r->step,
	                         .offered_ops = r->rate,
	                         .per_worker = per_worker,
	                         .qd = w->queue_depth,
	                         .seconds = (double)(w->warmup_ns + w->measure_ns) / 1e9 + 0.5}});
	/* The watchdog allows for a steady extension running to its end. */
	runner_arm(r,
	           RUNNER_LEAD_NS + 4 * max_rtt + w->warmup_ns + ss.measure_ns + RUNNER_SLACK_NS);
}

static void runner_next_workload(struct runner *r)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__EndWorkload ew = IOCURVE__END_WORKLOAD__INIT;

	ew.workload_index = (uint32_t)r->w;
	env.body_case = IOCURVE__ENVELOPE__BODY_END_WORKLOAD;
	env.end_workload = &ew;
	runner_send_all(r, &env);
	runner_emit_workload_done(r);
	if (++r->w == r->c->nworkloads) {
		runner_finish(r, 0);
		return;
	}
	runner_prepare(r);
}

/* Ask the planner for the next step, or end the workload. */
static void runner_next_step(struct runner *r)
{
	if (r->have_next) {
		r->have_next = false;
		r->rate = r->next_rate;
		runner_start_step(r);
		return;
	}
	if (planner_next(&r->plan, &r->judged[r->w], &r->rate)) {
		runner_start_step(r);
		return;
	}
	runner_next_workload(r);
}

static void runner_step_done(struct runner *r)
{
	const struct workload *w = runner_workload(r);
	const struct judged_curve *j = &r->judged[r->w];
	struct step_point *pt;
	const char *sat;
	struct error err;
	struct event e;
	double peak;

	if (r->npoints[r->w] == r->cap[r->w]) {
		r->cap[r->w] = r->cap[r->w] ? 2 * r->cap[r->w] : 8;
		r->points[r->w] = xreallocarray(r->points[r->w], r->cap[r->w], sizeof(**r->points));
	}
	pt = &r->points[r->w][r->npoints[r->w]];
	agg_point(r->agg, r->step, r->rate, r->c, pt);
	/* A point counts once its intervals and its row are on disk, not before. */
	if (results_point(r->res, w, pt, &err) < 0 || results_sync(r->res, &err) < 0) {
		runner_fail(r, "%s", err.msg);
		return;
	}
	r->npoints[r->w]++;
	/* The curve judged once for this step: files, events and the planner read it. */
	judged_update(&r->judged[r->w], r->c, w, r->points[r->w], r->npoints[r->w]);
	if (derive_all(results_dir(r->res), r->c, (const struct step_point *const *)r->points,
	               r->npoints, r->judged, &(struct derive_run){.meta = r->meta}, &err) < 0) {
		runner_fail(r, "%s", err.msg);
		return;
	}
	sat = j->v[j->last].why; /* "" unless the step saturated */
	event_point_fill(&e, pt);
	e.point.workload = (uint32_t)r->w;
	e.point.step = r->step;
	e.point.metric_us = step_metric(pt, r->c->slo_metric) / 1e3;
	e.point.saturated = sat;
	e.point.knee = event_knee_of(j, &peak);
	events_emit(r->ev, &e);
	r->step++;
	runner_next_step(r);
}

/* The measured window of the step in progress ends at `to`: the last measure's worth. */
static void runner_set_window(struct runner *r, uint32_t to)
{
	const struct workload *w = runner_workload(r);
	uint32_t measure = (uint32_t)(w->measure_ns / w->interval_ns);

	struct error err;

	r->cut = to;
	agg_set_window(r->agg, to - measure, to);
	if (w->steady_extend > 0 && results_window(r->res, w, r->step, to - measure, to, &err) < 0)
		runner_fail(r, "%s", err.msg);
}

/*
 * steady: {extend: N}: once the planned intervals are in, the step ends as soon
 * as its last measure's worth of intervals is steady (or the extension runs out).
 */
void runner_maybe_cut(struct runner *r, uint32_t interval)
{
	const struct workload *w = runner_workload(r);
	uint32_t measure = (uint32_t)(w->measure_ns / w->interval_ns), to = interval + 1;
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__EndStep es = IOCURVE__END_STEP__INIT;

	if (w->steady_extend == 0 || r->cut != 0 || to < r->planned)
		return;
	if (!agg_window_steady(r->agg, to - measure, to, r->c->slo_metric) && to < r->nintervals)
		return;
	runner_set_window(r, to);
	if (to == r->nintervals)
		return;
	log_info("%s step %u steady after %u extra interval(s): ending it", w->name, r->step + 1,
	         to - r->planned);
	es.workload_index = (uint32_t)r->w;
	es.step = r->step;
	env.body_case = IOCURVE__ENVELOPE__BODY_END_STEP;
	env.end_step = &es;
	runner_send_all(r, &env);
}

void runner_emit_interval(struct runner *r, uint32_t interval, const char *agent,
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

static void runner_report_interval(struct runner *r, uint32_t ai, const Iocurve__IntervalReport *ir)
{
	const struct workload *w = runner_workload(r);
	struct agg_record *rec = xmalloc(sizeof(*rec));
	const struct agg_record *merged;
	struct error err;
	int rc;

	if (r->state != RUNNER_STEPPING || ir->workload_index != r->w || ir->step != r->step) {
		log_warn("agent %s: stale report (workload %u step %u) ignored", r->agents[ai].name,
		         ir->workload_index, ir->step);
		free(rec);
		return;
	}
	rc = agg_add(r->agg, ai, ir, rec, &merged, &err);
	if (rc < 0) {
		free(rec);
		runner_fail(r, "agent %s: bad interval report: %s", r->agents[ai].name, err.msg);
		return;
	}
	if (results_interval(r->res, w, r->step, r->rate, ir->interval, r->agents[ai].name, rec,
	                     &err) < 0) {
		free(rec);
		runner_fail(r, "%s", err.msg);
		return;
	}
	/*
	 * An agent's own interval event, for the dashboard's agent rows and --json: not
	 * over agents.detail's limit, where a fleet's thousands a second would fill the
	 * daemon's history and every watcher's socket (the fleet's line says it all).
	 */
	if (campaign_agent_histograms(r->c))
		runner_emit_interval(r, ir->interval, r->agents[ai].name, rec);
	free(rec);
	if (rc == 1) {
		runner_maybe_cut(r, ir->interval);
		if (r->state != RUNNER_STEPPING)
			return;
		if (results_interval(r->res, w, r->step, r->rate, ir->interval, NULL, merged,
		                     &err) < 0) {
			runner_fail(r, "%s", err.msg);
			return;
		}
		runner_emit_interval(r, ir->interval, EVENT_FLEET, merged);
	}
}

/* Every agent (lost ones count) is done with the step: its point. */
void runner_check_step_done(struct runner *r)
{
	for (uint32_t i = 0; i < r->nagents; i++)
		if (!r->agents[i].step_done)
			return;
	if (r->cut == 0)
		runner_set_window(r, r->nintervals);
	if (r->state != RUNNER_STEPPING)
		return;
	if (!agg_complete(r->agg)) {
		runner_fail(r, "step %u: agents finished without reporting every interval",
		            r->step + 1);
		return;
	}
	runner_step_done(r);
}

/* Every agent (lost ones count) is ready for the workload: its first step. */
void runner_check_ready(struct runner *r)
{
	for (uint32_t i = 0; i < r->nagents; i++)
		if (!r->agents[i].ready)
			return;
	runner_next_step(r);
}

void runner_on_message(struct session *s, const Iocurve__Envelope *env, void *arg)
{
	struct runner *r = arg;
	int ai = runner_agent_index(r, s);
	char text[1024];

	if (ai < 0 || r->state == RUNNER_DONE || r->state == RUNNER_FAILED)
		return;
	switch (env->body_case) {
	case IOCURVE__ENVELOPE__BODY_READY:
		if (r->state != RUNNER_PREPARING || env->ready->workload_index != r->w)
			return;
		r->agents[ai].ready = true;
		runner_check_ready(r);
		break;
	case IOCURVE__ENVELOPE__BODY_INTERVAL_REPORT:
		runner_report_interval(r, (uint32_t)ai, env->interval_report);
		break;
	case IOCURVE__ENVELOPE__BODY_STEP_DONE:
		if (r->state != RUNNER_STEPPING || env->step_done->workload_index != r->w ||
		    env->step_done->step != r->step)
			return;
		r->agents[ai].step_done = true;
		runner_step_clock(r, (uint32_t)ai, env->step_done->start_time);
		if (r->state == RUNNER_STEPPING)
			runner_check_step_done(r);
		break;
	case IOCURVE__ENVELOPE__BODY_LAYOUT_PROGRESS:
		runner_layout_progress(r, (uint32_t)ai, env->layout_progress);
		break;
	case IOCURVE__ENVELOPE__BODY_ERROR:
		runner_fail(r, "agent %s: %s", session_name(s),
		            text_clean(env->error->message, text, sizeof(text), false));
		break;
	default:
		log_warn("agent %s: unexpected %s", session_name(s),
		         env->body_case == IOCURVE__ENVELOPE__BODY_ABORT ? "Abort" : "message");
		break;
	}
}

/* Append NAME (and a note) to a comma-separated list, dropping what does not fit. */
static void runner_list_add(char *buf, size_t len, const char *name, const char *note)
{
	size_t off = strlen(buf);

	if (off + 1 < len)
		snprintf(buf + off, len - off, "%s%s%s", off ? ", " : "", name, note);
}

/* A phase took too long: name who was waited for. */
static void runner_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct runner *r = arg;
	char names[512] = "";
	struct session *s;

	switch (r->state) {
	case RUNNER_WAITING:
		for (s = server_first_session(r->srv); s != NULL; s = session_next(s))
			runner_list_add(names, sizeof(names), session_name(s),
			                session_owner(s) && session_owner(s) != r ? " (busy)"
			                : !runner_labels_match(r, s) ? " (labels do not match)"
			                                             : "");
		runner_fail(r, "waited for %u agent(s), %u ready; connected: %s",
		            runner_agents_wanted(r), r->nagents, names[0] ? names : "none");
		break;
	case RUNNER_PREPARING:
		for (uint32_t i = 0; i < r->nagents; i++)
			if (!r->agents[i].ready)
				runner_list_add(names, sizeof(names), r->agents[i].name, "");
		runner_fail(r, "workload %s: not ready in time: %s", runner_workload(r)->name,
		            names);
		break;
	case RUNNER_STEPPING:
		for (uint32_t i = 0; i < r->nagents; i++)
			if (!r->agents[i].step_done)
				runner_list_add(names, sizeof(names), r->agents[i].name, "");
		runner_fail(r, "workload %s step %u: no StepDone from %s in time",
		            runner_workload(r)->name, r->step + 1, names);
		break;
	default:
		break;
	}
}

struct runner *runner_new(struct event_base *base, struct server *srv, const struct campaign *c,
                          struct results *res, struct events *ev, runner_done_fn done, void *arg)
{
	struct runner *r = xcalloc(1, sizeof(*r));

	r->ev = ev;
	r->base = base;
	r->srv = srv;
	r->c = c;
	r->res = res;
	r->done = done;
	r->done_arg = arg;
	r->agents = xcalloc(c->agents_count, sizeof(*r->agents));
	r->points = xcalloc(c->nworkloads, sizeof(*r->points));
	r->npoints = xcalloc(c->nworkloads, sizeof(*r->npoints));
	r->cap = xcalloc(c->nworkloads, sizeof(*r->cap));
	r->judged = xcalloc(c->nworkloads, sizeof(*r->judged));
	for (size_t i = 0; i < c->nworkloads; i++)
		judged_update(&r->judged[i], c, &c->workloads[i], NULL, 0);
	r->timer = evtimer_new(base, runner_timer_cb, r);
	return r;
}

void runner_resume_from(struct runner *r, const struct step_point *const *pts, const size_t *npts)
{
	for (size_t i = 0; i < r->c->nworkloads; i++) {
		free(r->points[i]);
		r->npoints[i] = r->cap[i] = npts[i];
		r->points[i] = NULL;
		if (npts[i] == 0)
			continue;
		r->points[i] = xreallocarray(NULL, npts[i], sizeof(*pts[i]));
		memcpy(r->points[i], pts[i], npts[i] * sizeof(*pts[i]));
	}
	for (size_t i = 0; i < r->c->nworkloads; i++)
		judged_update(&r->judged[i], r->c, &r->c->workloads[i], r->points[i],
		              r->npoints[i]);
	/* runner_prepare passes over the workloads these points finish. */
}

void runner_start(struct runner *r)
{
	struct session *s, *next;

	server_set_cbs(r->srv, &runner_server_cbs, r);
	r->state = RUNNER_WAITING;
	runner_arm(r, r->c->agents_mode == CAMPAIGN_AGENTS_LOCAL ? RUNNER_LOCAL_WAIT_NS
	                                                         : r->c->agents_wait_ns);
	for (s = server_first_session(r->srv); s != NULL; s = next) {
		next = session_next(s);
		runner_claim(r, s);
	}
}

void runner_cancel(struct runner *r, const char *why)
{
	if (r->state != RUNNER_DONE && r->state != RUNNER_FAILED)
		r->cancelled = true;
	runner_fail(r, "%s", why);
}

void runner_report(struct runner *r, FILE *f)
{
	char knee[512], bs[32];

	fprintf(f, "\n");
	for (size_t i = 0; i < r->c->nworkloads; i++) {
		const struct workload *w = &r->c->workloads[i];

		if (r->npoints[i] == 0)
			continue;
		units_format_size(w->block_size, bs, sizeof(bs));
		fprintf(f, "%s (%s, %s%s):\n", w->name, rw_mode_name(w->rw), bs,
		        w->access.direct ? "" : ", buffered");
		table_print_steps(f, &r->judged[i]);
		table_knee_text(&r->judged[i], knee, sizeof(knee));
		fprintf(f, "%s\n\n", knee);
	}
	table_print_summary(f, r->c, r->judged);
	fprintf(f, "\nresults: %s\n", results_dir(r->res));
}

void runner_free(struct runner *r)
{
	if (r == NULL)
		return;
	for (uint32_t i = 0; i < r->nagents; i++)
		if (r->agents[i].s != NULL)
			session_release(r->agents[i].s, r);
	server_set_cbs(r->srv, NULL, NULL);
	event_free(r->timer);
	agg_step_free(r->agg);
	for (size_t i = 0; i < r->c->nworkloads; i++)
		free(r->points[i]);
	free(r->points);
	judged_free_all(r->judged, r->c->nworkloads);
	free(r->npoints);
	free(r->cap);
	free(r->agents);
	free(r->command);
	free(r->meta);
	free(r);
}

void runner_set_command(struct runner *r, const char *command)
{
	free(r->command);
	r->command = xstrdup(command);
}

static void runner_meta_write(FILE *f, const void *arg)
{
	fputs(arg, f);
	fputc('\n', f);
}

void runner_write_meta(struct runner *r)
{
	struct session **s = xcalloc(r->nagents ? r->nagents : 1, sizeof(*s));
	struct error err;

	for (uint32_t i = 0; i < r->nagents; i++)
		s[i] = r->agents[i].s;
	free(r->meta);
	/* A resumed run keeps the first run's description: its date and hosts are the record. */
	r->meta = derive_meta_read(results_dir(r->res));
	if (r->meta == NULL) {
		r->meta = runmeta_json(r->c, s, r->nagents, r->command);
		if (r->meta != NULL && derive_file(results_dir(r->res), "meta.json",
		                                   runner_meta_write, r->meta, &err) < 0)
			log_warn("%s", err.msg);
	}
	free(s);
}
