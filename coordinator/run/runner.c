/* SPDX-License-Identifier: MIT */
/*
 * The campaign runner's state machine: claims agents, prepares each workload, runs its
 * steps in lockstep (runner_step.c), reports its end (runner_end.c).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "events.h"
#include "loadspec.h"
#include "local.h"
#include "log.h"
#include "prepare.h"
#include "runner.h"
#include "runner_core.h"
#include "runner_features.h"
#include "table.h"
#include "text.h"
#include "xalloc.h"

static void runner_wait(struct runner *r);
static void runner_prepare(struct runner *r);
static void runner_end(struct runner *r);
static void runner_wait_expired(struct runner *r);
static void runner_prepare_expired(struct runner *r);
static void runner_step_expired(struct runner *r);
static void runner_cool_expired(struct runner *r);
static int runner_prepare_lost(struct runner *r, uint32_t ai, uint32_t left, struct error *err);

/*
 * The state table: the moves each state allows and what makes them, what entering it
 * does, what its deadline passing does, and who takes an agent's interval report, its
 * StepDone and its loss in it (none: a report is stale, a StepDone ignored, a loss only
 * recorded). Every live state may fail (runner_fail: an agent's Error, a loss under
 * abort or of the last agent, a phase's timer, a results write) or be cancelled
 * (runner_cancel). runner_enter makes every move and refuses one not listed.
 */
static const struct runner_state_row runner_table[RUNNER_NSTATES] = {
    /* runner_start */
    [RUNNER_IDLE] = {RUNNER_TO(RUNNER_WAITING) | RUNNER_TO_END},
    /* the last agent claimed: the first workload with a step left; none left (resumed): done */
    [RUNNER_WAITING] = {RUNNER_TO(RUNNER_PREPARING) | RUNNER_TO(RUNNER_DONE) | RUNNER_TO_END,
                        runner_wait, runner_wait_expired},
    /* every agent Ready (lost ones count): the planner's first rate; none: next workload */
    [RUNNER_PREPARING] = {RUNNER_TO(RUNNER_STEPPING) | RUNNER_TO(RUNNER_PREPARING) |
                              RUNNER_TO(RUNNER_DONE) | RUNNER_TO_END,
                          runner_prepare, runner_prepare_expired, .lost = runner_prepare_lost},
    /*
     * every agent's StepDone, the step's point: the planner's next rate (after a step
     * that fell behind or saturated, a cooldown first); none: next workload
     */
    [RUNNER_STEPPING] = {RUNNER_TO(RUNNER_STEPPING) | RUNNER_TO(RUNNER_COOLING) |
                             RUNNER_TO(RUNNER_PREPARING) | RUNNER_TO(RUNNER_DONE) | RUNNER_TO_END,
                         runner_start_step, runner_step_expired, runner_step_report,
                         runner_step_done, runner_step_lost},
    /*
     * every agent's StepDone of the probe: its service time back within the margin,
     * or cooldown.max spent: the step; else another probe
     */
    [RUNNER_COOLING] = {RUNNER_TO(RUNNER_STEPPING) | RUNNER_TO(RUNNER_COOLING) | RUNNER_TO_END,
                        runner_start_probe, runner_cool_expired, runner_probe_report,
                        runner_probe_done, runner_probe_lost},
    /* the ends: nothing moves them; their end is reported once, from the loop */
    [RUNNER_DONE] = {0, runner_end},
    [RUNNER_FAILED] = {0, runner_end},
    [RUNNER_CANCELLED] = {0, runner_end},
};

/* Why the campaign failed (runner.h). */
const char *runner_error(const struct runner *r)
{
	return r->error;
}

/* Entering WAITING: agents have this long to join. */
static void runner_wait(struct runner *r)
{
	runner_arm(r, r->c->agents_mode == CAMPAIGN_AGENTS_LOCAL ? RUNNER_LOCAL_WAIT_NS
	                                                         : r->c->agents_wait_ns);
}

/* Entering PREPARING: the agents present prepare workload w. */
static void runner_prepare(struct runner *r)
{
	const struct workload *w = runner_workload(r);
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	struct prepare_msg m;
	struct error err;
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
	                                         .rw = mix_kind_name(&w->io.mix, w->io.rw),
	                                         .block_size = w->io.block_size,
	                                         .workers = w->io.workers,
	                                         .qd = w->io.queue_depth,
	                                         .agents = n,
	                                         .unit = event_unit_of(w),
	                                         .max_steps = (uint32_t)loadspec_max_steps(w)}});
	/* the features first: the background's workers and shared devices are there first */
	if (runner_features_prepare(r, n, &err) < 0) {
		runner_fail(r, "%s", err.msg);
		return;
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
	prepare_free(&m);
	runner_arm(r, RUNNER_PREPARE_NS);
}

