/* SPDX-License-Identifier: MIT */
/* The runner's agents: claiming them, losing them, their readiness and step clocks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "log.h"
#include "runner_agents.h"
#include "xalloc.h"

struct runner_agent {
	struct session *s; /* NULL once lost */
	char name[128];
	bool ready;                   /* for the workload being prepared */
	bool step_done;               /* with the step in progress */
	struct intervals_clock clock; /* the step in progress: its start as sent */
	uint64_t sent_ns;             /* when its StartStep was sent (coordinator's clock) */
};

struct runner_agents {
	void *owner; /* sessions are claimed in its name */
	uint32_t want;
	const struct label *labels;
	size_t nlabels;
	uint32_t n; /* slots in use: the agents of the workload */
	/*
	 * targets: with select.labels: slots n..n+parked-1 hold the claimed agents that
	 * do not drive the workload's target; they take no part until runner_agents_select
	 * brings them back (and a lost one is dropped at once).
	 */
	uint32_t parked;
	const struct campaign_target *targets;
	size_t ntargets;
	struct runner_agent *a;
};

struct runner_agents *runner_agents_new(uint32_t want, const struct label *labels, size_t nlabels,
                                        void *owner)
{
	struct runner_agents *ra = xcalloc(1, sizeof(*ra));

	ra->owner = owner;
	ra->want = want;
	ra->labels = labels;
	ra->nlabels = nlabels;
	ra->a = xcalloc(want ? want : 1, sizeof(*ra->a));
	return ra;
}

void runner_agents_release(struct runner_agents *ra)
{
	for (uint32_t i = 0; i < ra->n + ra->parked; i++)
		if (ra->a[i].s != NULL)
			session_release(ra->a[i].s, ra->owner);
}

void runner_agents_free(struct runner_agents *ra)
{
	if (ra == NULL)
		return;
	runner_agents_release(ra);
	free(ra->a);
	free(ra);
}

void runner_agents_targets(struct runner_agents *ra, const struct campaign_target *t, size_t n)
{
	ra->targets = t;
	ra->ntargets = n;
}

/* Whether s drives target t: it carries the target's labels (none: every agent does). */
static bool runner_agents_drives(const struct session *s, const struct campaign_target *t)
{
	size_t n;
	const struct label *l = session_labels(s, &n);

	return label_include(l, n, t->labels, t->nlabels);
}

/*
 * An agent matches when its labels include every one the campaign selects on and,
 * with targets of their own labels, those of one target at least.
 */
bool runner_agents_match(const struct runner_agents *ra, const struct session *s)
{
	size_t n;
	const struct label *l = session_labels(s, &n);
	bool any = ra->ntargets == 0;

	for (size_t t = 0; t < ra->ntargets && !any; t++)
		any = runner_agents_drives(s, &ra->targets[t]);
	return any && label_include(l, n, ra->labels, ra->nlabels);
}

/*
 * The targets no claimed agent drives (and s, when not NULL, would not): the
 * slots left must keep one for each, so that every target has an agent.
 */
static uint32_t runner_agents_uncovered(const struct runner_agents *ra, const struct session *s)
{
	uint32_t left = 0;

	for (size_t t = 0; t < ra->ntargets; t++) {
		bool driven = s != NULL && runner_agents_drives(s, &ra->targets[t]);

		for (uint32_t i = 0; i < ra->n && !driven; i++)
			driven =
			    ra->a[i].s != NULL && runner_agents_drives(ra->a[i].s, &ra->targets[t]);
		left += !driven;
	}
	return left;
}

bool runner_agents_claim(struct runner_agents *ra, struct session *s)
{
	struct runner_agent *a;

	if (ra->n == ra->want || session_owner(s) != NULL || !session_ready(s))
		return false;
	if (!runner_agents_match(ra, s)) {
		log_info("agent %s does not carry the campaign's labels%s: not taken",
		         session_name(s), ra->ntargets ? " (or any target's)" : "");
		return false;
	}
	if (runner_agents_uncovered(ra, s) > ra->want - ra->n - 1) {
		log_info("agent %s: not taken, the slots left are for targets no agent drives yet",
		         session_name(s));
		return false;
	}
	session_claim(s, ra->owner);
	a = &ra->a[ra->n];
	memset(a, 0, sizeof(*a));
	a->s = s;
	snprintf(a->name, sizeof(a->name), "%s", session_name(s));
	session_set_slot(s, ra->n);
	ra->n++;
	return true;
}

