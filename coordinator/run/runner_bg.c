/* SPDX-License-Identifier: MIT */
/* Load under load: the background workload beside the foreground's steps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "background.h"
#include "bgfig.h"
#include "clock.h"
#include "log.h"
#include "prepare.h"
#include "runner_core.h"
#include "runner_features.h"
#include "xalloc.h"

/* Reports of a step's window may come this long after its last interval ended. */
#define RUNNER_BG_HOLD_NS (250 * NSEC_PER_MSEC)
/* A background interval lies inside a window with this much rounding either side. */
#define RUNNER_BG_EDGE_NS NSEC_PER_MSEC

static const struct workload *runner_bg_workload(const struct runner *r)
{
	return &r->c->workloads[r->bg.w];
}

static void runner_bg_hold_cb(evutil_socket_t fd, short what, void *arg);

static void runner_bg_init(struct runner *r)
{
	memset(&r->bg, 0, sizeof(r->bg));
	r->bg.w = background_of(r->c);
	if (r->bg.w < 0)
		return;
	r->bg.acc = xmalloc(sizeof(*r->bg.acc));
	record_init(r->bg.acc);
	r->bg.hold_ev = evtimer_new(r->base, runner_bg_hold_cb, r);
}

static void runner_bg_free(struct runner *r)
{
	if (r->bg.hold_ev != NULL)
		event_free(r->bg.hold_ev);
	if (r->bg.acc != NULL)
		record_release(r->bg.acc); /* a mix's parts, merged from its reports */
	free(r->bg.acc);
	free(r->bg.merged);
	r->bg.hold_ev = NULL;
	r->bg.acc = NULL;
	r->bg.merged = NULL;
}

static bool runner_bg_is(const struct runner *r, size_t wi)
{
	return r->bg.w >= 0 && (size_t)r->bg.w == wi;
}

static int runner_bg_prepare(struct runner *r, uint32_t n, struct error *err)
{
	const struct workload *w;
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	struct prepare_msg m;

	(void)err;
	if (r->bg.w < 0 || r->bg.prepared)
		return 0;
	w = runner_bg_workload(r);
	log_info("background workload %s: %s %uB x qd %u x %u workers on %u agent(s), "
	         "through every other workload's steps",
	         w->name, rw_mode_name(w->io.rw), w->io.block_size, w->io.queue_depth,
	         w->io.workers, n);
	prepare_build(&m, r->c, (size_t)r->bg.w);
	env.body_case = IOCURVE__ENVELOPE__BODY_PREPARE;
	env.prepare = &m.p;
	for (uint32_t i = 0; i < n; i++) {
		prepare_for_agent(&m, i, n);
		runner_agents_send(r->agents, i, &env);
	}
	prepare_free(&m); /* a replay's trace is in it: a long-lived daemon kept every one */
	r->bg.prepared = true;
	r->bg.nagents = n;
	r->bg.nready = 0;
	free(r->bg.merged);
	r->bg.merged = xcalloc(n ? n : 1, sizeof(*r->bg.merged));
	return 0;
}

static bool runner_bg_on_ready(struct runner *r, uint32_t wi)
{
	if (!runner_bg_is(r, wi))
		return false;
	if (++r->bg.nready >= r->bg.nagents && r->bg.fg_waiting) {
		r->bg.fg_waiting = false;
		runner_go_on(r, runner_next_rate(r));
	}
	return true;
}

static bool runner_bg_ready(struct runner *r)
{
	if (r->bg.w < 0 || r->bg.nready >= r->bg.nagents)
		return true;
	r->bg.fg_waiting = true;
	return false;
}

