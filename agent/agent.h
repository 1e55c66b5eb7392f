/* SPDX-License-Identifier: MIT */
/*
 * What the agent's link (link.h) and plan (plan.h) both read: who this agent is
 * and where it may go. main.c fills it from the command line before either
 * starts and owns it; neither module writes it. Each module's own state is
 * behind its own struct.
 */
#ifndef IOCURVE_AGENT_H
#define IOCURVE_AGENT_H

#include <stddef.h>

#include <event2/event.h>

#include "allow.h"
#include "label.h"
#include "skew.h"
#include "stall.h"

struct agent {
	struct event_base *base;
	char name[128];       /* --name: the certificate's CN, the coordinator's name for it */
	char host[256];       /* this machine's host name */
	struct label *labels; /* --label KEY=VALUE */
	size_t nlabels;
	struct allow allow;  /* --allow: the only paths the agent touches */
	struct skew skew;    /* tests only: IOCURVE_TEST_CLOCK_SKEW (skew.h) */
	struct stall *stall; /* the event loop's own stalls (stall.h): read, never changed */
};

#endif
