/* SPDX-License-Identifier: MIT */
/* The campaign runner: agents -> workloads -> steps, as a state machine on the event loop. */
#ifndef IOCURVE_RUNNER_H
#define IOCURVE_RUNNER_H

#include <event2/event.h>

#include "campaign.h"
#include "events.h"
#include "marks.h"
#include "results.h"
#include "runend.h"
#include "server.h"

struct runner;

/*
 * The end status of a campaign whose every step completed but that lost agents on
 * the way (on_agent_loss: continue): `run` and `watch` exit with it unless
 * --accept-degraded. 0: complete; 1: failed or cancelled.
 */
#define RUNNER_DEGRADED 3

/* Called once when the campaign ends; status 0 when every step completed (RUNNER_DEGRADED). */
typedef void (*runner_done_fn)(void *arg, int status);

/* Progress goes out as events (events.h) to whoever subscribed to ev. */
struct runner *runner_new(struct event_base *base, struct server *srv, const struct campaign *c,
                          struct results *res, struct events *ev, runner_done_fn done, void *arg);
/* Why the campaign failed ("" when it did not). */
const char *runner_error(const struct runner *r);
/*
 * Carry on a campaign (`run --resume`): the points of the steps already run
 * (replay_load), per workload in run order. Before runner_start; the runner
 * then starts at the first workload with a step left, at the step the planner
 * chooses next from those points.
 */
void runner_resume_from(struct runner *r, const struct step_point *const *pts, const size_t *npts);
/* The agents the first run lost (replay_load's end), so its summaries still say so. */
void runner_resume_losses(struct runner *r, const struct runend *end);
/* The marks a first run stamped before the lines a resume keeps (replay's marks_kept). */
void runner_resume_marks(struct runner *r, const struct run_mark *marks, size_t n);
/* A resumed campaign's observed lines so far (obsline.h), before the steps it keeps. */
struct obs_line;
void runner_resume_observed(struct runner *r, const struct obs_line *l, size_t n);
/*
 * Stamp a mark now (marks.h): in the step in progress, its time since the step's
 * start and its interval; between steps after the step that ran last; before a
 * workload's first step at its start. Written to intervals.jsonl, sent as an
 * event, drawn on the time plots from the next derived files on. *out: the mark
 * as stamped. -1 with err: the text refused (mark_text_check), the campaign
 * ended, or the line not written (a full disk; the campaign then fails on its
 * next write as it would anyway).
 */
int runner_mark(struct runner *r, const char *text, const char *source, const char *agent,
                struct run_mark *out, struct error *err);
/*
 * A mark the caller stamped itself (mark_set: a fixed-work worker's finish, its
 * step and at_ns from the agent's report): written, kept and sent as runner_mark does.
 */
int runner_add_mark(struct runner *r, const struct run_mark *m, struct error *err);
/* Start: claim agents as they become ready (or those already are). */
void runner_start(struct runner *r);
/* Stop every agent's I/O now; finished steps stay in the results. */
void runner_cancel(struct runner *r, const char *why);
/* How the run was started ("iocurve run demo.yaml"), for meta.json; before runner_start. */
void runner_set_command(struct runner *r, const char *command);
void runner_free(struct runner *r);

#endif
