/* SPDX-License-Identifier: MIT */
/* Inside the runner: its state, shared by the step machine (runner.c) and its agents. */
#ifndef IOCURVE_RUNNER_INT_H
#define IOCURVE_RUNNER_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <event2/event.h>

#include "aggregate.h"
#include "clock.h"
#include "events.h"
#include "intervals.h"
#include "planner.h"
#include "runner.h"
#include "server.h"

/* A step starts this long after StartStep is sent, plus a few round trips. */
#define RUNNER_LEAD_NS (300 * NSEC_PER_MSEC)
/* Slack past a step's planned end before agents are declared stuck. */
#define RUNNER_SLACK_NS (15 * NSEC_PER_SEC)
/* Preparing (laying out targets) may take this long. */
#define RUNNER_PREPARE_NS (600 * NSEC_PER_SEC)
/* Local agents must dial in within this time. */
#define RUNNER_LOCAL_WAIT_NS (30 * NSEC_PER_SEC)

enum runner_state {
	RUNNER_WAITING,
	RUNNER_PREPARING,
	RUNNER_STEPPING,
	RUNNER_DONE,
	RUNNER_FAILED,
};

struct runner_agent {
	struct session *s; /* NULL once lost */
	char name[128];
	bool ready;
	bool step_done;
	struct intervals_clock clock; /* the step in progress: its start as sent */
};

struct runner {
	struct event_base *base;
	struct server *srv;
	const struct campaign *c;
	struct results *res;
	runner_done_fn done;
	void *done_arg;
	struct events *ev;
	char error[1024]; /* why it failed */
	bool cancelled;   /* runner_cancel: the end line says "cancelled", not "failed" */
	char losses[512]; /* agents lost on the way (on_agent_loss: continue), for the done event */
	char *command;    /* how the run was started, for meta.json (runner_set_command) */
	char *meta;       /* meta.json's text, once every agent joined (runmeta.c) */

	enum runner_state state;
	struct event *timer;
	struct runner_agent *agents;
	uint32_t nagents;

	size_t w;            /* workload in progress */
	struct planner plan; /* its step control */
	uint32_t step;       /* step in progress, in run order */
	double rate;         /* the step in progress offers this (0: max) */
	uint32_t nintervals; /* planned, with any steady extension */
	uint32_t planned;    /* warm-up plus measured intervals, before extension */
	uint32_t cut;        /* the measured window ends here (0: not decided) */
	struct agg_step *agg;
	bool have_next; /* resumed: the planner already chose the next rate */
	double next_rate;
	struct step_point **points; /* per workload, in run order */
	size_t *npoints;
	struct judged_curve *judged; /* per workload: its points judged, updated once per step */
	size_t *cap;
};

static inline void runner_arm(struct runner *r, uint64_t ns)
{
	event_add(r->timer, &(struct timeval){(time_t)(ns / NSEC_PER_SEC),
	                                      (suseconds_t)(ns % NSEC_PER_SEC / 1000)});
}

static inline const struct workload *runner_workload(const struct runner *r)
{
	return &r->c->workloads[r->w];
}

/* runner.c: the step machine. */
void runner_check_ready(struct runner *r);
void runner_prepare(struct runner *r);
void runner_fail(struct runner *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Every agent joined: describe the run in meta.json (runmeta.c). */
void runner_write_meta(struct runner *r);
void runner_emit_interval(struct runner *r, uint32_t interval, const char *agent,
                          const struct agg_record *m);
void runner_check_step_done(struct runner *r);
void runner_on_message(struct session *s, const Iocurve__Envelope *env, void *arg);
void runner_maybe_cut(struct runner *r, uint32_t interval);

/* runner_agents.c: claiming agents, losing them, their step clocks. */
void runner_compact(struct runner *r);
void runner_step_clock(struct runner *r, uint32_t ai, uint64_t agent_start);
void runner_claim(struct runner *r, struct session *s);
bool runner_labels_match(const struct runner *r, const struct session *s);
void runner_layout_progress(struct runner *r, uint32_t ai, const Iocurve__LayoutProgress *lp);
int runner_agent_index(const struct runner *r, const struct session *s);
uint32_t runner_agents_wanted(const struct runner *r);
/* The runner's callbacks from the agent port. */
extern const struct server_cbs runner_server_cbs;

#endif
