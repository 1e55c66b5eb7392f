/* SPDX-License-Identifier: MIT */
/*
 * The runner's agents: the sessions a campaign claimed, by slot, which are lost,
 * which are ready for the workload and done with the step, and each one's step
 * clock. It tells the runner what happened and calls nothing of the runner's.
 */
#ifndef IOCURVE_RUNNER_AGENTS_H
#define IOCURVE_RUNNER_AGENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "intervals.h"
#include "campaign_def.h"
#include "label.h"
#include "server.h"

struct runner_agents;

/* What a phase waits for, for runner_agents_waited. */
enum runner_agents_wait {
	RUNNER_AGENTS_JOIN,  /* agents to claim */
	RUNNER_AGENTS_READY, /* Ready for the workload */
	RUNNER_AGENTS_STEP,  /* StepDone for the step */
};

/*
 * want agents carrying every label of labels[nlabels] (kept, not copied),
 * claimed in owner's name (session_claim).
 */
struct runner_agents *runner_agents_new(uint32_t want, const struct label *labels, size_t nlabels,
                                        void *owner);
/*
 * targets: with labels of their own (select mode): an agent is taken when it
 * carries one target's labels at least, and only while the slots left can still
 * give every target an agent. t (kept, not copied) with n 0: no such rule.
 */
void runner_agents_targets(struct runner_agents *ra, const struct campaign_target *t, size_t n);
/*
 * The agents of a workload on target t: those carrying its labels (every agent
 * when t is NULL) take the slots 0..N-1, in the order claimed; the others are
 * parked (runner_agents_index gives them -1) until the next select. Compacts
 * first. Returns N.
 */
uint32_t runner_agents_select(struct runner_agents *ra, const struct campaign_target *t);
/* A parked agent's session is gone: drop it. false when s is not parked here. */
bool runner_agents_drop_parked(struct runner_agents *ra, const struct session *s);
/* The name of parked agent s, NULL when s is not parked. */
const char *runner_agents_parked_name(const struct runner_agents *ra, const struct session *s);
/* Releases the sessions still held. */
void runner_agents_free(struct runner_agents *ra);
/* Give every session back to the server (the campaign ended); the slots stay for reading. */
void runner_agents_release(struct runner_agents *ra);

/*
 * Claim s when it is idle, synced and carries the labels, while fewer than
 * wanted are claimed. true when claimed (it is the last slot).
 */
bool runner_agents_claim(struct runner_agents *ra, struct session *s);
/* Whether s carries the labels the campaign selects on. */
bool runner_agents_match(const struct runner_agents *ra, const struct session *s);
/* Every wanted agent is claimed. */
bool runner_agents_full(const struct runner_agents *ra);
uint32_t runner_agents_wanted(const struct runner_agents *ra);
/* Slots in use: claimed agents, the lost ones included until runner_agents_compact. */
uint32_t runner_agents_count(const struct runner_agents *ra);
/* Of runner_agents_count, those not lost. */
uint32_t runner_agents_present(const struct runner_agents *ra);
/* s's slot, or -1 when s is not one of ours (or lost). Constant time. */
int runner_agents_index(const struct runner_agents *ra, const struct session *s);
const char *runner_agents_name(const struct runner_agents *ra, uint32_t ai);
/* The slot's session; NULL once lost. */
struct session *runner_agents_session(const struct runner_agents *ra, uint32_t ai);

/* Lost before the campaign started: the slot goes, another agent may take it. */
void runner_agents_forget(struct runner_agents *ra, uint32_t ai);
/* Lost while running: the slot stays, counted as ready and as done with the step. */
void runner_agents_lose(struct runner_agents *ra, uint32_t ai);
/* Drop the lost agents' slots: the next split is over those present. */
void runner_agents_compact(struct runner_agents *ra);

/* Send env to every agent present. */
void runner_agents_send_all(const struct runner_agents *ra, const Iocurve__Envelope *env);
/* Send env to agent ai (present). */
void runner_agents_send(const struct runner_agents *ra, uint32_t ai, const Iocurve__Envelope *env);

/* A workload is being prepared: nobody is ready yet. */
void runner_agents_unready(struct runner_agents *ra);
/* Agent ai is ready; true when every agent is (lost ones count). */
bool runner_agents_set_ready(struct runner_agents *ra, uint32_t ai);
bool runner_agents_all_ready(const struct runner_agents *ra);

/* The longest round trip among the agents (all present), for a step's lead time. */
uint64_t runner_agents_max_rtt(const struct runner_agents *ra);
/*
 * A step starts at start (coordinator's clock): agent ai is not done with it, and
 * its clock holds the offset and uncertainty its clock model gives at start.
 * Returns that offset, for its StartStep.
 */
int64_t runner_agents_plan_start(struct runner_agents *ra, uint32_t ai, uint64_t start);
/* Agent ai's clock offset at start (coordinator clock), and nothing else planned. */
int64_t runner_agents_offset_at(const struct runner_agents *ra, uint32_t ai, uint64_t start);
/*
 * Agent ai's StepDone: it is done, and agent_start (the start it ran from, on its
 * own clock) is brought back onto the coordinator's with the clock model as it
 * stands now. Returns its clock, for intervals.jsonl.
 */
const struct intervals_clock *runner_agents_step_done(struct runner_agents *ra, uint32_t ai,
                                                      uint64_t agent_start);
/* When agent ai's StartStep of the step in progress was sent, on the coordinator's clock. */
uint64_t runner_agents_sent(const struct runner_agents *ra, uint32_t ai);
/* Every agent is done with the step (lost ones count). */
bool runner_agents_all_done(const struct runner_agents *ra);

/*
 * Who a phase waits for, as "a, b (busy), c" in buf: for JOIN every connected
 * session of srv and why it is not taken, else the agents not ready / not done.
 */
void runner_agents_waited(const struct runner_agents *ra, struct server *srv,
                          enum runner_agents_wait what, char *buf, size_t len);

#endif
