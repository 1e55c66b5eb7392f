/* SPDX-License-Identifier: MIT */
/*
 * The runner's parts, shared by its files only: the state machine (runner.c), the
 * stepping and cooling states (runner_step.c), the end (runner_end.c) and the marks
 * (runner_marks.c).
 */
#ifndef IOCURVE_RUNNER_CORE_H
#define IOCURVE_RUNNER_CORE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <event2/event.h>

#include "between.h"
#include "judged.h"
#include "observer.h"
#include "planner.h"
#include "runner_types.h"
#include "campaign.h"
#include "events.h"
#include "marks.h"
#include "results.h"
#include "runend.h"
#include "server.h"
#include "runner_agents.h"
#include "runner_bg.h"
#include "step.h"

/*
 * A step starts this long after StartStep is sent, plus four round trips: an agent
 * takes well under a millisecond to pass a StartStep to its workers (a shared-memory
 * write and a wake), so this is for a busy host's late wake-ups; a late agent's
 * catch-up falls in the warm-up.
 */
#define RUNNER_LEAD_NS (100 * NSEC_PER_MSEC)
/* Slack past a step's planned end before agents are declared stuck. */
#define RUNNER_SLACK_NS (15 * NSEC_PER_SEC)
/* Preparing (laying out targets) may take this long. */
#define RUNNER_PREPARE_NS (600 * NSEC_PER_SEC)
/* A cooldown's probe: one interval this long at the workload's first step's rate. */
#define RUNNER_PROBE_NS (200 * NSEC_PER_MSEC)
/* Local agents must dial in within this time. */
#define RUNNER_LOCAL_WAIT_NS (30 * NSEC_PER_SEC)
/* A report refused (err says why): the agent leaves the campaign, nothing of it kept. */
#define RUNNER_BAD_REPORT (-2)
/* The latest time an agent's clock may say (ns): 146 years, far from int64_t's end. */
#define RUNNER_AGENT_TIME_MAX (UINT64_C(1) << 62)

#define RUNNER_TO(s)  (1u << (s))
#define RUNNER_TO_END (RUNNER_TO(RUNNER_FAILED) | RUNNER_TO(RUNNER_CANCELLED))

enum runner_state {
	RUNNER_IDLE,      /* made, not started */
	RUNNER_WAITING,   /* claiming agents */
	RUNNER_PREPARING, /* the agents prepare workload w */
	RUNNER_STEPPING,  /* step `step` of workload w runs */
	RUNNER_COOLING,   /* before step `step`: a probe runs, not a point (cooldown) */
	RUNNER_DONE,      /* every step ran; the end states report from the loop (runner_end_cb) */
	RUNNER_FAILED,
	RUNNER_CANCELLED,
	RUNNER_NSTATES,
};

/*
 * A state's row of runner.c's table: the moves it allows, what entering it does, what
 * its deadline passing does, and who takes an agent's interval report, its StepDone
 * and its loss in it.
 */
struct runner_state_row {
	unsigned to;
	void (*enter)(struct runner *r);
	void (*expired)(struct runner *r);
	int (*report)(struct runner *r, uint32_t ai, const Iocurve__IntervalReport *ir,
	              struct error *err);
	int (*done)(struct runner *r, uint32_t ai, const Iocurve__StepDone *d, struct error *err);
	int (*lost)(struct runner *r, uint32_t ai, uint32_t left, struct error *err);
};

struct runner {
	struct event_base *base;
	struct server *srv;
	const struct campaign *c;
	struct results *res;
	runner_done_fn done;
	void *done_arg;
	struct events *ev;
	char error[1024];  /* why it failed */
	struct runend end; /* the agents lost on the way (on_agent_loss: continue), meta.json */
	struct between *between; /* the earlier runs of this campaign beside it (end.between) */
	char *command;           /* how the run was started, for meta.json (runner_set_command) */
	char *meta;              /* meta.json's text, once every agent joined (runmeta.c) */

	enum runner_state state;              /* idle at first; then changed by runner_enter only */
	const struct runner_state_row *table; /* runner.c's: the moves and what they do */
	/* runner.c's: on to the next step or workload (runner_go_on) */
	void (*go_on)(struct runner *r, bool next_step);
	/* runner_step.c's: the step over, its background in: its point, then what next */
	int (*finish_step)(struct runner *r, struct error *err);
	struct event *timer;  /* the phase's deadline */
	struct event *end_ev; /* an end state's report, from the loop */
	/* the end's files, written by a child so the loop keeps the fleet (runner_end.c) */
	pid_t end_pid;              /* 0: none running */
	struct event *end_child_ev; /* its pipe: what it did, then EOF */
	struct evbuffer *end_got;
	struct runner_agents *agents;