/* Entering an end: the timer stopped, the agents given back, the end reported from the loop. */
static void runner_end_go(void *arg)
{
	struct runner *r = arg;

	event_active(r->end_ev, EV_TIMEOUT, 0);
}

static void runner_end(struct runner *r)
{
	event_del(r->timer);
	runner_agents_release(r->agents);
	runner_features_end(r, r->state == RUNNER_DONE, runner_end_go, r);
}

/* Every step ran: done, or failed when steps had I/O errors the plan does not allow. */
static void runner_complete(struct runner *r)
{
	runner_enter(r, runner_check_errors(r) ? RUNNER_FAILED : RUNNER_DONE);
}

/* A replay's knee as a speed of its trace, as summary.json's knee_speed; 0 for none. */
static double runner_knee_speed(const struct judged_curve *j)
{
	const struct knee *k = &j->knee;
	double ops =
	    curve_uses_mib(j->w) ? k->throughput / curve_mean_mibps(j->w, 1) : k->throughput;
	double v = curve_speed(j->w, ops);

	return k->kind != KNEE_NONE && k->kind != KNEE_ALL_OVER && isfinite(v) && v > 0 ? v : 0;
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
	                                   .workload_done = {
	                                       .workload = (uint32_t)r->w,
	                                       .name = w->name,
	                                       .knee_text = knee,
	                                       .knee = k,
	                                       .peak_tp = peak,
	                                       .unit = event_unit_of(w),
	                                       .why = why,
	                                       .limit = r->judged[r->w].limit,
	                                       .knee_speed = runner_knee_speed(&r->judged[r->w])}});
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
	/* a feature's workload (the background) runs beside the others: never stepped here */
	while (r->w < r->c->nworkloads && (runner_features_own(r, r->w) || !runner_replan(r))) {
		if (!runner_features_own(r, r->w))
			runner_emit_workload_done(r);
		r->w++;
	}
	if (r->w < r->c->nworkloads) {
		runner_enter(r, RUNNER_PREPARING);
	} else {
		runner_features_last(r);
		runner_complete(r);
	}
}

/* The workload is ready or has a new point: its next step, or on to the next workload. */
static void runner_advance(struct runner *r, bool next_step)
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

/* What a state's handler said of agent ai's message: refused (the agent leaves), a failure. */
static void runner_handled(struct runner *r, struct session *s, int ai, int rc,
                           const struct error *err)
{
	if (rc == RUNNER_BAD_REPORT)
		runner_refuse_report(r, s, ai, err->msg);
	else if (rc < 0)
		runner_fail(r, "%s", err->msg);
}

/* An agent's message: the state's handler (runner_table) takes reports of its step. */
static void runner_on_message(struct session *s, const Iocurve__Envelope *env, void *arg)
{
	struct runner *r = arg;
	int ai = runner_agents_index(r->agents, s);
	const struct runner_state_row *row;
	const Iocurve__IntervalReport *ir;
	const Iocurve__StepDone *d;
	char text[1024];
	struct error err;

	if (ai < 0 || !runner_live(r))
		return;
	row = &runner_table[r->state];
	switch (env->body_case) {
	case IOCURVE__ENVELOPE__BODY_READY:
		if (r->state != RUNNER_PREPARING ||
		    runner_features_on_ready(r, env->ready->workload_index) ||
		    env->ready->workload_index != r->w)
			return;
		/* the foreground goes once the features are ready too (the background's Ready) */
		if (runner_agents_set_ready(r->agents, (uint32_t)ai) && runner_features_ready(r))
			runner_go_on(r, runner_next_rate(r));
		break;
	case IOCURVE__ENVELOPE__BODY_INTERVAL_REPORT:
		ir = env->interval_report;
		if (runner_features_own(r, ir->workload_index)) {
			runner_handled(r, s, ai, runner_features_report(r, (uint32_t)ai, ir, &err),
			               &err);
			break;
		}
		if (row->report == NULL || ir->workload_index != r->w || ir->step != r->step) {
			uint64_t n = session_noise(s);

			if (n > 0)
				log_warn(
				    "agent %s: stale report (workload %u step %u) ignored (%llu "
				    "lines of its so far)",
				    runner_agents_name(r->agents, (uint32_t)ai), ir->workload_index,
				    ir->step, (unsigned long long)n);
			return;
		}
		runner_handled(r, s, ai, row->report(r, (uint32_t)ai, ir, &err), &err);
		break;
	case IOCURVE__ENVELOPE__BODY_STEP_DONE:
		d = env->step_done;
		/* A start on the agent's clock: signed arithmetic converts it (clocksync). */
		if (d->start_time > RUNNER_AGENT_TIME_MAX) {
			snprintf(text, sizeof(text),
			         "agent %s: bad StepDone: start_time %llu is outside [0, %llu]",
			         session_name(s), (unsigned long long)d->start_time,
			         (unsigned long long)RUNNER_AGENT_TIME_MAX);
			runner_refuse_report(r, s, ai, text);
			return;
		}
		if (row->done == NULL || d->workload_index != r->w || d->step != r->step)
			return;
		runner_handled(r, s, ai, row->done(r, (uint32_t)ai, d, &err), &err);
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
	default: {
		uint64_t n = session_noise(s);

		if (n > 0)
			log_warn(
			    "agent %s: unexpected %s (%llu lines of its so far)", session_name(s),
			    env->body_case == IOCURVE__ENVELOPE__BODY_ABORT ? "Abort" : "message",
			    (unsigned long long)n);
		break;
	}
	}
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
		left = step_drop_agent(r->st, ai);
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
	return runner_table[r->state].lost(r, ai, left == UINT32_MAX ? 0 : left, err);
}