bool runner_agents_full(const struct runner_agents *ra)
{
	return ra->n == ra->want;
}

uint32_t runner_agents_wanted(const struct runner_agents *ra)
{
	return ra->want;
}

uint32_t runner_agents_count(const struct runner_agents *ra)
{
	return ra->n;
}

uint32_t runner_agents_present(const struct runner_agents *ra)
{
	uint32_t present = 0;

	for (uint32_t i = 0; i < ra->n; i++)
		present += ra->a[i].s != NULL;
	return present;
}

int runner_agents_index(const struct runner_agents *ra, const struct session *s)
{
	/* Claiming, forgetting and compacting keep each session's slot: no scan a message. */
	uint32_t slot = session_slot(s);

	return slot < ra->n && ra->a[slot].s == s ? (int)slot : -1;
}

const char *runner_agents_name(const struct runner_agents *ra, uint32_t ai)
{
	return ra->a[ai].name;
}

struct session *runner_agents_session(const struct runner_agents *ra, uint32_t ai)
{
	return ra->a[ai].s;
}

void runner_agents_forget(struct runner_agents *ra, uint32_t ai)
{
	ra->a[ai] = ra->a[--ra->n];
	if (ai < ra->n && ra->a[ai].s != NULL)
		session_set_slot(ra->a[ai].s, ai);
}

void runner_agents_lose(struct runner_agents *ra, uint32_t ai)
{
	ra->a[ai].s = NULL;
	ra->a[ai].ready = ra->a[ai].step_done = true;
}

void runner_agents_compact(struct runner_agents *ra)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < ra->n; i++)
		if (ra->a[i].s != NULL) {
			ra->a[n] = ra->a[i];
			session_set_slot(ra->a[n].s, n);
			n++;
		}
	/* the parked ones follow (they are never lost: a lost one is dropped) */
	for (uint32_t i = 0; i < ra->parked; i++) {
		ra->a[n + i] = ra->a[ra->n + i];
		session_set_slot(ra->a[n + i].s, n + i);
	}
	ra->n = n;
}

bool runner_agents_drop_parked(struct runner_agents *ra, const struct session *s)
{
	for (uint32_t i = ra->n; i < ra->n + ra->parked; i++) {
		if (ra->a[i].s != s)
			continue;
		memmove(&ra->a[i], &ra->a[i + 1], (ra->n + ra->parked - i - 1) * sizeof(ra->a[0]));
		ra->parked--;
		for (uint32_t k = i; k < ra->n + ra->parked; k++)
			session_set_slot(ra->a[k].s, k);
		return true;
	}
	return false;
}

uint32_t runner_agents_select(struct runner_agents *ra, const struct campaign_target *t)
{
	uint32_t total, n = 0;

	runner_agents_compact(ra);
	total = ra->n + ra->parked;
	/* the target's agents first, in the order claimed; the others parked behind */
	for (uint32_t i = 0; i < total; i++) {
		if (t != NULL && !runner_agents_drives(ra->a[i].s, t))
			continue;
		if (i != n) {
			struct runner_agent keep = ra->a[i];

			memmove(&ra->a[n + 1], &ra->a[n], (i - n) * sizeof(ra->a[0]));
			ra->a[n] = keep;
		}
		n++;
	}
	for (uint32_t i = 0; i < total; i++)
		session_set_slot(ra->a[i].s, i);
	ra->n = n;
	ra->parked = total - n;
	return n;
}

void runner_agents_send_all(const struct runner_agents *ra, const Iocurve__Envelope *env)
{
	for (uint32_t i = 0; i < ra->n; i++)
		if (ra->a[i].s != NULL)
			server_send(ra->a[i].s, env);
}

void runner_agents_send(const struct runner_agents *ra, uint32_t ai, const Iocurve__Envelope *env)
{
	server_send(ra->a[ai].s, env);
}

void runner_agents_unready(struct runner_agents *ra)
{
	for (uint32_t i = 0; i < ra->n; i++)
		ra->a[i].ready = false;
}

