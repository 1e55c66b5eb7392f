/* SPDX-License-Identifier: MIT */
/* The runner's agents: claiming them, losing one (abort or carry on), their step clocks. */
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "runner_int.h"
#include "text.h"

/* Agents lost before now take no further part: the split is over those present. */
void runner_compact(struct runner *r)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < r->nagents; i++)
		if (r->agents[i].s != NULL) {
			r->agents[n] = r->agents[i];
			session_set_slot(r->agents[n].s, n);
			n++;
		}
	r->nagents = n;
}

int runner_agent_index(const struct runner *r, const struct session *s)
{
	/* runner_claim and runner_compact keep each session's slot: no scan a message. */
	uint32_t slot = session_slot(s);

	return slot < r->nagents && r->agents[slot].s == s ? (int)slot : -1;
}

/*
 * The agent's step start on its own clock, brought back onto the coordinator's
 * with the clock model as it stands now (later rounds included), next to the
 * offset and uncertainty the start was sent with: intervals.jsonl keeps both.
 */
void runner_step_clock(struct runner *r, uint32_t ai, uint64_t agent_start)
{
	struct intervals_clock *k = &r->agents[ai].clock;
	const struct clocksync *cs = session_clock(r->agents[ai].s);
	uint64_t t = (uint64_t)((int64_t)agent_start - k->offset_ns);
	struct error err;

	k->start_agent_ns = agent_start;
	/* Two passes: the offset is evaluated at the time it converts. */
	t = (uint64_t)((int64_t)agent_start - clocksync_offset_at(cs, t));
	k->start_ns = (uint64_t)((int64_t)agent_start - clocksync_offset_at(cs, t));
	if (results_clock(r->res, runner_workload(r), r->step, r->agents[ai].name, k, &err) < 0)
		runner_fail(r, "%s", err.msg);
}

/* Laying out big targets takes a while: say how far along each agent is. */
void runner_layout_progress(struct runner *r, uint32_t ai, const Iocurve__LayoutProgress *lp)
{
	if (r->state != RUNNER_PREPARING || lp->workload_index != r->w || lp->bytes_total == 0)
		return;
	events_emit(r->ev, &(struct event){.kind = EVENT_LAYOUT,
	                                   .layout = {.workload = (uint32_t)r->w,
	                                              .agent = r->agents[ai].name,
	                                              .done = lp->bytes_done,
	                                              .total = lp->bytes_total}});
	/* Progress means the agent is alive: give it the full preparation time again. */
	runner_arm(r, RUNNER_PREPARE_NS);
}

uint32_t runner_agents_wanted(const struct runner *r)
{
	return r->c->agents_count;
}

/* An agent matches when its labels include every one the campaign selects on. */
bool runner_labels_match(const struct runner *r, const struct session *s)
{
	size_t n;
	const struct label *l = session_labels(s, &n);

	return label_include(l, n, r->c->labels, r->c->nlabels);
}

/* Claim an idle, synced agent while the campaign still needs one. */
void runner_claim(struct runner *r, struct session *s)
{
	if (r->state != RUNNER_WAITING || session_owner(s) != NULL || !session_ready(s))
		return;
	if (!runner_labels_match(r, s)) {
		log_info("agent %s does not carry the campaign's labels: not taken",
		         session_name(s));
		return;
	}
	session_claim(s, r);
	r->agents[r->nagents].s = s;
	session_set_slot(s, r->nagents);
	snprintf(r->agents[r->nagents].name, sizeof(r->agents[r->nagents].name), "%s",
	         session_name(s));
	r->nagents++;
	events_emit(r->ev, &(struct event){.kind = EVENT_AGENT,
	                                   .agent = {.name = session_name(s),
	                                             .state = EVENT_AGENT_READY,
	                                             .n = r->nagents,
	                                             .of = runner_agents_wanted(r)}});
	if (r->nagents == runner_agents_wanted(r)) {
		runner_write_meta(r);
		runner_prepare(r);
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
static void runner_carry_on(struct runner *r, uint32_t ai, const char *reason)
{
	uint32_t present = 0, left = 0;
	size_t off = strlen(r->losses);

	for (uint32_t i = 0; i < r->nagents; i++)
		present += r->agents[i].s != NULL;
	if (present == 0) {
		runner_fail(r, "agent %s lost: %s; no agent is left", r->agents[ai].name, reason);
		return;
	}
	if (r->state == RUNNER_STEPPING)
		left = agg_drop_agent(r->agg, ai);
	snprintf(r->losses + off, sizeof(r->losses) - off,
	         "%sagent %s lost in workload %s step %u interval %u (%s): continued with %u of "
	         "%u agents",
	         off ? "; " : "", r->agents[ai].name, runner_workload(r)->name, r->step + 1,
	         left + 1, reason, present, r->nagents);
	log_warn("%s", r->losses + off + (off ? 2 : 0));
	r->agents[ai].ready = r->agents[ai].step_done = true;
	if (r->state == RUNNER_PREPARING) {
		runner_check_ready(r);
		return;
	}
	if (r->state != RUNNER_STEPPING)
		return;
	/* Intervals the others had all reported are complete now. */
	for (uint32_t i = left; i < r->nintervals && r->state == RUNNER_STEPPING; i++) {
		const struct agg_record *m = agg_merged(r->agg, i);
		struct error err;

		if (m == NULL)
			continue;
		runner_maybe_cut(r, i);
		if (results_interval(r->res, runner_workload(r), r->step, r->rate, i, NULL, m,
		                     &err) < 0) {
			runner_fail(r, "%s", err.msg);
			return;
		}
		runner_emit_interval(r, i, EVENT_FLEET, m);
	}
	if (r->state == RUNNER_STEPPING)
		runner_check_step_done(r);
}

static void runner_on_lost(struct session *s, const char *reason, void *arg)
{
	struct runner *r = arg;
	int ai = runner_agent_index(r, s);

	if (ai < 0)
		return;
	r->agents[ai].s = NULL;
	events_emit(r->ev, &(struct event){.kind = EVENT_AGENT,
	                                   .agent = {.name = r->agents[ai].name,
	                                             .state = EVENT_AGENT_LOST,
	                                             .reason = reason}});
	if (r->state == RUNNER_WAITING) {
		/* Not started yet: forget it, wait for another. */
		r->agents[ai] = r->agents[--r->nagents];
		return;
	}
	if (r->c->abort_on_agent_loss) {
		runner_fail(r, "agent %s lost: %s (on_agent_loss: abort)", r->agents[ai].name,
		            reason);
		return;
	}
	runner_carry_on(r, (uint32_t)ai, reason);
}

const struct server_cbs runner_server_cbs = {
    .on_agent_ready = runner_on_ready,
    .on_agent_message = runner_on_message,
    .on_agent_lost = runner_on_lost,
};
