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
#include "runner_marks.h"
#include "runner_types.h"
#include "server.h"

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
/* Start: claim agents as they become ready (or those already are). */
void runner_start(struct runner *r);
/* Stop every agent's I/O now; finished steps stay in the results. */
void runner_cancel(struct runner *r, const char *why);
/* How the run was started ("iocurve run demo.yaml"), for meta.json; before runner_start. */
void runner_set_command(struct runner *r, const char *command);
void runner_free(struct runner *r);

#endif
