/* SPDX-License-Identifier: MIT */
/*
 * The agent's own event-loop stalls: a tick that notes how late it ran. A worker
 * stopped by its dead-man says whether the agent was starved (its loop could not
 * run, the coordinator's word waiting unread) or cut off (its loop ran, no word came).
 */
#ifndef IOCURVE_STALL_H
#define IOCURVE_STALL_H

#include <stdint.h>

#include <event2/event.h>

/* The tick's period: stalls are measured to within it. */
#define STALL_TICK_MS 100

struct stall;

struct stall *stall_new(struct event_base *base);
/*
 * The longest the loop could not run among the stalls that ended within the last
 * `within_ns` before now, the one in progress included (the tick overdue now). 0:
 * none over a tick.
 */
uint64_t stall_recent(const struct stall *st, uint64_t now, uint64_t within_ns);
void stall_free(struct stall *st);

#endif