	size_t w;            /* workload in progress */
	struct planner plan; /* its step control */
	uint32_t step;       /* step in progress, in run order */
	double rate;         /* the step in progress offers this (0: max) */
	struct step *st;     /* the step in progress (or the last one run) */
	struct step *probe;  /* cooling: the probe in progress */
	/*
	 * Each agent's report decoded into this one record, used again (agg_add): the
	 * bins a report held are what it costs to empty, not a fresh ~185 KB.
	 */
	struct agg_record *report;
	uint32_t retries;   /* the step in progress ran this many times before, client disturbed */
	uint64_t cool_from; /* cooling: when the step before it ended */
	uint32_t cool_ms;   /* the cooldown before step `step` (0: none) */
	const char *cool_outcome;
	bool have_next; /* resumed: the planner already chose the next rate */
	double next_rate;
	struct step_point **points; /* per workload, in run order */
	size_t *npoints;
	struct judged_curve *judged; /* per workload: its points judged, updated once per step */
	size_t *cap;
	/* marks on the timeline (marks.h), in the order stamped; end.marks points here */
	struct mark_list marks;
	/* observe: the polls (NULL: none) and their lines so far; end.obs points here */
	struct observer *obs;
	struct obs_list obsl;
	uint64_t step_start_ns; /* the step in progress starts here (coordinator's clock) */
	size_t start_w;         /* ...of workload start_w, step start_step */
	uint32_t start_step;
	bool started;        /* step_start_ns is set */
	struct runner_bg bg; /* the background workload beside the others (runner_bg.c) */
};

/* runner_core.c: the state, its moves, failing */
void runner_enter(struct runner *r, enum runner_state to);
/* Not in an end state: agents' messages and losses still move it. */
bool runner_live(const struct runner *r);
/* Stop I/O everywhere, keep what is on disk; the end is reported from the loop, once. */
void runner_stop(struct runner *r, enum runner_state to, const char *why);
const char *runner_state_name(enum runner_state s);
void runner_fail(struct runner *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void runner_arm(struct runner *r, uint64_t ns);
const struct workload *runner_workload(const struct runner *r);
/* The planner's next rate for the workload (or the one a resume chose): false when done. */
bool runner_next_rate(struct runner *r);
/* The workload is ready or has a new point: its next step, or on to the next workload. */
static inline void runner_go_on(struct runner *r, bool next_step)
{
	r->go_on(r, next_step);
}

/* runner_step.c: the stepping and cooling states */
/* The step is over and its background figures are in: its point, then what next. */
int runner_step_finish(struct runner *r, struct error *err);
void runner_start_step(struct runner *r);
void runner_start_probe(struct runner *r);
int runner_step_report(struct runner *r, uint32_t ai, const Iocurve__IntervalReport *ir,
                       struct error *err);
int runner_step_done(struct runner *r, uint32_t ai, const Iocurve__StepDone *d, struct error *err);
int runner_step_lost(struct runner *r, uint32_t ai, uint32_t left, struct error *err);
int runner_probe_report(struct runner *r, uint32_t ai, const Iocurve__IntervalReport *ir,
                        struct error *err);
int runner_probe_done(struct runner *r, uint32_t ai, const Iocurve__StepDone *d, struct error *err);
int runner_probe_lost(struct runner *r, uint32_t ai, uint32_t left, struct error *err);

/* runner_end.c: the end */
void runner_end_cb(evutil_socket_t fd, short what, void *arg);
void runner_end_wait(struct runner *r);
/* 1 when steps had I/O errors the plan does not allow (r->error says so), else 0. */
int runner_check_errors(struct runner *r);
/* Every agent joined: describe the run in meta.json (runmeta.c). */
void runner_write_meta(struct runner *r);

/* runner_marks.c */
/* Fixed work: agent ai's finishes marked on the timeline (ws[n], its workers' parts). */
int runner_finish_marks(struct runner *r, uint32_t ai, const struct storm_worker *ws, size_t n,
                        struct error *err);

#endif
