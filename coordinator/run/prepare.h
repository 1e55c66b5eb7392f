/* SPDX-License-Identifier: MIT */
/* A campaign's workload as the Prepare message the agents receive: the one place it is built. */
#ifndef IOCURVE_PREPARE_H
#define IOCURVE_PREPARE_H

#include <stddef.h>

#include "campaign.h"
#include "iocurve.pb-c.h"

/* The message and what it points into; the strings stay the campaign's. */
struct prepare_msg {
	Iocurve__Prepare p;
	Iocurve__SimTarget sim;
};

/* Workload w of c as a Prepare; the agent's part is left for prepare_for_agent. */
void prepare_build(struct prepare_msg *m, const struct campaign *c, size_t w);
/*
 * The part of the Prepare that differs per agent: its index, and where its
 * workers sit in the fleet (worker_base of fleet_workers), which sets the phase
 * of their uniform arrivals so the fleet's merged stream is even.
 */
void prepare_for_agent(struct prepare_msg *m, uint32_t agent_index, uint32_t nagents);

#endif
