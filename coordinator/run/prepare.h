/* SPDX-License-Identifier: MIT */
/* A campaign's workload as the Prepare message the agents receive: the one place it is built. */
#ifndef IOCURVE_PREPARE_H
#define IOCURVE_PREPARE_H

#include <stddef.h>
#include <stdint.h>

#include "campaign.h"
#include "error.h"
#include "iocurve.pb-c.h"

/*
 * A worker's lateness budget in precise timing: an operation may go out this share
 * of the SLO's latency after its due time (2% of a 1 ms SLO: 20 us), what the
 * judged metric can carry without moving a verdict; the pacer sleeps within it and
 * spins only where it is tighter than a wake-up (agent/pacer.h).
 */
#define PREPARE_LATENESS_PCT 2

/* The message and what it points into; the strings stay the campaign's. */
struct prepare_msg {
	Iocurve__Prepare p;
	Iocurve__SimTarget sim;
	Iocurve__NfsTarget nfs;
	double fleet_rate_limit; /* target.sim.rate_limit, split per worker by prepare_for_agent */
	const struct trace *replay; /* the workload's trace: each agent gets its workers' share */
	uint32_t *replay_counts;    /* the share's buffers (prepare_free frees them) */
	uint64_t *replay_times, *replay_offsets;
	uint32_t *replay_lens;
	protobuf_c_boolean *replay_writes;
	struct mix_wire mix; /* what p.mix and p.sizes point at */
};

/* Workload w of c as a Prepare; the agent's part is left for prepare_for_agent. */
void prepare_build(struct prepare_msg *m, const struct campaign *c, size_t w);
/*
 * The part of the Prepare that differs per agent: its index, and where its
 * workers sit in the fleet (worker_base of fleet_workers), which sets the phase
 * of their uniform arrivals so the fleet's merged stream is even; and a sim's
 * rate_limit split evenly over the fleet's workers (nagents x workers); a replay's
 * operations for its workers: operation i of the trace goes to fleet worker i mod
 * fleet_workers, grouped by worker in Prepare, each keeping its time.
 */
void prepare_for_agent(struct prepare_msg *m, uint32_t agent_index, uint32_t nagents);
/* What prepare_build and prepare_for_agent allocated (a replay's operations). */
void prepare_free(struct prepare_msg *m);

/*
 * Whether an agent with these capabilities (proto Capability bits) can be sent c's
 * Prepares without changing their meaning: a field it would not know (data.clone:
 * it would lay out each file with data of its own; target.sim.rate_limit: it
 * would run the sim uncapped) refuses it. 0, or -1 with err
 * naming the agent (name and version), what it lacks and the workload that needs it.
 */
int prepare_check_caps(const struct campaign *c, uint64_t caps, const char *agent,
                       const char *version, struct error *err);

#endif
