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

/* Workload w of c as a Prepare; agent_index is 0 for the caller to set per agent. */
void prepare_build(struct prepare_msg *m, const struct campaign *c, size_t w);

#endif
