/* SPDX-License-Identifier: MIT */
/*
 * One step of a workload, from its first interval report to its point: the
 * merge of its intervals (aggregate.h), its measured window and that window's
 * extension, and what the point carries beside its intervals (cooldown,
 * retries, fixed work's storm, read and write apart). The live run (run/runner.c)
 * and `iocurve report` (store/replay.c) both feed one, so the point a run
 * wrote and the point a report rebuilds come from the same code.
 */
#ifndef IOCURVE_STEP_H
#define IOCURVE_STEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aggregate.h"
#include "campaign.h"
#include "error.h"
#include "storm.h"
#include "iocurve.pb-c.h"

struct step;

/* What a step says once an interval is in. */
enum step_answer {
	STEP_WAIT,  /* the interval waits for other agents' reports */
	STEP_GO_ON, /* complete; the window goes on */
	STEP_CUT,   /* complete; the window ends with it, at the step's planned end */
	STEP_END,   /* complete; the window ends with it, before the step's end: end it early */
};

/*
 * Step `step` (in run order) of workload w at `offered` ops/s, over nagents agents
 * named names[a] (copied; none: `report` adds them as it meets them). Its intervals
 * are the warm-up and measured ones and a steady extension's (steady: {extend: N}).
 */
struct step *step_new(const struct campaign *c, size_t w, uint32_t step, double offered,
                      uint32_t nagents, const char *const *names);
/*
 * A cooldown's probe: one interval over nagents agents. It is judged
 * on nothing and makes no point; step_probe_service says what it measured.
 */
struct step *step_new_probe(uint32_t nagents, const char *const *names);
void step_free(struct step *s);

/* One more agent, as `report` meets it in intervals.jsonl: its index. */
uint32_t step_add_agent(struct step *s, const char *name);
/* How many agents the step has (step_add_agent's included). */
uint32_t step_agents(const struct step *s);

/*
 * Agent `agent`'s report of an interval: decoded into *rec (for the intervals file),
 * merged, and, once its interval is complete (*merged then points at the merge),
 * judged (step_judge). The answer, or -1 with err set (the report refused, nothing
 * merged).
 */
int step_feed(struct step *s, uint32_t agent, const Iocurve__IntervalReport *ir,
              struct agg_record *rec, const struct agg_record **merged, struct error *err);
/*
 * A record read back from intervals.jsonl, merged and not judged: the window the run
 * decided is in the file (step_cut), and an agent's line under agents.detail: counts
 * has no bins to judge on until its merged line comes (step_set_hists).
 */
int step_feed_record(struct step *s, uint32_t agent, uint32_t interval,
                     const struct agg_record *rec, const struct agg_record **merged,
                     struct error *err); /* agg_add_record's returns */
/* The bins of an interval whose agents' lines had none (agg_set_hists). */
int step_set_hists(struct step *s, uint32_t interval, const struct record *merged);
/*
 * Judging complete interval `interval` (a report completed it, or an agent's loss
 * did): steady: {extend: N} runs a step whose window's SLO metric has a 95% interval
 * holding the SLO on past its planned intervals, until it lies on one side or the
 * extension runs out; fixed work ends with the interval in which the last worker
 * finished. STEP_WAIT while the interval is not complete (*merged NULL).
 */
enum step_answer step_judge(struct step *s, uint32_t interval, const struct agg_record **merged);
/*
 * Agent `agent` is lost (on_agent_loss: continue): the intervals from the first it
 * did not report wait only for the others. Returns that interval.
 */
uint32_t step_drop_agent(struct step *s, uint32_t agent);
/* An agent whose lines stop before the others' was lost mid-step (report's reading). */
void step_drop_short(struct step *s);

/* The measured window ends at interval `to` (exclusive): what a window line says. */
void step_cut(struct step *s, uint32_t to);
/*
 * Every agent is done: a window no interval ended ends at the step's last interval.
 * true when the window then belongs in intervals.jsonl (the step could have ended it
 * otherwise: an extension or fixed work), with step_window's bounds.
 */
bool step_close(struct step *s);
/* The window: [*from, *to) of the step's intervals; to is 0 before it is decided. */
void step_window(const struct step *s, uint32_t *from, uint32_t *to);
/* Before its first interval: the step runs on at most extend intervals past those planned. */
void step_limit_extend(struct step *s, uint32_t extend);
/* The step's intervals, with a steady extension's, and those planned without it. */
uint32_t step_intervals(const struct step *s);
uint32_t step_planned(const struct step *s);
/* Every agent reported every interval of the window, each with its bins. */
bool step_complete(const struct step *s);
/*
 * Agent `agent` said it is done: the intervals it ran (*of: to the cut, else all) that
 * it has not reported.
 */
uint32_t step_agent_missing(const struct step *s, uint32_t agent, uint32_t *of);

/* The cooldown before the step: ms waited and how it ended ("recovered", "timeout", "failed"). */
void step_set_cooldown(struct step *s, uint32_t ms, const char *outcome);
/* The attempts before this one, re-run for a disturbed client (retry: N). */
void step_set_retries(struct step *s, uint32_t retries);
/*
 * Fixed work: agent `agent`'s workers' parts (their .agent is ignored), as its
 * StepDone or finish lines say; agents are numbered as they first come.
 */
void step_add_parts(struct step *s, const char *agent, const struct storm_worker *ws, size_t n);

/*
 * The step's point: its window's merge (agg_point), what it takes from its workload
 * (agg_point_workload), the storm of fixed work, its cooldown and retries. The step
 * may go on taking records after it.
 */
void step_point(const struct step *s, struct step_point *pt);
/*
 * Whether the client can have moved the step's verdict (its point's client_bound)
 * and the step lost no agent: retry: N runs such a step again. *pt: its point.
 */
bool step_disturbed(const struct step *s, struct step_point *pt);
/* A probe's storage latency (service time), mean, ns: 0 when it is not complete. */
double step_probe_service(const struct step *s);
/* Whether a complete probe's every operation failed: the storage is not there to recover. */
bool step_probe_failed(const struct step *s);

#endif
