/* SPDX-License-Identifier: MIT */
/*
 * A workload's queue depth when the campaign gives none: slots that follow the load, so
 * that the queue is never what limits a step unless the campaign asks for a depth.
 */
#ifndef IOCURVE_SLOTS_H
#define IOCURVE_SLOTS_H

#include <stdint.h>

#include "campaign_def.h"

/* The fewest slots a sized workload gets (the depth of a closed-loop step when none given). */
#define SLOTS_MIN 16
/* The most per worker: an agent's default --max-queue-depth. */
#define SLOTS_MAX 1024
/* The most buffer memory a sized workload asks of one agent (slots x block x workers). */
#define SLOTS_AGENT_BYTES (256ull << 20)
/* Slots per operation in flight at the SLO by Little's law: room for bursts and the tail. */
#define SLOTS_HEADROOM 2.0

/*
 * The highest rate in ops/s any step of w offers, open loop, across the fleet; 0 when a
 * step is closed loop (max, curve:, fixed work, a replay's speeds): its queue depth is then
 * its concurrency, a property of the workload.
 */
double slots_peak_rate(const struct workload *w);

/*
 * The queue depth w runs with when none was given: by Little's law, the highest rate a
 * worker is offered times SLOTS_HEADROOM x the SLO's latency, plus SLOTS_MIN, within
 * SLOTS_MAX, the local agents' caps and SLOTS_AGENT_BYTES; SLOTS_MIN for a closed-loop
 * workload. *sized says whether the load sized it. A sized queue's slots never hide the
 * storage's latency: a wait for one counts in it (the agent's worker), and an agent keeps
 * the slots of its workers within its device's request queue (agent/plan.c).
 */
uint32_t slots_depth(const struct campaign *c, const struct workload *w, bool *sized);

#endif