/* Agent ai is lost while the agents prepare: the others' readiness may be all it waits for. */
static int runner_prepare_lost(struct runner *r, uint32_t ai, uint32_t left, struct error *err)
{
	(void)ai, (void)left, (void)err;
	if (runner_agents_all_ready(r->agents))
		runner_go_on(r, runner_next_rate(r));
	return 0;
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
	if (runner_table[r->state].lost == NULL)
		return; /* idle, or ended: nothing waits for it */
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
static void runner_wait_expired(struct runner *r)
{
	char names[512];

	runner_agents_waited(r->agents, r->srv, RUNNER_AGENTS_JOIN, names, sizeof(names));
	runner_fail(r, "waited for %u agent(s), %u ready; connected: %s",
	            runner_agents_wanted(r->agents), runner_agents_count(r->agents),
	            names[0] ? names : "none");
}

static void runner_prepare_expired(struct runner *r)
{
	char names[512];

	runner_agents_waited(r->agents, r->srv, RUNNER_AGENTS_READY, names, sizeof(names));
	runner_fail(r, "workload %s: not ready in time: %s", runner_workload(r)->name, names);
}

static void runner_cool_expired(struct runner *r)
{
	char names[512];

	runner_agents_waited(r->agents, r->srv, RUNNER_AGENTS_STEP, names, sizeof(names));
	runner_fail(r, "workload %s: cooldown before step %u: no StepDone from %s in time",
	            runner_workload(r)->name, r->step + 1, names);
}

static void runner_step_expired(struct runner *r)
{
	char names[512];

	runner_agents_waited(r->agents, r->srv, RUNNER_AGENTS_STEP, names, sizeof(names));
	runner_fail(r, "workload %s step %u: no StepDone from %s in time", runner_workload(r)->name,
	            r->step + 1, names);
}

static void runner_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct runner *r = arg;

	if (runner_table[r->state].expired != NULL)
		runner_table[r->state].expired(r);
}

struct runner *runner_new(struct event_base *base, struct server *srv, const struct campaign *c,
                          struct results *res, struct events *ev, runner_done_fn done, void *arg)
{
	struct runner *r = xcalloc(1, sizeof(*r));

	r->ev = ev;
	r->base = base;
	r->table = runner_table;
	r->go_on = runner_advance;
	r->finish_step = runner_step_finish;
	r->srv = srv;
	r->c = c;
	r->res = res;
	r->done = done;
	r->done_arg = arg;
	r->state = RUNNER_IDLE;
	r->agents = runner_agents_new(c->agents_count, c->labels, c->nlabels, r);
	runner_features_init(r);
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

	struct error err;

	server_set_cbs(r->srv, &runner_server_cbs, r);
	runner_enter(r, RUNNER_WAITING);
	if (runner_features_start(r, &err) < 0) {
		runner_fail(r, "%s", err.msg);
		return;
	}
	for (s = server_first_session(r->srv); s != NULL; s = next) {
		next = session_next(s);
		runner_claim(r, s);
	}
}

void runner_cancel(struct runner *r, const char *why)
{
	runner_stop(r, RUNNER_CANCELLED, why);
}

void runner_free(struct runner *r)
{
	if (r == NULL)
		return;
	runner_end_wait(r);
	runner_agents_free(r->agents);
	server_set_cbs(r->srv, NULL, NULL);
	event_free(r->timer);
	event_free(r->end_ev);
	runner_features_free(r);
	step_free(r->st);
	step_free(r->probe);
	agg_record_free(r->report);
	for (size_t i = 0; i < r->c->nworkloads; i++)
		free(r->points[i]);
	free(r->points);
	judged_free_all(r->judged, r->c->nworkloads);
	free(r->npoints);
	free(r->cap);
	free(r->command);
	free(r->meta);
	between_free(r->between);
	mark_list_free(&r->marks);
	free(r);
}

void runner_set_command(struct runner *r, const char *command)
{
	free(r->command);
	r->command = xstrdup(command);
}
