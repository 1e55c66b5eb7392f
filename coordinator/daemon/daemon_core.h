/* SPDX-License-Identifier: MIT */
/*
 * Inside the daemon: its campaigns and watchers, shared by the core (daemon.c) and
 * the control verbs that read and change them (verbs.c). Nothing outside daemon/
 * includes it: the rest of the coordinator goes through daemon.h.
 */
#ifndef IOCURVE_DAEMON_CORE_H
#define IOCURVE_DAEMON_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon.h"
#include "results.h"
#include "runner.h"

/* Knees kept per campaign for `status` (a campaign has at most WORKLOADS_MAX). */
#define DAEMON_KNEES 64

enum daemon_state {
	DAEMON_QUEUED,
	DAEMON_RUNNING,
	DAEMON_COMPLETE,
	DAEMON_FAILED,
	DAEMON_CANCELLED,
	DAEMON_INTERRUPTED, /* a killed daemon was running it: `iocurve resume ID` */
};

/* Each state's word in status, logs and replies. */
extern const char *const daemon_state_names[];

struct daemon_campaign {
	struct daemon *d;
	uint32_t id;
	enum daemon_state state;
	char name[128];
	char started[32];
	char *results; /* "" until its directory is made (or the one to make or resume) */
	char progress[96];
	char why[160]; /* a cancel's reason */
	char *command; /* the submitter's command line, for meta.json (NULL: none) */
	char ended[32];
	char reason[256];          /* the done event's message when it did not complete */
	char *knees[DAEMON_KNEES]; /* "NAME: KNEE" per finished workload (status) */
	size_t nknees;
	struct campaign *c;
	struct replay *replay; /* resumed: what its directory held (owns c) */
	struct daemon_client client;
	struct results *res;
	struct runner *runner;
	struct events *ev;
	struct event *history; /* copies: they own their strings */
	size_t nhist;
	bool hist_on_file; /* finished: the history is in results/events.jsonl, not here */
	bool resume;       /* start from its results directory (`iocurve resume`, `run --resume`) */
};

/* A control connection that watches a campaign's events. */
struct daemon_watcher {
	struct conn *conn;
	uint32_t id;
};

struct daemon {
	struct event_base *base;
	struct server *srv;
	char *results_root;
	struct control *ctl;
	daemon_observer observer;
	void *observer_arg;
	struct daemon_campaign **camps;
	size_t ncamps;
	struct daemon_watcher *watchers;
	size_t nwatchers;
	uint32_t next_id;
	bool stopping;
};

/* Campaign id (0: the running one, else the latest), or NULL. */
struct daemon_campaign *daemon_find(struct daemon *d, uint32_t id);
/* Queued or running: the fleet is taken. */
bool daemon_busy(const struct daemon *d);
/* One campaign at a time on the fleet: the next queued one starts when the last ends. */
void daemon_start_next(struct daemon *d);
/*
 * Queue s (daemon_submit_campaign's, which takes what s holds whatever happens)
 * without starting it: daemon_start_next does. NULL with err when refused.
 */
struct daemon_campaign *daemon_enqueue(struct daemon *d, const struct daemon_submission *s,
                                       struct error *err);
/* One of campaign id's events to a watcher's connection. */
void daemon_send_event(struct conn *c, uint32_t id, const struct event *e);
/* Forget watcher i (its connection is the caller's to close or already gone). */
void daemon_drop_watcher(struct daemon *d, size_t i);

#endif