/* The background's one long step: its rate split over its workers, as long as allowed. */
static void runner_bg_start(struct runner *r, uint64_t start_ns)
{
	const struct workload *w = runner_bg_workload(r);
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__StartStep ss = IOCURVE__START_STEP__INIT;
	uint32_t n = r->bg.nagents;
	double *rates = xcalloc(w->io.workers, sizeof(*rates));

	for (uint32_t k = 0; k < w->io.workers; k++)
		rates[k] = n ? w->steps[0].ops / ((double)n * w->io.workers) : 0;
	ss.workload_index = (uint32_t)r->bg.w;
	ss.n_worker_rate = w->io.workers;
	ss.worker_rate = rates;
	ss.start_time = start_ns;
	ss.interval_ns = w->interval_ns;
	/* the longest step an agent takes: it ends with the last foreground workload */
	ss.measure_ns = (uint64_t)SETTING_MAX_STEP_INTERVALS * w->interval_ns;
	env.body_case = IOCURVE__ENVELOPE__BODY_START_STEP;
	env.start_step = &ss;
	for (uint32_t i = 0; i < n && i < runner_agents_count(r->agents); i++) {
		ss.clock_offset = runner_agents_offset_at(r->agents, i, start_ns);
		runner_agents_send(r->agents, i, &env);
	}
	free(rates);
	r->bg.start_ns = start_ns;
	r->bg.started = true;
}

static void runner_bg_step(struct runner *r, uint64_t start_ns, uint64_t measure_ns)
{
	const struct workload *w = runner_workload(r);

	(void)measure_ns; /* its window is the step's planned one, extension included */
	if (r->bg.w < 0)
		return;
	if (!r->bg.started)
		runner_bg_start(r, start_ns);
	r->bg.ws = start_ns + w->warmup_ns;
	r->bg.we = r->bg.ws + w->measure_ns + (uint64_t)w->steady_extend * w->interval_ns;
	r->bg.window = true;
	record_reset(r->bg.acc);
	r->bg.nacc = 0;
	if (r->bg.merged != NULL)
		memset(r->bg.merged, 0, r->bg.nagents * sizeof(*r->bg.merged));
}

/* The window's end: the step's measured window once decided, else as planned. */
static uint64_t runner_bg_window_end(const struct runner *r)
{
	uint32_t from, to;

	if (r->st == NULL)
		return r->bg.we;
	step_window(r->st, &from, &to);
	if (to == 0)
		return r->bg.we;
	return r->step_start_ns + (uint64_t)to * runner_workload(r)->interval_ns;
}

/* Reports expected inside the window: whole background intervals, one per agent. */
static uint32_t runner_bg_expected(const struct runner *r)
{
	uint64_t bint = runner_bg_workload(r)->interval_ns, we = runner_bg_window_end(r);
	uint64_t first, last;

	if (r->bg.ws < r->bg.start_ns || we <= r->bg.ws)
		return 0;
	first = (r->bg.ws - r->bg.start_ns + bint - 1) / bint;
	last = (we - r->bg.start_ns) / bint;
	return last > first ? (uint32_t)(last - first) * r->bg.nagents : 0;
}

static void runner_bg_release(struct runner *r)
{
	struct error err;

	r->bg.holding = false;
	event_del(r->bg.hold_ev);
	if (r->state == RUNNER_STEPPING && r->finish_step(r, &err) < 0)
		runner_fail(r, "%s", err.msg);
}

static void runner_bg_hold_cb(evutil_socket_t fd, short what, void *arg)
{
	struct runner *r = arg;

	if (!r->bg.holding)
		return;
	log_warn("background workload %s: %u of %u reports of the step's window came in time",
	         runner_bg_workload(r)->name, r->bg.nacc, runner_bg_expected(r));
	runner_bg_release(r);
}

static int runner_bg_report(struct runner *r, uint32_t ai, const Iocurve__IntervalReport *ir,
                            struct error *err)
{
	uint64_t bint = runner_bg_workload(r)->interval_ns, s0, s1;
	struct record *rec;
	int rc = 0;

