/* SPDX-License-Identifier: MIT */
/* The campaign runner: claims agents, prepares each workload, runs its steps in lockstep. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "between.h"
#include "bytarget.h"
#include "clock.h"
#include "curve.h"
#include "derive.h"
#include "events.h"
#include "intervals.h"
#include "judged.h"
#include "local.h"
#include "loadspec.h"
#include "log.h"
#include "planner.h"
#include "prepare.h"
#include "runmeta.h"
#include "runner.h"
#include "runner_agents.h"
#include "runner_work.h"
#include "table.h"
#include "text.h"
#include "timeseries.h"
#include "units.h"
#include "xalloc.h"

/* A step starts this long after StartStep is sent, plus a few round trips. */
#define RUNNER_LEAD_NS (300 * NSEC_PER_MSEC)
/* Slack past a step's planned end before agents are declared stuck. */
#define RUNNER_SLACK_NS (15 * NSEC_PER_SEC)
/* Preparing (laying out targets) may take this long. */
#define RUNNER_PREPARE_NS (600 * NSEC_PER_SEC)
/* A cooldown's probe: one interval this long at the workload's first step's rate. */
#define RUNNER_PROBE_NS (200 * NSEC_PER_MSEC)
/* Local agents must dial in within this time. */
#define RUNNER_LOCAL_WAIT_NS (30 * NSEC_PER_SEC)

enum runner_state {
	RUNNER_IDLE,      /* made, not started */
	RUNNER_WAITING,   /* claiming agents */
	RUNNER_PREPARING, /* the agents prepare workload w */
	RUNNER_STEPPING,  /* step `step` of workload w runs */
	RUNNER_COOLING,   /* before step `step`: a probe runs, not a point (cooldown) */
	RUNNER_DONE,      /* every step ran; the end states report from the loop (runner_end_cb) */
	RUNNER_FAILED,
	RUNNER_CANCELLED,
	RUNNER_NSTATES,
};

#define RUNNER_TO(s)  (1u << (s))
#define RUNNER_TO_END (RUNNER_TO(RUNNER_FAILED) | RUNNER_TO(RUNNER_CANCELLED))

/*
 * The state table: the moves each state allows, and what makes them. Every
 * live state may fail (runner_fail: an agent's Error, a loss under abort or of
 * the last agent, a phase's timer, a results write) or be cancelled
 * (runner_cancel). runner_enter makes every move and refuses one not listed.
 */
static const struct runner_state_row {
	const char *name;
	unsigned to;
} runner_table[RUNNER_NSTATES] = {
    /* runner_start */
    [RUNNER_IDLE] = {"idle", RUNNER_TO(RUNNER_WAITING) | RUNNER_TO_END},
    /* the last agent claimed: the first workload with a step left; none left (resumed): done */
    [RUNNER_WAITING] = {"waiting",
                        RUNNER_TO(RUNNER_PREPARING) | RUNNER_TO(RUNNER_DONE) | RUNNER_TO_END},
    /* every agent Ready (lost ones count): the planner's first rate; none: next workload */
    [RUNNER_PREPARING] = {"preparing", RUNNER_TO(RUNNER_STEPPING) | RUNNER_TO(RUNNER_PREPARING) |
                                           RUNNER_TO(RUNNER_DONE) | RUNNER_TO_END},
    /*
     * every agent's StepDone, the step's point: the planner's next rate (after a step
     * that fell behind or saturated, a cooldown first); none: next workload
     */
    [RUNNER_STEPPING] = {"stepping", RUNNER_TO(RUNNER_STEPPING) | RUNNER_TO(RUNNER_COOLING) |
                                         RUNNER_TO(RUNNER_PREPARING) | RUNNER_TO(RUNNER_DONE) |
                                         RUNNER_TO_END},
    /*
     * every agent's StepDone of the probe: its service time back within the margin,
     * or cooldown.max spent: the step; else another probe
     */
    [RUNNER_COOLING] = {"cooling",
                        RUNNER_TO(RUNNER_STEPPING) | RUNNER_TO(RUNNER_COOLING) | RUNNER_TO_END},
    /* the ends: nothing moves them; their end is reported once, from the loop */
    [RUNNER_DONE] = {"done", 0},
    [RUNNER_FAILED] = {"failed", 0},
    [RUNNER_CANCELLED] = {"cancelled", 0},
};

struct runner {
	struct event_base *base;
	struct server *srv;
	const struct campaign *c;
	struct results *res;
	runner_done_fn done;
	void *done_arg;
	struct events *ev;
	char error[1024];  /* why it failed */
	struct runend end; /* the agents lost on the way (on_agent_loss: continue), meta.json */
	struct between *between; /* the earlier runs of this campaign beside it (end.between) */
	char *command;           /* how the run was started, for meta.json (runner_set_command) */
	char *meta;              /* meta.json's text, once every agent joined (runmeta.c) */

	enum runner_state state; /* idle at first; then changed by runner_enter only */
	struct event *timer;     /* the phase's deadline */
	struct event *end_ev;    /* an end state's report, from the loop */
	struct runner_agents *agents;

	size_t w;            /* workload in progress */
	struct planner plan; /* its step control */
	uint32_t step;       /* step in progress, in run order */
	double rate;         /* the step in progress offers this (0: max) */
	uint32_t nintervals; /* planned, with any steady extension */
	uint32_t planned;    /* warm-up plus measured intervals, before extension */
	uint32_t cut;        /* the measured window ends here (0: not decided) */
	uint32_t warm;       /* it starts here: after the warm-up, extended while it trends */
	uint32_t retries;    /* the step in progress ran this many times before, client disturbed */
	struct agg_step *agg;
	struct agg_step *probe; /* cooling: the probe in progress */
	uint64_t cool_from;     /* cooling: when the step before it ended */
	uint32_t cool_ms;       /* the cooldown before step `step` (0: none) */
	const char *cool_outcome;
	bool have_next; /* resumed: the planner already chose the next rate */
	double next_rate;
	struct step_point **points; /* per workload, in run order */
	size_t *npoints;
	struct judged_curve *judged; /* per workload: its points judged, updated once per step */
	size_t *cap;
	/* fixed work: every worker's part of the step in progress, as the agents' StepDone say */
	struct storm_worker *storm;
	size_t nstorm;
	/* marks on the timeline (marks.h), in the order stamped; end.marks points here */
	struct mark_list marks;
	uint64_t step_start_ns; /* the step in progress starts here (coordinator's clock) */
	size_t start_w;         /* ...of workload start_w, step start_step */
	uint32_t start_step;
	bool started; /* step_start_ns is set */
};

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

