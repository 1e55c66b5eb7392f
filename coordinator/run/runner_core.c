/* SPDX-License-Identifier: MIT */
/*
 * The runner's core: its state, the one place it changes (runner_enter, by the table
 * runner.c gives it), failing and stopping, the phase timer, the planner's next rate.
 * Every other runner file calls down into this one; it calls none of them (runner.c's
 * table and hooks are reached through struct runner's pointers).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"
#include "runner_core.h"

const char *runner_state_name(enum runner_state s)
{
	static const char *const names[RUNNER_NSTATES] = {
	    [RUNNER_IDLE] = "idle",           [RUNNER_WAITING] = "waiting",
	    [RUNNER_PREPARING] = "preparing", [RUNNER_STEPPING] = "stepping",
	    [RUNNER_COOLING] = "cooling",     [RUNNER_DONE] = "done",
	    [RUNNER_FAILED] = "failed",       [RUNNER_CANCELLED] = "cancelled",
	};

	return (unsigned)s < RUNNER_NSTATES ? names[s] : "?";
}

void runner_arm(struct runner *r, uint64_t ns)
{
	event_add(r->timer, &(struct timeval){(time_t)(ns / NSEC_PER_SEC),
	                                      (suseconds_t)(ns % NSEC_PER_SEC / 1000)});
}

const struct workload *runner_workload(const struct runner *r)
{
	return &r->c->workloads[r->w];
}

/* Not in an end state: agents' messages and losses still move it. */
bool runner_live(const struct runner *r)
{
	return r->state != RUNNER_DONE && r->state != RUNNER_FAILED && r->state != RUNNER_CANCELLED;
}

/*
 * The one place the state changes: the move must be in runner_table; then what
 * entering the state does. An end state reports from the loop, so no caller of
 * runner_fail finds the runner gone.
 */
void runner_enter(struct runner *r, enum runner_state to)
{
	if (!(r->table[r->state].to & RUNNER_TO(to))) {
		log_error("runner: no move from %s to %s", runner_state_name(r->state),
		          runner_state_name(to));
		abort();
	}
	r->state = to;
	if (r->table[to].enter != NULL)
		r->table[to].enter(r);
}

/* Stop I/O everywhere, keep what is on disk; the end is reported from the loop, once. */
void runner_stop(struct runner *r, enum runner_state to, const char *why)
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

void runner_fail(struct runner *r, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	runner_stop(r, RUNNER_FAILED, msg);
}

/* The planner's next rate for the workload (or the one a resume chose): false when done. */
bool runner_next_rate(struct runner *r)
{
	if (r->have_next) {
		r->have_next = false;
		r->rate = r->next_rate;
		return true;
	}
	return planner_next(&r->plan, &r->judged[r->w], &r->rate);
}