	if (!r->bg.started || !r->bg.window)
		return 0;
	s0 = r->bg.start_ns + (uint64_t)ir->interval * bint;
	s1 = s0 + bint;
	if (s0 + RUNNER_BG_EDGE_NS < r->bg.ws || s1 > runner_bg_window_end(r) + RUNNER_BG_EDGE_NS)
		return 0;
	/*
	 * Each agent's interval once: a report sent again counted once per copy, so that
	 * "kept up (10000 of 1000 ops/s)" and a hold released before the honest agents' last
	 * reports were in. Refused as the foreground refuses a repeat.
	 */
	if (ai >= r->bg.nagents || r->bg.merged == NULL)
		return 0; /* not an agent the background was prepared on */
	if (ir->interval < r->bg.merged[ai]) {
		error_set(err, "agent %s: bad background report: interval %u reported twice",
		          runner_agents_name(r->agents, ai), ir->interval);
		return RUNNER_BAD_REPORT;
	}
	rec = xmalloc(sizeof(*rec));
	record_init(rec);
	if (record_decode(rec, ir, err) < 0) {
		error_prefix(
		    err, "agent %s: bad background report: ", runner_agents_name(r->agents, ai));
		rc = RUNNER_BAD_REPORT;
	} else if (record_merge_fits(r->bg.acc, rec, err) < 0) {
		log_warn("background workload %s: a report left out of the step: %s",
		         runner_bg_workload(r)->name, err->msg);
	} else {
		record_merge(r->bg.acc, rec);
		r->bg.nacc++;
		r->bg.merged[ai] = ir->interval + 1;
	}
	record_release(rec);
	free(rec);
	if (rc == 0 && r->bg.holding && r->bg.nacc >= runner_bg_expected(r))
		runner_bg_release(r);
	return rc;
}

static bool runner_bg_hold(struct runner *r)
{
	if (r->bg.w < 0 || !r->bg.window || r->bg.nacc >= runner_bg_expected(r))
		return false;
	r->bg.holding = true;
	event_add(r->bg.hold_ev,
	          &(struct timeval){
	              .tv_sec = (long)((runner_bg_workload(r)->interval_ns + RUNNER_BG_HOLD_NS) /
	                               NSEC_PER_SEC),
	              .tv_usec = (long)((runner_bg_workload(r)->interval_ns + RUNNER_BG_HOLD_NS) %
	                                NSEC_PER_SEC / 1000)});
	return true;
}

static int runner_bg_point(struct runner *r, struct step_point *pt, struct error *err)
{
	struct intervals_bg b = {0};
	double secs;

	if (r->bg.w < 0)
		return 0;
	/*
	 * Over the window's whole background intervals, whoever reported them: an agent
	 * lost (its background stopped) or a report that never came lowers the rate, as
	 * the background the foreground ran beside was lower.
	 */
	secs = r->bg.nagents ? (double)(runner_bg_expected(r) / r->bg.nagents) *
	                           (double)runner_bg_workload(r)->interval_ns / 1e9
	                     : 0;
	bgfig_fill(pt, runner_bg_workload(r)->steps[0].ops, r->bg.acc, r->bg.nacc, secs);
	r->bg.window = false;
	record_reset(r->bg.acc);
	r->bg.nacc = 0;
	snprintf(b.name, sizeof(b.name), "%s", runner_bg_workload(r)->name);
	b.asked_ops = pt->bg.asked_ops;
	b.ops = pt->bg.ops;
	b.mib_s = pt->bg.mib_s;
	b.mean_ns = pt->bg.mean_ns;
	b.p99_ns = pt->bg.p99_ns;
	b.missed = pt->bg.missed;
	b.intervals = pt->bg.intervals;
	return results_background(r->res, runner_workload(r), r->step, &b, err);
}

static void runner_bg_end(struct runner *r)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__EndWorkload ew = IOCURVE__END_WORKLOAD__INIT;

	if (r->bg.w < 0 || !r->bg.prepared)
		return;
	ew.workload_index = (uint32_t)r->bg.w;
	env.body_case = IOCURVE__ENVELOPE__BODY_END_WORKLOAD;
	env.end_workload = &ew;
	runner_agents_send_all(r->agents, &env);
	r->bg.prepared = false;
	r->bg.window = false;
	event_del(r->bg.hold_ev);
}

/* The campaign ends: the background's hold, if any, goes with it. */
static bool runner_bg_stop(struct runner *r, bool complete, void (*go)(void *), void *arg)
{
	(void)complete;
	(void)go;
	(void)arg;
	if (r->bg.hold_ev != NULL)
		event_del(r->bg.hold_ev);
	return false;
}

const struct runner_feature runner_bg_feature = {
    .name = "background",
    .init = runner_bg_init,
    .free = runner_bg_free,
    .owns = runner_bg_is,
    .prepare = runner_bg_prepare,
    .on_ready = runner_bg_on_ready,
    .ready = runner_bg_ready,
    .report = runner_bg_report,
    .step = runner_bg_step,
    .hold = runner_bg_hold,
    .point = runner_bg_point,
    .last = runner_bg_end,
    .end = runner_bg_stop,
};