bool runner_agents_all_ready(const struct runner_agents *ra)
{
	for (uint32_t i = 0; i < ra->n; i++)
		if (!ra->a[i].ready)
			return false;
	return true;
}

bool runner_agents_set_ready(struct runner_agents *ra, uint32_t ai)
{
	ra->a[ai].ready = true;
	return runner_agents_all_ready(ra);
}

uint64_t runner_agents_max_rtt(const struct runner_agents *ra)
{
	uint64_t max_rtt = 0;

	for (uint32_t i = 0; i < ra->n; i++)
		if (session_clock(ra->a[i].s)->rtt_ns > max_rtt)
			max_rtt = session_clock(ra->a[i].s)->rtt_ns;
	return max_rtt;
}

int64_t runner_agents_plan_start(struct runner_agents *ra, uint32_t ai, uint64_t start)
{
	struct runner_agent *a = &ra->a[ai];
	const struct clocksync *cs = session_clock(a->s);

	a->step_done = false;
	a->sent_ns = clock_now_ns();
	/* The offset the clock model gives at the start: drift included. */
	a->clock = (struct intervals_clock){
	    .planned_ns = start,
	    .offset_ns = clocksync_offset_at(cs, start),
	    .uncertainty_ns = clocksync_uncertainty_at(cs, start),
	    .drift_ppm = cs->drift_ppm,
	    .rtt_ns = cs->rtt_ns,
	};
	return a->clock.offset_ns;
}

int64_t runner_agents_offset_at(const struct runner_agents *ra, uint32_t ai, uint64_t start)
{
	return clocksync_offset_at(session_clock(ra->a[ai].s), start);
}

/*
 * The agent's step start on its own clock, brought back onto the coordinator's
 * with the clock model as it stands now (later rounds included), next to the
 * offset and uncertainty the start was sent with: intervals.jsonl keeps both.
 */
const struct intervals_clock *runner_agents_step_done(struct runner_agents *ra, uint32_t ai,
                                                      uint64_t agent_start)
{
	struct intervals_clock *k = &ra->a[ai].clock;
	const struct clocksync *cs = session_clock(ra->a[ai].s);
	uint64_t t = (uint64_t)((int64_t)agent_start - k->offset_ns);

	ra->a[ai].step_done = true;
	k->start_agent_ns = agent_start;
	/* Two passes: the offset is evaluated at the time it converts. */
	t = (uint64_t)((int64_t)agent_start - clocksync_offset_at(cs, t));
	k->start_ns = (uint64_t)((int64_t)agent_start - clocksync_offset_at(cs, t));
	return k;
}

uint64_t runner_agents_sent(const struct runner_agents *ra, uint32_t ai)
{
	return ra->a[ai].sent_ns;
}

bool runner_agents_all_done(const struct runner_agents *ra)
{
	for (uint32_t i = 0; i < ra->n; i++)
		if (!ra->a[i].step_done)
			return false;
	return true;
}

/* Append NAME (and a note) to a comma-separated list, dropping what does not fit. */
static void runner_agents_list_add(char *buf, size_t len, const char *name, const char *note)
{
	size_t off = strlen(buf);

	if (off + 1 < len)
		snprintf(buf + off, len - off, "%s%s%s", off ? ", " : "", name, note);
}

const char *runner_agents_parked_name(const struct runner_agents *ra, const struct session *s)
{
	for (uint32_t i = ra->n; i < ra->n + ra->parked; i++)
		if (ra->a[i].s == s)
			return ra->a[i].name;
	return NULL;
}

void runner_agents_waited(const struct runner_agents *ra, struct server *srv,
                          enum runner_agents_wait what, char *buf, size_t len)
{
	buf[0] = '\0';
	if (what == RUNNER_AGENTS_JOIN) {
		for (struct session *s = server_first_session(srv); s != NULL; s = session_next(s))
			runner_agents_list_add(
			    buf, len, session_name(s),
			    session_owner(s) && session_owner(s) != ra->owner ? " (busy)"
			    : !runner_agents_match(ra, s) ? " (labels do not match)"
			                                  : "");
		return;
	}
	for (uint32_t i = 0; i < ra->n; i++)
		if (what == RUNNER_AGENTS_READY ? !ra->a[i].ready : !ra->a[i].step_done)
			runner_agents_list_add(buf, len, ra->a[i].name, "");
}
