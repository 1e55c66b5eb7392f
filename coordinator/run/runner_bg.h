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
	bool holding; /* the foreground step's point waits for its last reports */
	struct event *hold_ev;
};

/* The campaign's background, if any, for runner r (runner_new). */
void runner_bg_init(struct runner *r);
void runner_bg_free(struct runner *r);
/* Whether workload wi is the background (the runner never steps it itself). */
bool runner_bg_is(const struct runner *r, size_t wi);
/* Entering PREPARING: Prepare the background first on the n agents present, once. */
void runner_bg_prepare(struct runner *r, uint32_t n);
/*
 * A Ready of workload wi: true when it was the background's (taken here; the
 * foreground's wait may end in runner_go_on).
 */
bool runner_bg_on_ready(struct runner *r, uint32_t wi);
/* Every agent is ready with the foreground: false while the background is not (it waits). */
bool runner_bg_ready(struct runner *r);
/* A foreground step starts at start_ns (coordinator clock): the background with it, once. */
void runner_bg_step(struct runner *r, uint64_t start_ns);
/* An interval report of the background: merged when inside the foreground step's window. */
int runner_bg_report(struct runner *r, uint32_t ai, const Iocurve__IntervalReport *ir,
                     struct error *err);
/*
 * The foreground step is over: true when its point must wait for the background's
 * last reports of the window (runner_step_finish is called once they are in, or
 * after at most one background interval more).
 */
bool runner_bg_hold(struct runner *r);
/*
 * The foreground step's point: the background's figures over its window, written to
 * intervals.jsonl (a background line) for `report`. -1: err says why.
 */
int runner_bg_point(struct runner *r, struct step_point *pt, struct error *err);
/* The last foreground workload is done: end the background. */
void runner_bg_end(struct runner *r);

#endif
