/* SPDX-License-Identifier: MIT */
/*
 * The coordinator's core: a queue of campaigns on the registered agents, each with
 * its results directory, runner and event fan-out. `serve` runs it behind the
 * control socket; `run` runs it in its own process and submits to it directly.
 */
#ifndef IOCURVE_DAEMON_H
#define IOCURVE_DAEMON_H

#include <event2/event.h>

#include "campaign.h"
#include "error.h"
#include "events.h"
#include "replay.h"
#include "server.h"

struct daemon;

/*
 * Campaigns' results go to RESULTS_ROOT/<campaign>-<UTC time>-<id>/ and are marked
 * running there while they run; a mark found at start names an interrupted
 * campaign. With no root (`run`), a submission names its directory (or takes
 * results_open's default) and nothing is marked.
 */
struct daemon *daemon_new(struct event_base *base, struct server *srv, const char *results_root);
/*
 * Take requests on the control socket at control_path. Only then are a campaign's
 * events kept for watchers that attach late (and written to events.jsonl at its end).
 */
int daemon_listen(struct daemon *d, const char *control_path, struct error *err);

/* What the submitter of a campaign in this process hears of it; any may be NULL. */
struct daemon_client {
	/*
	 * The results directory is open and the campaign about to start: the place to
	 * start local agents. Returning -1 with err fails the campaign.
	 */
	int (*opened)(void *arg, const struct campaign *c, const char *results, struct error *err);
	/* Every event of the campaign, as it happens. */
	events_fn event;
	/* It ended: status 0 complete; why says what went wrong ("" when nothing). */
	void (*done)(void *arg, int status, const char *why);
	void *arg;
};

struct daemon_submission {
	struct campaign *campaign; /* what to run, or NULL with resumed */
	struct replay *resumed;    /* carry on this (replay_load of results) */
	const char *results;       /* the directory to make (NULL: see daemon_new), or resumed's */
	const char *command;       /* the command line for meta.json, or NULL */
	bool no_wait;              /* fail rather than queue behind a campaign */
	const struct daemon_client *client;
};

/*
 * Queue a campaign and start it if the fleet is free (at once: the client's opened
 * and the campaign event come before this returns). Takes s->campaign and
 * s->resumed (allocated) whatever happens. Returns the campaign's id, or 0 with err.
 */
uint32_t daemon_submit_campaign(struct daemon *d, const struct daemon_submission *s,
                                struct error *err);
/* Cancel campaign id, queued or running, saying why: -1 with err when it is neither. */
int daemon_cancel_campaign(struct daemon *d, uint32_t id, const char *why, struct error *err);
/*
 * Stamp TEXT on campaign id's timeline (0: the running one) as a user's mark
 * (runner_mark). 0 with msg saying where it landed ("campaign 1: marked at rr
 * step 2, interval 3 (1.2 s into the step)"), or -1 with msg saying why not.
 */
int daemon_mark_campaign(struct daemon *d, uint32_t id, const char *text, char *msg, size_t len);

/* Every campaign's events as they happen, with the campaign's id (for /metrics). */
typedef void (*daemon_observer)(void *arg, uint32_t id, const struct event *e);
void daemon_observe(struct daemon *d, daemon_observer fn, void *arg);
/* Campaigns queued or running, for /metrics. */
unsigned daemon_active(const struct daemon *d);
/* SIGTERM: abort the running campaign (agents told, results flushed), drop the queue. */
void daemon_shutdown(struct daemon *d, const char *why);
/* True once nothing is running: the event loop may end. */
int daemon_idle(const struct daemon *d);
void daemon_free(struct daemon *d);

#endif