static void runner_arm(struct runner *r, uint64_t ns)
{
	event_add(r->timer, &(struct timeval){(time_t)(ns / NSEC_PER_SEC),
	                                      (suseconds_t)(ns % NSEC_PER_SEC / 1000)});
}

static const struct workload *runner_workload(const struct runner *r)
{
	return &r->c->workloads[r->w];
}

/* Not in an end state: agents' messages and losses still move it. */
static bool runner_live(const struct runner *r)
{
	return r->state != RUNNER_DONE && r->state != RUNNER_FAILED && r->state != RUNNER_CANCELLED;
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

const char *runner_error(const struct runner *r)
{
	return r->error;
}

/*
 * The end, reported once from the loop after the runner entered an end state
 * (runner_enter): the end line, the derived files, the done event, the callback.
 * "complete" reaches the files (summary.json last) only once every interval is
 * fsync'd; results that cannot be written fail the campaign, said in every file
 * that still can be.
 */
static void runner_end_cb(evutil_socket_t fd, short what, void *arg)
{
	struct runner *r = arg;
	int status = r->state != RUNNER_DONE ? 1 : r->end.nlosses > 0 ? RUNNER_DEGRADED : 0;
	char degraded[2048], msg[sizeof(r->error) + sizeof(degraded) + 64];
	char *summary = NULL;
	size_t len = 0;
	struct runend *end = &r->end;
	struct error err;
	FILE *f;

	end->meta = r->meta;
	if (status != 1 &&
	    (results_sync(r->res, &err) < 0 ||
	     /* the time series from intervals.jsonl as it stands (report writes the same) */
	     timeseries_write(results_dir(r->res), r->c, &err) < 0 ||
	     derive_all(results_dir(r->res), r->c, (const struct step_point *const *)r->points,
	                r->npoints, r->judged, end, &err) < 0)) {
		/* Not all on disk: not complete, whatever the steps measured. */
		r->state = RUNNER_FAILED;
		snprintf(r->error, sizeof(r->error), "%s", err.msg);
		status = 1;
	}
	/* A loss is told: when, which and why, in the end line and every summary. */
	runend_degraded(end, degraded, sizeof(degraded));
	if (status == RUNNER_DEGRADED)
		snprintf(r->error, sizeof(r->error), "%.1000s", degraded);
	snprintf(msg, sizeof(msg), "%s%s%s",
	         status == 1 ? r->error
	         : status    ? "campaign complete, "
	                     : "campaign complete",
	         status == 1 && degraded[0] ? "; " : "", degraded);
	/* Not complete: said in intervals.jsonl, so `iocurve report` says it too. */
	if (status == 1) {
		snprintf(end->state, sizeof(end->state), "%s", runner_table[r->state].name);
		/* Cut on a character's edge: summary.json holds UTF-8 only. */
		text_clean(msg, end->reason, sizeof(end->reason), false);
		if (results_end(r->res, end->state, end->reason, &err) < 0 ||
		    results_sync(r->res, &err) < 0)
			log_error("%s", err.msg);
		if (derive_end(results_dir(r->res), r->c,
		               (const struct step_point *const *)r->points, r->npoints, r->judged,
		               end, &err) < 0)
			log_error("%s", err.msg);
		/* after the status files: they have the room a full disk leaves */
		if (timeseries_write(results_dir(r->res), r->c, &err) < 0)
			log_warn("%s", err.msg);
	}
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

static void runner_fail(struct runner *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Entering PREPARING: the agents present prepare workload w. */
static void runner_prepare(struct runner *r)
{
	const struct workload *w = runner_workload(r);
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	struct prepare_msg m;
	uint32_t n;

	/* targets: with labels of their own, the agents that carry them (select mode) */
	const struct campaign_target *t = campaign_target_of(r->c, w);
	bool own = r->c->agents_mode == CAMPAIGN_AGENTS_SELECT && t->nlabels > 0;

	n = runner_agents_select(r->agents, own ? t : NULL);
	runner_agents_unready(r->agents);
	if (n == 0) {
		char labels[512];

		label_format(t->labels, t->nlabels, ",", labels, sizeof(labels));
		runner_fail(r,
		            "workload %s: no agent with the labels of target %s (%s) is left "
		            "to run it",
		            w->name, t->name ? t->name : "", labels);
		return;
	}
	events_emit(r->ev,
	            &(struct event){.kind = EVENT_WORKLOAD,
	                            .workload = {.workload = (uint32_t)r->w,
	                                         .of = (uint32_t)r->c->nworkloads,
	                                         .name = w->name,
	                                         .rw = rw_mode_name(w->io.rw),
	                                         .block_size = w->io.block_size,
	                                         .workers = w->io.workers,
	                                         .qd = w->io.queue_depth,
	                                         .agents = n,
	                                         .unit = event_unit_of(w),
	                                         .max_steps = (uint32_t)loadspec_max_steps(w)}});
	if (w->work.on) {
		char why[512];

		if (runner_work_refused(r->agents, w, why, sizeof(why))) {
			runner_fail(r, "%s", why);
			return;
		}
	}
	prepare_build(&m, r->c, r->w);
	env.body_case = IOCURVE__ENVELOPE__BODY_PREPARE;
	env.prepare = &m.p;
	for (uint32_t i = 0; i < n; i++) {
		struct session *s = runner_agents_session(r->agents, i);

		prepare_for_agent(&m, i, n);
		/* An older agent serves the sim's writes in service_time: say so, once a workload.
		 */
		if (campaign_target_of(r->c, w)->sim.write_service_ns && rw_writes(w->io.rw) &&
		    s != NULL && !(session_caps(s) & IOCURVE__CAPABILITY__CAPABILITY_KINDS))
			log_warn("agent %s lacks capability 'kinds': its simulated writes take "
			         "service_time, not write_service_time",
			         runner_agents_name(r->agents, i));
		runner_agents_send(r->agents, i, &env);
	}
	runner_arm(r, RUNNER_PREPARE_NS);
}

/* A step's aggregation over the agents present (compacted first), n intervals long. */
static struct agg_step *runner_new_agg(struct runner *r, uint32_t nintervals)
{
	uint32_t n;
	const char **names;
	struct agg_step *st;

	runner_agents_compact(r->agents);
	n = runner_agents_count(r->agents);
	names = xcalloc(n ? n : 1, sizeof(*names));
	for (uint32_t i = 0; i < n; i++)
		names[i] = runner_agents_name(r->agents, i);
	st = agg_step_new(n, names, nintervals);
	free(names);
	return st;
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

/* Entering STEPPING: step `step` of workload w at `rate`, split over the agents present. */
static void runner_start_step(struct runner *r)
{
	const struct workload *w = runner_workload(r);
	/* The step may run on to the end of a steady extension. */
	uint64_t measure_ns = w->measure_ns + (uint64_t)w->steady_extend * w->interval_ns;
	uint64_t lead;

	r->planned = (uint32_t)((w->warmup_ns + w->measure_ns) / w->interval_ns);
	r->nintervals = r->planned + w->steady_extend;
	r->cut = 0;
	r->warm = (uint32_t)(w->warmup_ns / w->interval_ns);
	free(r->storm);
	r->storm = NULL;
	r->nstorm = 0;
	agg_step_free(r->agg);
	r->agg = runner_new_agg(r, r->nintervals);
	lead = runner_send_start(r, r->rate, w->warmup_ns, measure_ns, w->interval_ns);
	r->step_start_ns = clock_now_ns() + lead; /* within microseconds of StartStep's */
	r->start_w = r->w;
	r->start_step = r->step;
	r->started = true;
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
static void runner_start_probe(struct runner *r)
{
	uint64_t lead;

	agg_step_free(r->probe);
	r->probe = runner_new_agg(r, 1);
	lead = runner_send_start(r, runner_probe_rate(r), 0, RUNNER_PROBE_NS, RUNNER_PROBE_NS);
	runner_arm(r, lead + RUNNER_PROBE_NS + RUNNER_SLACK_NS);
}

/*
 * The one place the state changes: the move must be in runner_table; then what
 * entering the state does. An end state stops the timer, gives the agents back
 * and reports from the loop, so no caller of runner_fail finds the runner gone.
 */
static void runner_enter(struct runner *r, enum runner_state to)
{
	if (!(runner_table[r->state].to & RUNNER_TO(to))) {
		log_error("runner: no move from %s to %s", runner_table[r->state].name,
		          runner_table[to].name);
		abort();
	}
	r->state = to;
	switch (to) {
	case RUNNER_WAITING:
		runner_arm(r, r->c->agents_mode == CAMPAIGN_AGENTS_LOCAL ? RUNNER_LOCAL_WAIT_NS
		                                                         : r->c->agents_wait_ns);
		break;
	case RUNNER_PREPARING:
		runner_prepare(r);
		break;
	case RUNNER_STEPPING:
		runner_start_step(r);
		break;
	case RUNNER_COOLING:
		runner_start_probe(r);
		break;
	case RUNNER_DONE:
	case RUNNER_FAILED:
	case RUNNER_CANCELLED:
		event_del(r->timer);
		runner_agents_release(r->agents);
		event_active(r->end_ev, EV_TIMEOUT, 0);
		break;
	case RUNNER_IDLE:
	case RUNNER_NSTATES:
		break;
	}
}

/* Stop I/O everywhere, keep what is on disk; the end is reported from the loop, once. */
static void runner_stop(struct runner *r, enum runner_state to, const char *why)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Abort ab = IOCURVE__ABORT__INIT;
	char msg[1024];

	if (!runner_live(r))
		return;
	snprintf(msg, sizeof(msg), "%s", why);
	snprintf(r->error, sizeof(r->error), "%s", msg);
	ab.reason = msg;
	env.body_case = IOCURVE__ENVELOPE__BODY_ABORT;
	env.abort = &ab;
	runner_agents_send_all(r->agents, &env);
	runner_enter(r, to);
}

static void runner_fail(struct runner *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void runner_fail(struct runner *r, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	runner_stop(r, RUNNER_FAILED, msg);
}

/* Every step ran: done, or failed when steps had I/O errors the plan does not allow. */
static void runner_complete(struct runner *r)
{
	runner_enter(r, runner_check_errors(r) ? RUNNER_FAILED : RUNNER_DONE);
}

static void runner_emit_workload_done(struct runner *r)
{
	const struct workload *w = runner_workload(r);
	char knee[1024], why[640];
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
	                                                     .why = why,
	                                                     .limit = r->judged[r->w].limit}});
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

/*
 * From workload w on, the first with a step left is prepared; those a resumed
 * campaign finished before are done again, without I/O. None left: the end.
 */
static void runner_next_workload(struct runner *r)
{
	while (r->w < r->c->nworkloads && !runner_replan(r)) {
		runner_emit_workload_done(r);
		r->w++;
	}
	if (r->w < r->c->nworkloads)
		runner_enter(r, RUNNER_PREPARING);
	else
		runner_complete(r);
}

/* The planner's next rate for the workload (or the one a resume chose): false when done. */
static bool runner_next_rate(struct runner *r)
{
	if (r->have_next) {
		r->have_next = false;
		r->rate = r->next_rate;
		return true;
	}
	return planner_next(&r->plan, &r->judged[r->w], &r->rate);
}

/* The workload is ready or has a new point: its next step, or on to the next workload. */
static void runner_go_on(struct runner *r, bool next_step)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__EndWorkload ew = IOCURVE__END_WORKLOAD__INIT;

	if (next_step) {
		runner_enter(r, RUNNER_STEPPING);
		return;
	}
	ew.workload_index = (uint32_t)r->w;
	env.body_case = IOCURVE__ENVELOPE__BODY_END_WORKLOAD;
	env.end_workload = &ew;
	runner_agents_send_all(r->agents, &env);
	runner_emit_workload_done(r);
	r->w++;
	runner_next_workload(r);
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
	agg_point(r->agg, r->step, r->rate, r->c, pt);
	if (w->work.on)
		runner_work_storm(r->agents, w, r->storm, r->nstorm, &pt->storm);
	agg_point_workload(pt, r->c, runner_workload(r));
	pt->cooldown_ms = r->cool_ms;
	snprintf(pt->cooldown, sizeof(pt->cooldown), "%s", r->cool_outcome ? r->cool_outcome : "");
	r->cool_ms = 0;
	r->cool_outcome = NULL;
	pt->retries = r->retries;
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

/* The measured window of the step in progress ends at `to`: every interval since the warm-up. */
static void runner_cut(struct runner *r, uint32_t to)
{
	r->cut = to;
	agg_set_window(r->agg, r->warm, to);
}

/* The window goes into intervals.jsonl when the step could have been extended. */
static int runner_write_window(struct runner *r, struct error *err)
{
	const struct workload *w = runner_workload(r);

	if (w->steady_extend == 0 && !w->work.on)
		return 0;
	return results_window(r->res, w, r->step, r->warm, r->cut, err);
}

/* Whether the window [warm, to)'s SLO metric has a 95% interval that holds the SLO. */
static bool runner_straddles(const struct runner *r, uint32_t to)
{
	double lo, hi, slo = (double)r->c->slo_latency_ns;

	agg_window_ci(r->agg, r->warm, to, r->c, &lo, &hi);
	return hi > 0 && lo <= slo && hi > slo;
}

/*
 * Judging a complete interval. steady: {extend: N}: once the planned intervals are in,
 * a step whose SLO metric's 95% interval (agg_window_ci over every interval since the
 * warm-up) still holds the SLO's latency runs on, more intervals, never fewer, until it
 * lies on one side or the extension runs out. Fixed work ends with the interval in which
 * the last worker finished. true when the window ends at this one.
 */
static bool runner_judge(struct runner *r, uint32_t interval)
{
	const struct workload *w = runner_workload(r);
	uint32_t to = interval + 1;

	/* fixed work: the step ends with the interval in which the last worker finished */
	if (w->work.on) {
		const struct agg_record *m = agg_merged(r->agg, interval);

		/* of the workers merged (an agent lost on the way no longer counts) */
		if (r->cut != 0 || m == NULL || m->workers == 0 || m->finished < m->workers)
			return false;
		runner_cut(r, to);
		return true;
	}
	if (w->steady_extend == 0 || r->cut != 0 || to < r->planned)
		return false;
	if (to < r->nintervals && runner_straddles(r, to))
		return false;
	runner_cut(r, to);
	return true;
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

	if (runner_workload(r)->work.on)
		log_info("%s: every worker did its work by interval %u: ending the step",
		         runner_workload(r)->name, r->cut);
	else
		log_info("%s step %u decided after %u extra interval(s): ending it",
		         runner_workload(r)->name, r->step + 1, r->cut - r->planned);
	es.workload_index = (uint32_t)r->w;
	es.step = r->step;
	env.body_case = IOCURVE__ENVELOPE__BODY_END_STEP;
	env.end_step = &es;
	runner_agents_send_all(r->agents, &env);
}

/*
 * One interval through the pipeline, each stage once:
 *   merge  agent ai's report into the interval (ir NULL: an agent's loss
 *          completed interval i, whose reports are all merged already);
 *   judge  whether the measured window ends with it, once it is complete;
 *   write  the agent's line, the window, the fleet's line (in that order);
 *   emit   the agent's interval event, the fleet's, and an early end of the step.
 * An interval still waiting for agents stops at the agent's line and event.
 * RUNNER_BAD_REPORT: the agent's report was refused (err says why), nothing merged.
 */
#define RUNNER_BAD_REPORT (-2)
/* The latest time an agent's clock may say (ns): 146 years, far from int64_t's end. */
#define RUNNER_AGENT_TIME_MAX (UINT64_C(1) << 62)
/* How far from its planned start an agent may say it started a step (an hour). */
#define RUNNER_START_SLACK_NS ((int64_t)(3600 * NSEC_PER_SEC))
static int runner_interval(struct runner *r, uint32_t ai, uint32_t i,
                           const Iocurve__IntervalReport *ir, struct error *err)
{
	const struct workload *w = runner_workload(r);
	const char *name = ir != NULL ? runner_agents_name(r->agents, ai) : NULL;
	struct agg_record *rec = NULL;
	const struct agg_record *m;
	bool cut;
	int rc = -1;

	/* Merge. */
	if (ir != NULL) {
		rec = xmalloc(sizeof(*rec));
		if (agg_add(r->agg, ai, ir, rec, &m, err) < 0) {
			error_prefix(err, "agent %s: bad interval report: ", name);
			rc = RUNNER_BAD_REPORT;
			goto out;
		}
	} else {
		m = agg_merged(r->agg, i);
	}
	/* Judge. */
	cut = m != NULL && runner_judge(r, i);
	/* Write. */
	if (rec != NULL && results_interval(r->res, w, r->step, r->rate, i, name, rec, err) < 0)
		goto out;
	if (cut && runner_write_window(r, err) < 0)
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
	if (cut && r->cut < r->nintervals)
		runner_end_step(r);
	rc = 0;
out:
	free(rec);
	return rc;
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
 * of the workload's first step's, or cooldown.max spent, and the step starts
 * (the cooldown line first); else another probe.
 */
static int runner_probe_end(struct runner *r, struct error *err)
{
	const struct agg_record *m = agg_merged(r->probe, 0);
	double svc = m != NULL && m->rec.ops > 0 ? hist_mean(&m->rec.service) : 0;
	double ref = r->points[r->w][0].svc_mean_ns;
	uint64_t spent = clock_now_ns() - r->cool_from;
	bool ok = svc > 0 && svc <= ref * (1 + r->c->cooldown.margin_pct / 100);

	if (!ok && spent < r->c->cooldown.max_ns) {
		runner_enter(r, RUNNER_COOLING);
		return 0;
	}
	r->cool_ms = (uint32_t)(spent / NSEC_PER_MSEC);
	r->cool_outcome = ok ? "recovered" : "timeout";
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
 * retry: N: a step whose client was disturbed (agg_point's client_bound) runs again at
 * the same rate, up to N times, before it counts (not one that lost an agent); the
 * attempt's lines stay in
 * intervals.jsonl behind a retried line. 1: it runs again; 0: it counts; -1: err.
 */
static int runner_retry(struct runner *r, struct error *err)
{
	const struct workload *w = runner_workload(r);
	struct step_point *pt;
	bool disturbed;

	if (r->retries >= w->retry)
		return 0;
	pt = xmalloc(sizeof(*pt));
	agg_point(r->agg, r->step, r->rate, r->c, pt);
	agg_point_workload(pt, r->c, runner_workload(r));
	/*
	 * A step that lost an agent is not re-run: the loss is the step's, and a retry on
	 * the agents left would hide where it happened (its point carries the mark).
	 */
	disturbed = pt->client_bound && pt->agents_lost == 0;
	if (disturbed)
		log_warn("%s step %u: the client's %.0f us in the SLO metric can have moved its "
		         "verdict (issue lateness %.0f us, reap delay %.0f us): running it again "
		         "(retry %u of %u)",
		         w->name, r->step + 1, pt->client_slo_ns / 1e3, pt->issue_late_ns / 1e3,
		         pt->reap_delay_ns / 1e3, r->retries + 1, w->retry);
	free(pt);
	if (!disturbed)
		return 0;
	if (results_retried(r->res, w, r->step, ++r->retries, err) < 0 ||
	    results_sync(r->res, err) < 0)
		return -1;
	runner_enter(r, RUNNER_STEPPING);
	return 1;
}

/* Every agent (lost ones count) is done with the step: its window, its point, what next. */
static int runner_step_end(struct runner *r, struct error *err)
{
	int next;

	if (r->cut == 0) {
		runner_cut(r, r->nintervals);
		if (runner_write_window(r, err) < 0)
			return -1;
	}
	if (!agg_complete(r->agg)) {
		error_set(err, "step %u: agents finished without reporting every interval",
		          r->step + 1);
		return -1;
	}
	next = runner_retry(r, err);
	if (next != 0)
		return next < 0 ? -1 : 0;
	next = runner_step_point(r, err);
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
static int runner_probe_interval(struct runner *r, uint32_t ai, const Iocurve__IntervalReport *ir,
                                 struct error *err)
{
	struct agg_record *rec = xmalloc(sizeof(*rec));
	const struct agg_record *m;
	int rc = agg_add(r->probe, ai, ir, rec, &m, err);

	if (rc < 0)
		error_prefix(err,
		             "agent %s: bad probe report: ", runner_agents_name(r->agents, ai));
	free(rec);
	return rc < 0 ? RUNNER_BAD_REPORT : 0;
}

/* One finish mark on the timeline (marks.h): worker k of agent ai, or (k < 0) the agent. */
static int runner_finish_mark(struct runner *r, uint32_t ai, int k, double at_s, struct error *err)
{
	const struct workload *w = runner_workload(r);
	const char *name = runner_agents_name(r->agents, ai);
	uint64_t at = (uint64_t)(at_s * 1e9);
	uint32_t iv = at / w->interval_ns < r->nintervals ? (uint32_t)(at / w->interval_ns)
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
 * Fixed work: agent ai's finishes (storm[from..]) marked on the timeline, each
 * worker's while the fleet has at most STORM_MAX_MARKS workers, else the agent's
 * once all of its workers are done.
 */
static int runner_finish_marks(struct runner *r, uint32_t ai, size_t from, struct error *err)
{
	const struct workload *w = runner_workload(r);
	bool per_agent = (size_t)runner_agents_count(r->agents) * w->io.workers > STORM_MAX_MARKS;
	double last = 0;

	for (size_t i = from; i < r->nstorm; i++) {
		const struct storm_worker *sw = &r->storm[i];

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
	return per_agent && r->nstorm > from ? runner_finish_mark(r, ai, -1, last, err) : 0;
}

/*
 * Agent ai's StepDone: its clock line; the step's end once every agent's is in.
 * RUNNER_BAD_REPORT: its start, brought onto the coordinator's clock, is not within
 * RUNNER_START_SLACK_NS of the planned one (err says so), nothing written.
 */
static int runner_step_done(struct runner *r, uint32_t ai, const Iocurve__StepDone *d,
                            struct error *err)
{
	uint64_t agent_start = d->start_time;
	const struct intervals_clock *k = runner_agents_step_done(r->agents, ai, agent_start);
	int64_t off = (int64_t)k->start_ns - (int64_t)k->planned_ns;

	if (k->start_ns > RUNNER_AGENT_TIME_MAX || off > RUNNER_START_SLACK_NS ||
	    off < -RUNNER_START_SLACK_NS) {
		error_set(
		    err,
		    "agent %s: bad StepDone: start_time %llu is %+.3f s from the planned start "
		    "on its clock (at most %d s)",
		    runner_agents_name(r->agents, ai), (unsigned long long)agent_start,
		    (double)off / 1e9, (int)(RUNNER_START_SLACK_NS / NSEC_PER_SEC));
		return RUNNER_BAD_REPORT;
	}
	if (results_clock(r->res, runner_workload(r), r->step, runner_agents_name(r->agents, ai), k,
	                  err) < 0)
		return -1;
	if (runner_workload(r)->work.on) {
		size_t from = r->nstorm;
		int rc = runner_work_done(r->agents, ai, runner_workload(r), d, r->res, r->step,
		                          &r->storm, &r->nstorm, err);

		if (rc < 0)
			return rc == -1 ? -1 : RUNNER_BAD_REPORT;
		if (runner_finish_marks(r, ai, from, err) < 0)
			return -1;
	}
	return runner_agents_all_done(r->agents) ? runner_step_end(r, err) : 0;
}

/* Laying out big targets takes a while: say how far along each agent is. */
static void runner_layout_progress(struct runner *r, uint32_t ai, const Iocurve__LayoutProgress *lp)
{
	if (r->state != RUNNER_PREPARING || lp->workload_index != r->w || lp->bytes_total == 0)
		return;
	/* More done than there is: not progress any view could show (a share over 100%). */
	if (lp->bytes_done > lp->bytes_total) {
		log_warn(
		    "agent %s: LayoutProgress ignored: bytes_done %llu is more than bytes_total "
		    "%llu",
		    runner_agents_name(r->agents, ai), (unsigned long long)lp->bytes_done,
		    (unsigned long long)lp->bytes_total);
		return;
	}
	events_emit(r->ev, &(struct event){.kind = EVENT_LAYOUT,
	                                   .layout = {.workload = (uint32_t)r->w,
	                                              .agent = runner_agents_name(r->agents, ai),
	                                              .done = lp->bytes_done,
	                                              .total = lp->bytes_total}});
	/* Progress means the agent is alive: give it the full preparation time again. */
	runner_arm(r, RUNNER_PREPARE_NS);
}

static void runner_lose_session(struct runner *r, struct session *s, int ai, const char *reason);

/*
 * A report out of range or out of place (why: agent, interval, field, value): the
 * agent is lost to the campaign and its session given back, nothing of the report
 * kept; on_agent_loss decides whether the campaign goes on without it.
 */
static void runner_refuse_report(struct runner *r, struct session *s, int ai, const char *why)
{
	log_warn("%s: report refused, the agent leaves the campaign", why);
	runner_lose_session(r, s, ai, why);
}

static void runner_on_message(struct session *s, const Iocurve__Envelope *env, void *arg)
{
	struct runner *r = arg;
	int ai = runner_agents_index(r->agents, s);
	const Iocurve__IntervalReport *ir;
	char text[1024];
	struct error err;
	int rc;

	if (ai < 0 || !runner_live(r))
		return;
	switch (env->body_case) {
	case IOCURVE__ENVELOPE__BODY_READY:
		if (r->state != RUNNER_PREPARING || env->ready->workload_index != r->w)
			return;
		if (runner_agents_set_ready(r->agents, (uint32_t)ai))
			runner_go_on(r, runner_next_rate(r));
		break;
	case IOCURVE__ENVELOPE__BODY_INTERVAL_REPORT:
		ir = env->interval_report;
		if (r->state == RUNNER_COOLING && ir->workload_index == r->w &&
		    ir->step == r->step) {
			if (runner_probe_interval(r, (uint32_t)ai, ir, &err) < 0)
				runner_refuse_report(r, s, ai, err.msg);
			return;
		}
		if (r->state != RUNNER_STEPPING || ir->workload_index != r->w ||
		    ir->step != r->step) {
			log_warn("agent %s: stale report (workload %u step %u) ignored",
			         runner_agents_name(r->agents, (uint32_t)ai), ir->workload_index,
			         ir->step);
			return;
		}
		rc = runner_interval(r, (uint32_t)ai, ir->interval, ir, &err);
		if (rc == RUNNER_BAD_REPORT)
			runner_refuse_report(r, s, ai, err.msg);
		else if (rc < 0)
			runner_fail(r, "%s", err.msg);
		break;
	case IOCURVE__ENVELOPE__BODY_STEP_DONE:
		/* A start on the agent's clock: signed arithmetic converts it (clocksync). */
		if (env->step_done->start_time > RUNNER_AGENT_TIME_MAX) {
			snprintf(text, sizeof(text),
			         "agent %s: bad StepDone: start_time %llu is outside [0, %llu]",
			         session_name(s), (unsigned long long)env->step_done->start_time,
			         (unsigned long long)RUNNER_AGENT_TIME_MAX);
			runner_refuse_report(r, s, ai, text);
			return;
		}
		if (r->state == RUNNER_COOLING && env->step_done->workload_index == r->w &&
		    env->step_done->step == r->step) {
			runner_agents_step_done(r->agents, (uint32_t)ai,
			                        env->step_done->start_time);
			if (runner_agents_all_done(r->agents) && runner_probe_end(r, &err) < 0)
				runner_fail(r, "%s", err.msg);
			return;
		}
		if (r->state != RUNNER_STEPPING || env->step_done->workload_index != r->w ||
		    env->step_done->step != r->step)
			return;
		rc = runner_step_done(r, (uint32_t)ai, env->step_done, &err);
		if (rc == RUNNER_BAD_REPORT)
			runner_refuse_report(r, s, ai, err.msg);
		else if (rc < 0)
			runner_fail(r, "%s", err.msg);
		break;
	case IOCURVE__ENVELOPE__BODY_LAYOUT_PROGRESS:
		runner_layout_progress(r, (uint32_t)ai, env->layout_progress);
		break;
	case IOCURVE__ENVELOPE__BODY_ERROR:
		text_clean(env->error->message, text, sizeof(text), false);
		/*
		 * The agent cannot go on (its workers stopped on their dead-man: it was
		 * starved or cut off): its loss, not the campaign's failure. It stays
		 * connected, idle, for the next campaign.
		 */
		if (env->error->agent_lost) {
			runner_lose_session(r, s, ai, text);
			break;
		}
		{
			char hint[256];

			local_cap_hint(r->c, text, hint, sizeof(hint));
			runner_fail(r, "agent %s: %s%s", session_name(s), text, hint);
		}
		break;
	default:
		log_warn("agent %s: unexpected %s", session_name(s),
		         env->body_case == IOCURVE__ENVELOPE__BODY_ABORT ? "Abort" : "message");
		break;
	}
}

static void runner_meta_write(FILE *f, const void *arg)
{
	fputs(arg, f);
	fputc('\n', f);
}

/* Every agent joined: describe the run in meta.json (runmeta.c). */
static void runner_write_meta(struct runner *r)
{
	uint32_t n = runner_agents_count(r->agents);
	struct session **s = xcalloc(n ? n : 1, sizeof(*s));
	struct error err;

	for (uint32_t i = 0; i < n; i++)
		s[i] = runner_agents_session(r->agents, i);
	free(r->meta);
	/* A resumed run keeps the first run's description: its date and hosts are the record. */
	r->meta = derive_meta_read(results_dir(r->res));
	between_free(r->between);
	if (r->meta == NULL) {
		char *meta = runmeta_json(r->c, s, n, r->command);

		/* once, at the start: the earlier runs, recorded so a report later says the same */
		r->between = between_find(results_dir(r->res), r->c, meta);
		r->meta = between_record(meta, r->between);
		free(meta);
		if (r->meta != NULL && derive_file(results_dir(r->res), "meta.json",
		                                   runner_meta_write, r->meta, &err) < 0)
			log_warn("%s", err.msg);
	} else {
		r->between = between_find(results_dir(r->res), r->c, r->meta);
	}
	free(s);
	r->end.between = r->between;
}

/* While waiting: claim an idle, synced agent the campaign selects; the last one starts it. */
static void runner_claim(struct runner *r, struct session *s)
{
	struct error err;

	if (r->state != RUNNER_WAITING || !runner_agents_claim(r->agents, s))
		return;
	/* An agent that would lay the plan out otherwise (no clone) is refused before any I/O. */
	if (prepare_check_caps(r->c, session_caps(s), session_name(s), session_version(s), &err) <
	    0) {
		runner_fail(r, "%s", err.msg);
		return;
	}
	events_emit(r->ev, &(struct event){.kind = EVENT_AGENT,
	                                   .agent = {.name = session_name(s),
	                                             .state = EVENT_AGENT_READY,
	                                             .n = runner_agents_count(r->agents),
	                                             .of = runner_agents_wanted(r->agents)}});
	if (runner_agents_full(r->agents)) {
		runner_write_meta(r);
		runner_next_workload(r);
	}
}

static void runner_on_ready(struct session *s, void *arg)
{
	runner_claim(arg, s);
}

/*
 * on_agent_loss: continue. The step in progress runs on with the others (its
 * intervals from where the agent left wait only for them, and its point says
 * so); the next step splits the load over the agents present.
 */
static int runner_carry_on(struct runner *r, uint32_t ai, const char *reason, struct error *err)
{
	uint32_t present = runner_agents_present(r->agents), left = UINT32_MAX;
	const char *name = runner_agents_name(r->agents, ai);
	char words[768];

	if (present == 0) {
		error_set(err, "agent %s lost: %s; no agent is left", name, reason);
		return -1;
	}
	if (r->state == RUNNER_STEPPING)
		left = agg_drop_agent(r->agg, ai);
	/* On disk first: `report` and every summary say who was lost, when and why. */
	runend_add_loss(&r->end, name, runner_workload(r)->name, r->step, left, reason);
	if (results_lost(r->res, runner_workload(r), r->step, name, left, reason, err) < 0)
		return -1;
	runend_loss_words(
	    &r->end.losses[r->end.nlosses <= RUNEND_MAX_LOSSES ? r->end.nlosses - 1
	                                                       : RUNEND_MAX_LOSSES - 1],
	    words, sizeof(words));
	log_warn("%s: continued with %u of %u agents (on_agent_loss: continue)", words, present,
	         runner_agents_count(r->agents));
	if (left == UINT32_MAX)
		left = 0;
	if (r->state == RUNNER_PREPARING) {
		if (runner_agents_all_ready(r->agents))
			runner_go_on(r, runner_next_rate(r));
		return 0;
	}
	if (r->state == RUNNER_COOLING) {
		agg_drop_agent(r->probe, ai);
		return runner_agents_all_done(r->agents) ? runner_probe_end(r, err) : 0;
	}
	/* Intervals the others had all reported are complete now. */
	for (uint32_t i = left; i < r->nintervals; i++)
		if (runner_interval(r, ai, i, NULL, err) < 0)
			return -1;
	return runner_agents_all_done(r->agents) ? runner_step_end(r, err) : 0;
}

/* Agent ai is lost (its session closed, or it said it cannot go on): on_agent_loss decides. */
static void runner_lose(struct runner *r, int ai, const char *reason)
{
	struct error err;

	events_emit(r->ev, &(struct event){.kind = EVENT_AGENT,
	                                   .agent = {.name = runner_agents_name(r->agents, ai),
	                                             .state = EVENT_AGENT_LOST,
	                                             .reason = reason}});
	if (r->state == RUNNER_WAITING) {
		/* Not started yet: forget it, wait for another. */
		runner_agents_forget(r->agents, (uint32_t)ai);
		return;
	}
	runner_agents_lose(r->agents, (uint32_t)ai);
	if (r->state != RUNNER_PREPARING && r->state != RUNNER_STEPPING &&
	    r->state != RUNNER_COOLING)
		return;
	if (r->c->abort_on_agent_loss)
		runner_fail(r, "agent %s lost: %s (on_agent_loss: abort)",
		            runner_agents_name(r->agents, ai), reason);
	else if (runner_carry_on(r, (uint32_t)ai, reason, &err) < 0)
		runner_fail(r, "%s", err.msg);
}

/* The agent said it cannot go on: given back to the daemon (idle), lost to this campaign. */
static void runner_lose_session(struct runner *r, struct session *s, int ai, const char *reason)
{
	session_release(s, r);
	runner_lose(r, ai, reason);
}

static void runner_on_lost(struct session *s, const char *reason, void *arg)
{
	struct runner *r = arg;
	int ai = runner_agents_index(r->agents, s);
	const char *parked;

	if (ai >= 0) {
		runner_lose(r, ai, reason);
		return;
	}
	/* an agent of another target, idle in this workload: it drives nothing more */
	if ((parked = runner_agents_parked_name(r->agents, s)) == NULL)
		return;
	{
		char name[128];

		snprintf(name, sizeof(name), "%s", parked);
		runner_agents_drop_parked(r->agents, s);
		events_emit(r->ev, &(struct event){.kind = EVENT_AGENT,
		                                   .agent = {.name = name,
		                                             .state = EVENT_AGENT_LOST,
		                                             .reason = reason}});
		if (r->c->abort_on_agent_loss && runner_live(r))
			runner_fail(r, "agent %s lost: %s (on_agent_loss: abort)", name, reason);
		else
			log_warn("agent %s lost between its target's workloads: %s", name, reason);
	}
}

static const struct server_cbs runner_server_cbs = {
    .on_agent_ready = runner_on_ready,
    .on_agent_message = runner_on_message,
    .on_agent_lost = runner_on_lost,
};

/* A phase took too long: name who was waited for. */
static void runner_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct runner *r = arg;
	char names[512];

	switch (r->state) {
	case RUNNER_WAITING:
		runner_agents_waited(r->agents, r->srv, RUNNER_AGENTS_JOIN, names, sizeof(names));
		runner_fail(r, "waited for %u agent(s), %u ready; connected: %s",
		            runner_agents_wanted(r->agents), runner_agents_count(r->agents),
		            names[0] ? names : "none");
		break;
	case RUNNER_PREPARING:
		runner_agents_waited(r->agents, r->srv, RUNNER_AGENTS_READY, names, sizeof(names));
		runner_fail(r, "workload %s: not ready in time: %s", runner_workload(r)->name,
		            names);
		break;
	case RUNNER_COOLING:
		runner_agents_waited(r->agents, r->srv, RUNNER_AGENTS_STEP, names, sizeof(names));
		runner_fail(r, "workload %s: cooldown before step %u: no StepDone from %s in time",
		            runner_workload(r)->name, r->step + 1, names);
		break;
	case RUNNER_STEPPING:
		runner_agents_waited(r->agents, r->srv, RUNNER_AGENTS_STEP, names, sizeof(names));
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
	r->state = RUNNER_IDLE;
	r->agents = runner_agents_new(c->agents_count, c->labels, c->nlabels, r);
	if (c->agents_mode == CAMPAIGN_AGENTS_SELECT)
		for (size_t i = 0; i < c->ntargets; i++)
			if (c->targets[i].nlabels > 0) {
				runner_agents_targets(r->agents, c->targets, c->ntargets);
				break;
			}
	r->points = xcalloc(c->nworkloads, sizeof(*r->points));
	r->npoints = xcalloc(c->nworkloads, sizeof(*r->npoints));
	r->cap = xcalloc(c->nworkloads, sizeof(*r->cap));
	r->judged = xcalloc(c->nworkloads, sizeof(*r->judged));
	for (size_t i = 0; i < c->nworkloads; i++)
		judged_update(&r->judged[i], c, &c->workloads[i], NULL, 0);
	r->timer = evtimer_new(base, runner_timer_cb, r);
	r->end_ev = event_new(base, -1, 0, runner_end_cb, r);
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
	/* runner_next_workload passes over the workloads these points finish. */
}

void runner_resume_marks(struct runner *r, const struct run_mark *marks, size_t n)
{
	for (size_t i = 0; i < n; i++)
		mark_list_add(&r->marks, &marks[i]);
	r->end.marks = r->marks.v;
	r->end.nmarks = r->marks.n;
}

void runner_resume_losses(struct runner *r, const struct runend *end)
{
	for (uint32_t i = 0; i < end->nlosses && i < RUNEND_MAX_LOSSES; i++) {
		const struct runend_loss *l = &end->losses[i];

		runend_add_loss(&r->end, l->agent, l->workload, l->step, l->interval, l->reason);
	}
}

void runner_start(struct runner *r)
{
	struct session *s, *next;

	server_set_cbs(r->srv, &runner_server_cbs, r);
	runner_enter(r, RUNNER_WAITING);
	for (s = server_first_session(r->srv); s != NULL; s = next) {
		next = session_next(s);
		runner_claim(r, s);
	}
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
		error_set(err, "the campaign has ended (%s)", runner_table[r->state].name);
		return -1;
	}
	w = runner_workload(r);
	step = r->step;
	if (r->started && r->start_w == r->w && r->start_step == r->step) {
		/* the step in progress (or its retry): since its start, in an interval or not */
		at = now > r->step_start_ns ? now - r->step_start_ns : 0;
		if (r->state == RUNNER_STEPPING && now >= r->step_start_ns &&
		    at / w->interval_ns < r->nintervals)
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

void runner_cancel(struct runner *r, const char *why)
{
	runner_stop(r, RUNNER_CANCELLED, why);
}

void runner_report(struct runner *r, FILE *f)
{
	char knee[512], bs[32], degraded[2048], between[4096];

	fprintf(f, "\n");
	for (size_t i = 0; i < r->c->nworkloads; i++) {
		const struct workload *w = &r->c->workloads[i];

		if (r->npoints[i] == 0)
			continue;
		units_format_size(w->io.block_size, bs, sizeof(bs));
		fprintf(f, "%s (%s, %s%s%s%s%s):\n", w->name, rw_mode_name(w->io.rw), bs,
		        w->io.direct ? "" : ", buffered", w->io.clone[0] ? ", clone '" : "",
		        w->io.clone, w->io.clone[0] ? "'" : "");
		table_print_steps(f, &r->judged[i]);
		table_knee_text(&r->judged[i], knee, sizeof(knee));
		fprintf(f, "%s\n\n", knee);
		if (w->work.on)
			fprintf(f,
			        "throughput and latency over time, each finish marked: "
			        "%s/time-%s.svg\n\n",
			        results_dir(r->res), w->name);
	}
	/* What it lost, above the figures that lack it (the end line says it too). */
	if (runend_degraded(&r->end, degraded, sizeof(degraded)))
		fprintf(f, "%s\n\n", degraded);
	table_print_summary(f, r->c, r->judged);
	if (bytarget_shown(r->c)) {
		fputc('\n', f);
		bytarget_print(f, r->c, r->judged);
	}
	if (between_text(r->between, r->c, r->judged, between, sizeof(between)))
		fprintf(f, "\n%s\n", between);
	fprintf(f, "\nresults: %s\n", results_dir(r->res));
}

void runner_free(struct runner *r)
{
	if (r == NULL)
		return;
	runner_agents_free(r->agents);
	server_set_cbs(r->srv, NULL, NULL);
	event_free(r->timer);
	event_free(r->end_ev);
	agg_step_free(r->agg);
	agg_step_free(r->probe);
	for (size_t i = 0; i < r->c->nworkloads; i++)
		free(r->points[i]);
	free(r->points);
	judged_free_all(r->judged, r->c->nworkloads);
	free(r->npoints);
	free(r->cap);
	free(r->command);
	free(r->meta);
	free(r->storm);
	between_free(r->between);
	mark_list_free(&r->marks);
	free(r);
}

void runner_set_command(struct runner *r, const char *command)
{
	free(r->command);
	r->command = xstrdup(command);
}
