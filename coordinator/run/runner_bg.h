/* SPDX-License-Identifier: MIT */
/*
 * Load under load in the runner: the campaign's background workload (background.h)
 * prepared on the agents with the first foreground workload, started as one long
 * step with the first foreground step, its interval reports merged over each
 * foreground step's measured window into that step's point (bgfig.h), and ended
 * after the last foreground workload. The runner's files only.
 */
#ifndef IOCURVE_RUNNER_BG_H
#define IOCURVE_RUNNER_BG_H

#include <event2/event.h>
#include <stdbool.h>
#include <stdint.h>

#include "aggregate.h"
#include "iocurve.pb-c.h"
#include "record.h"

struct runner;

struct runner_bg {
	long w;             /* the background workload's index; -1: none */
	bool prepared;      /* Prepare sent */
	bool started;       /* its StartStep sent */
	bool fg_waiting;    /* the foreground is ready and waits for the background's Ready */
	uint32_t nagents;   /* agents it was prepared on */
	uint32_t nready;    /* of them, Ready */
	uint64_t start_ns;  /* its step's start (coordinator clock) */
	uint64_t ws, we;    /* the foreground step's measured window (coordinator clock) */
	bool window;        /* ws/we belong to the step in progress */
	struct record *acc; /* its reports inside the window, merged */
	uint32_t nacc;
	/* per agent, 1 + the last interval merged into acc (0: none): each once, in order */
	uint32_t *merged;
	bool holding; /* the foreground step's point waits for its last reports */
	struct event *hold_ev;
};

/* Its hooks: runner_bg_feature (runner_features.h). */

#endif
