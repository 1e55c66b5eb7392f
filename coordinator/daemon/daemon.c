/* SPDX-License-Identifier: MIT */
/*
 * The coordinator's core: a queue of campaigns on the registered agents, their
 * results and runners, the watchers they feed. The control verbs are verbs.c's.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "campaign.h"
#include "control.h"
#include "daemon_core.h"
#include "evfile.h"
#include "event_pb.h"
#include "log.h"
#include "replay.h"
#include "results.h"
#include "runner.h"
#include "running.h"
#include "verbs.h"
#include "xalloc.h"

/* A watcher this far behind has stopped reading: drop it rather than hold the daemon. */
#define DAEMON_WATCHER_BACKLOG (8u << 20)
/* Events kept per campaign for watchers that attach late. */
#define DAEMON_HISTORY_MAX 200000

const char *const daemon_state_names[] = {"queued", "running",   "complete",
                                          "failed", "cancelled", "interrupted"};

struct daemon_campaign *daemon_find(struct daemon *d, uint32_t id)
{
	/* 0: the running campaign, else the latest one. */
	for (size_t i = d->ncamps; i-- > 0;)
		if (id ? d->camps[i]->id == id : d->camps[i]->state == DAEMON_RUNNING)
			return d->camps[i];
	return id == 0 && d->ncamps ? d->camps[d->ncamps - 1] : NULL;
}

void daemon_send_event(struct conn *c, uint32_t id, const struct event *e)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;

	env.body_case = IOCURVE__ENVELOPE__BODY_EVENT;
	env.event = event_pb_new(e, id);
	conn_send(c, &env);
	event_pb_free(env.event);
}

void daemon_drop_watcher(struct daemon *d, size_t i)
{
	d->watchers[i] = d->watchers[--d->nwatchers];
}

/* Every event of a campaign: history, progress, its watchers, the observer. */
static void daemon_campaign_event(void *arg, const struct event *e)
{
	struct daemon_campaign *dc = arg;
	struct daemon *d = dc->d;

	/* Kept for late watchers: only a daemon with a control socket has any. */
	if (d->ctl != NULL && dc->nhist < DAEMON_HISTORY_MAX) {
		if ((dc->nhist & (dc->nhist - 1)) == 0)
			dc->history = xreallocarray(dc->history, dc->nhist ? 2 * dc->nhist : 1,
			                            sizeof(*dc->history));
		event_copy(&dc->history[dc->nhist++], e);
	}
	if (e->kind == EVENT_WORKLOAD_DONE && dc->nknees < DAEMON_KNEES) {
		const struct event_knee *k = &e->workload_done.knee;
		const char *unit = event_unit_name(e->workload_done.unit);

		/* No knee: what limited the workload says why (client-bound is not the device). */
		if (k->kind == EVENT_KNEE_NONE && e->workload_done.limit != NULL &&
		    e->workload_done.limit[0] != '\0')
			dc->knees[dc->nknees++] = xasprintf("%s: none (%s)", e->workload_done.name,
			                                    e->workload_done.limit);
		else if (k->kind == EVENT_KNEE_NONE)
			dc->knees[dc->nknees++] = xasprintf("%s: none", e->workload_done.name);
		else
			dc->knees[dc->nknees++] =
			    xasprintf("%s: %s%.0f %s (%s)", e->workload_done.name,
			              k->kind == EVENT_KNEE_ABOVE_PEAK ? "> " : "", k->tp, unit,
			              event_knee_kind_name(k->kind));
	} else if (e->kind == EVENT_DONE) {
		time_t now = time(NULL);
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(dc->ended, sizeof(dc->ended), "%Y-%m-%d %H:%M:%SZ", &tm);
		if (e->done.status != 0)
			snprintf(dc->reason, sizeof(dc->reason), "%s", e->done.message);
	}
	if (e->kind == EVENT_WORKLOAD) {
		snprintf(dc->progress, sizeof(dc->progress), "workload %u/%u %s",
		         e->workload.workload + 1, e->workload.of, e->workload.name);
	} else if (e->kind == EVENT_STEP) {
		char *s = strstr(dc->progress, " step ");
		size_t n;

		if (s != NULL)
			*s = '\0';
		n = strlen(dc->progress);
		snprintf(dc->progress + n, sizeof(dc->progress) - n, " step %u", e->step.step + 1);
	}
	for (size_t i = 0; i < d->nwatchers;) {
		struct daemon_watcher *w = &d->watchers[i];

		if (w->id != dc->id) {
			i++;
			continue;
		}
		if (conn_pending(w->conn) > DAEMON_WATCHER_BACKLOG) {
			struct conn *c = w->conn;

			log_warn("campaign %u: a watcher stopped reading; dropping it", dc->id);
			daemon_drop_watcher(d, i); /* first: closing may free it (verbs_on_free) */
			conn_close(c);
			continue;
		}
		daemon_send_event(w->conn, dc->id, e);
		i++;
	}
	if (d->observer != NULL)
		d->observer(d->observer_arg, dc->id, e);
}

static void daemon_history_free(struct daemon_campaign *dc)
{
	for (size_t k = 0; k < dc->nhist; k++)
		event_clear(&dc->history[k]);
	free(dc->history);
	dc->history = NULL;
	dc->nhist = 0;
}

/*
 * A finished campaign's events go to its results directory, one JSON object a
 * line, and leave memory: a daemon that runs campaigns for months stays its
 * size. Kept in memory when there is no directory or it cannot be written.
 */
static void daemon_history_save(struct daemon_campaign *dc)
{
	struct error err;

	if (dc->results == NULL || dc->results[0] == '\0' || dc->nhist == 0)
		return;
	if (evfile_save(dc->results, dc->history, dc->nhist, &err) < 0) {
		log_warn("campaign %u: %s; its events stay in memory", dc->id, err.msg);
		return;
	}
	daemon_history_free(dc);
	dc->hist_on_file = true;
	malloc_trim(0); /* give the pages back, not only to malloc */
}

static void daemon_campaign_release(struct daemon_campaign *dc)
{
	daemon_history_save(dc);
	runner_free(dc->runner);
	dc->runner = NULL;
	results_close(dc->res);
	dc->res = NULL;
	if (dc->replay != NULL) {
		replay_free(dc->replay); /* and its campaign, dc->c */
		free(dc->replay);
		dc->replay = NULL;
	} else {
		campaign_free(dc->c);
	}
	dc->c = NULL;
	events_free(dc->ev);
	dc->ev = NULL;
	/*
	 * A campaign's intervals and history are many blocks under the mmap
	 * threshold: give the freed heap back, so a daemon running campaigns for
	 * weeks stays the size of its idle self.
	 */
	malloc_trim(0);
}

/* After the runner's done callback has returned: free it, start what waits. */
static void daemon_after_done(evutil_socket_t fd, short what, void *arg)
{
	struct daemon_campaign *dc = arg;
	struct daemon *d = dc->d;

	/* Watchers of a finished campaign have had its done event: let them go. */
	for (size_t i = 0; i < d->nwatchers;) {
		if (d->watchers[i].id == dc->id) {
			struct conn *c = d->watchers[i].conn;

			/*
			 * The entry first: a connection with nothing left to write is freed at
			 * once, and its on_free (verbs_on_free) drops its entry itself.
			 */
			daemon_drop_watcher(d, i);
			conn_close(c);
		} else {
			i++;
		}
	}
	daemon_campaign_release(dc);
	if (!d->stopping)
		daemon_start_next(d);
}

static void daemon_done_cb(void *arg, int status)
{
	struct daemon_campaign *dc = arg;

	struct error err;

	/* Degraded (agents lost on the way) is complete: its summaries say what was lost. */
	dc->state = status == 0 || status == RUNNER_DEGRADED ? DAEMON_COMPLETE
	            : dc->why[0]                             ? DAEMON_CANCELLED
	                                                     : DAEMON_FAILED;
	if (dc->state != DAEMON_COMPLETE && dc->reason[0] == '\0')
		snprintf(dc->reason, sizeof(dc->reason), "%s", runner_error(dc->runner));
	/*
	 * A mark that stays (the directory turned unwritable) would list the campaign
	 * interrupted after a restart: its end goes beside the directory instead.
	 */
	if (dc->d->results_root != NULL && running_clear(dc->results, &err) < 0) {
		log_error("campaign %u: %s", dc->id, err.msg);
		if (running_ended(dc->d->results_root, dc->results, daemon_state_names[dc->state],
		                  dc->reason, &err) < 0)
			log_error("campaign %u: %s; a restarted daemon will list it interrupted",
			          dc->id, err.msg);
	}
	log_info("campaign %u (%s) %s%s%s; results in %s", dc->id, dc->name,
	         daemon_state_names[dc->state], status == RUNNER_DEGRADED ? ", " : "",
	         status == RUNNER_DEGRADED ? runner_error(dc->runner) : "", dc->results);
	if (dc->client.done != NULL)
		dc->client.done(dc->client.arg, status, runner_error(dc->runner));
	event_base_once(dc->d->base, -1, EV_TIMEOUT, daemon_after_done, dc,
	                &(struct timeval){0, 0});
}

/* A campaign that ends before it ran (no results directory, cancelled while queued). */
static void daemon_end_unstarted(struct daemon_campaign *dc, enum daemon_state state,
                                 const char *why)
{
	dc->state = state;
	events_emit_done(dc->ev, 1, why, "", NULL);
	if (dc->client.done != NULL)
		dc->client.done(dc->client.arg, 1, why);
	event_base_once(dc->d->base, -1, EV_TIMEOUT, daemon_after_done, dc,
	                &(struct timeval){0, 0});
}

/* A campaign whose results directory could not be opened: failed. */
static void daemon_start_failed(struct daemon_campaign *dc, const char *why)
{
	/* A client in this process is told; the daemon's own campaigns go to the log. */
	if (dc->client.done == NULL)
		log_error("campaign %u: %s", dc->id, why);
	daemon_end_unstarted(dc, DAEMON_FAILED, why);
}

/*
 * Resumed (`iocurve resume`, `run --resume`): the plan and the finished steps from
 * the results directory; what follows the last complete step is dropped.
 */
static struct results *daemon_open_resumed(struct daemon_campaign *dc, struct error *err)
{
	struct replay *rp = dc->replay;

	if (rp == NULL) {
		rp = xcalloc(1, sizeof(*rp));
		if (replay_load_resume(dc->results, rp, err) < 0) {
			replay_free(rp);
			free(rp);
			return NULL;
		}
		if (rp->warning[0] != '\0')
			log_warn("campaign %u: %s", dc->id, rp->warning);
		dc->replay = rp;
		dc->c = rp->campaign;
	}
	return results_resume(dc->results, dc->c, (const struct step_point *const *)rp->pts,
	                      rp->npts, rp->keep, err);
}

/* A new results directory: the one asked for, else one under the root. */
static struct results *daemon_open_new(struct daemon_campaign *dc, struct error *err)
{
	struct daemon *d = dc->d;
	char *dir = NULL, stamp[32];
	time_t now = time(NULL);
	struct results *res;
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	strftime(dc->started, sizeof(dc->started), "%Y-%m-%d %H:%M:%SZ", &tm);
	if (dc->results[0] != '\0')
		dir = xstrdup(dc->results);
	else if (d->results_root != NULL)
		dir = xasprintf("%s/%s-%s-%u", d->results_root, dc->name, stamp, dc->id);
	/* No root and none asked for: results_open's default name. */
	res = results_open(dir, dc->c, err);
	free(dir);
	return res;
}

/* The one place a campaign is set up: its results (new or resumed), then its runner. */
static int daemon_open(struct daemon_campaign *dc, struct error *err)
{
	struct daemon *d = dc->d;

	dc->res = dc->resume ? daemon_open_resumed(dc, err) : daemon_open_new(dc, err);
	if (dc->res == NULL)
		return -1;
	free(dc->results);
	dc->results = xstrdup(results_dir(dc->res));
	if (dc->client.opened != NULL &&
	    dc->client.opened(dc->client.arg, dc->c, dc->results, err) < 0)
		return -1;
	dc->runner = runner_new(d->base, d->srv, dc->c, dc->res, dc->ev, daemon_done_cb, dc);
	if (dc->command != NULL)
		runner_set_command(dc->runner, dc->command);
	if (dc->replay != NULL) {
		runner_resume_from(dc->runner, (const struct step_point *const *)dc->replay->pts,
		                   dc->replay->npts);
		runner_resume_losses(dc->runner, &dc->replay->end);
		runner_resume_marks(dc->runner, dc->replay->marks.v, dc->replay->marks_kept);
		runner_resume_observed(dc->runner, dc->replay->obs.v, dc->replay->obs_nkept);
	}
	return 0;
}

static void daemon_start(struct daemon_campaign *dc)
{
	struct daemon *d = dc->d;
	struct error err;

	if (daemon_open(dc, &err) < 0) {
		daemon_start_failed(dc, err.msg);
		return;
	}
	/* Removed at the end however it ends; still there after a crash: interrupted. */
	if (d->results_root != NULL &&
	    running_mark(dc->results, dc->id, dc->name, dc->started, &err) < 0)
		log_warn("campaign %u: %s; a restarted daemon will not offer to resume it", dc->id,
		         err.msg);
	dc->state = DAEMON_RUNNING;
	/* Without a control socket no client can name the campaign: id 0, as in-process. */
	events_emit_campaign(dc->ev, dc->c, d->ctl != NULL ? dc->id : 0, dc->results);
	log_info("campaign %u (%s) %s; results in %s", dc->id, dc->name,
	         dc->resume ? "resumed" : "started", dc->results);
	runner_start(dc->runner);
}

/* One campaign at a time on the fleet: the next queued one starts when the last ends. */
void daemon_start_next(struct daemon *d)
{
	for (size_t i = 0; i < d->ncamps; i++)
		if (d->camps[i]->state == DAEMON_RUNNING)
			return;
	for (size_t i = 0; i < d->ncamps; i++)
		if (d->camps[i]->state == DAEMON_QUEUED) {
			daemon_start(d->camps[i]);
			return;
		}
}

static struct daemon_campaign *daemon_campaign_new(struct daemon *d, uint32_t id, const char *name,
                                                   const struct daemon_client *client)
{
	struct daemon_campaign *dc = xcalloc(1, sizeof(*dc));

	dc->d = d;
	dc->id = id;
	snprintf(dc->name, sizeof(dc->name), "%s", name);
	snprintf(dc->progress, sizeof(dc->progress), "waiting");
	dc->results = xstrdup("");
	dc->ev = events_new();
	events_subscribe(dc->ev, daemon_campaign_event, dc);
	if (client != NULL) {
		dc->client = *client;
		if (client->event != NULL)
			events_subscribe(dc->ev, client->event, client->arg);
	}
	d->camps = xreallocarray(d->camps, d->ncamps + 1, sizeof(*d->camps));
	d->camps[d->ncamps++] = dc;
	return dc;
}

/*
 * A campaign a killed daemon was running: listed as interrupted until resumed.
 * One whose end was recorded beside its unwritable directory is listed as it ended.
 */
static void daemon_found_running(void *arg, const char *dir, uint32_t id, const char *name,
                                 const char *started, const char *ended, const char *reason)
{
	struct daemon *d = arg;
	struct daemon_campaign *dc;

	if (daemon_find(d, id) != NULL) {
		log_warn("%s: campaign %u is marked running, but that id is taken; not offered",
		         dir, id);
		return;
	}
	dc = daemon_campaign_new(d, id, name, NULL);
	dc->state = DAEMON_INTERRUPTED;
	free(dc->results);
	dc->results = xstrdup(dir);
	snprintf(dc->started, sizeof(dc->started), "%s", started);
	if (id > d->next_id)
		d->next_id = id;
	if (ended != NULL) {
		dc->state = strcmp(ended, "cancelled") == 0  ? DAEMON_CANCELLED
		            : strcmp(ended, "complete") == 0 ? DAEMON_COMPLETE
		                                             : DAEMON_FAILED;
		snprintf(dc->reason, sizeof(dc->reason), "%s", reason);
		snprintf(dc->progress, sizeof(dc->progress), "%s: %s",
		         daemon_state_names[dc->state], reason);
		log_warn("campaign %u (%s) %s before this daemon started: %s; results in %s", id,
		         name, daemon_state_names[dc->state], reason, dir);
		/* The directory writable again: the mark and the record go, as for any end. */
		running_forget(d->results_root, dir);
		return;
	}
	snprintf(dc->progress, sizeof(dc->progress), "interrupted: iocurve resume %u", id);
	log_warn("campaign %u (%s) was interrupted (its daemon stopped without ending it); "
	         "iocurve resume %u carries it on; results in %s",
	         id, name, id, dir);
}

/* Queued or running: the fleet is taken. */
bool daemon_busy(const struct daemon *d)
{
	for (size_t i = 0; i < d->ncamps; i++)
		if (d->camps[i]->state <= DAEMON_RUNNING)
			return true;
	return false;
}

/* Queued, not yet started: daemon_start_next starts it when the fleet is free. */
struct daemon_campaign *daemon_enqueue(struct daemon *d, const struct daemon_submission *s,
                                       struct error *err)
{
	struct campaign *c = s->resumed != NULL ? s->resumed->campaign : s->campaign;
	bool busy = daemon_busy(d);
	struct daemon_campaign *dc;

	if (d->stopping || (busy && s->no_wait) || d->next_id >= RUNNING_ID_MAX) {
		if (d->stopping || (busy && s->no_wait))
			error_set(err, "%s",
			          d->stopping
			              ? "the daemon is shutting down"
			              : "the fleet is busy with another campaign (see iocurve "
			                "status); not queued (--no-queue)");
		else /* unreachable from marks (running_scan bounds their ids): said, not wrapped */
			error_set(
			    err,
			    "this daemon numbered %u campaigns, the most it can; start it on a "
			    "new results root",
			    RUNNING_ID_MAX);
		if (s->resumed != NULL) {
			replay_free(s->resumed);
			free(s->resumed);
		} else {
			campaign_free(s->campaign);
		}
		return NULL;
	}
	dc = daemon_campaign_new(d, ++d->next_id, c->name, s->client);
	dc->c = c;
	dc->replay = s->resumed;
	dc->resume = s->resumed != NULL;
	if (s->results != NULL) {
		free(dc->results);
		dc->results = xstrdup(s->results);
	}
	if (s->command != NULL)
		dc->command = xstrdup(s->command);
	log_info("campaign %u (%s) submitted%s", dc->id, dc->name, busy ? ", queued" : "");
	return dc;
}

uint32_t daemon_submit_campaign(struct daemon *d, const struct daemon_submission *s,
                                struct error *err)
{
	struct daemon_campaign *dc = daemon_enqueue(d, s, err);

	if (dc == NULL)
		return 0;
	daemon_start_next(d);
	return dc->id;
}

int daemon_cancel_campaign(struct daemon *d, uint32_t id, const char *why, struct error *err)
{
	struct daemon_campaign *dc = daemon_find(d, id);

	if (dc == NULL) {
		error_set(err, "no campaign %u (see iocurve status)", id);
		return -1;
	}
	if (dc->state == DAEMON_QUEUED) {
		snprintf(dc->why, sizeof(dc->why), "%s", why);
		daemon_end_unstarted(dc, DAEMON_CANCELLED, why);
		return 0;
	}
	if (dc->state != DAEMON_RUNNING || dc->runner == NULL) {
		error_set(err, "campaign %u is already %s", dc->id, daemon_state_names[dc->state]);
		return -1;
	}
	snprintf(dc->why, sizeof(dc->why), "%s", why);
	runner_cancel(dc->runner, why);
	return 0;
}

int daemon_mark_campaign(struct daemon *d, uint32_t id, const char *text, char *msg, size_t len)
{
	struct daemon_campaign *dc = daemon_find(d, id);
	struct run_mark m;
	struct error err;

	if (dc == NULL || (id == 0 && dc->state != DAEMON_RUNNING)) {
		if (id == 0)
			snprintf(msg, len, "no campaign is running (see iocurve status)");
		else
			snprintf(msg, len, "no campaign %u (see iocurve status)", id);
		return -1;
	}
	if (dc->state != DAEMON_RUNNING || dc->runner == NULL) {
		snprintf(msg, len, "campaign %u is %s: only a running campaign takes marks", dc->id,
		         daemon_state_names[dc->state]);
		return -1;
	}
	if (runner_mark(dc->runner, text, MARK_SOURCE_USER, NULL, &m, &err) < 0) {
		snprintf(msg, len, "campaign %u: mark refused: %s", dc->id, err.msg);
		return -1;
	}
	if (m.interval != MARK_NO_INTERVAL)
		snprintf(msg, len,
		         "campaign %u: marked at %s step %u, interval %u (%.1f s into the step)",
		         dc->id, m.workload, m.step + 1, m.interval + 1, (double)m.at_ns / 1e9);
	else
		snprintf(
		    msg, len,
		    "campaign %u: marked at %s step %u, outside its intervals (%.1f s from its "
		    "start)",
		    dc->id, m.workload, m.step + 1, (double)m.at_ns / 1e9);
	return 0;
}

struct daemon *daemon_new(struct event_base *base, struct server *srv, const char *results_root)
{
	struct daemon *d = xcalloc(1, sizeof(*d));

	d->base = base;
	d->srv = srv;
	if (results_root != NULL) {
		d->results_root = xstrdup(results_root);
		running_scan(results_root, daemon_found_running, d);
	}
	return d;
}

int daemon_listen(struct daemon *d, const char *control_path, struct error *err)
{
	d->ctl = control_listen(d->base, control_path, &verbs_control_cbs, d, err);
	return d->ctl == NULL ? -1 : 0;
}

void daemon_observe(struct daemon *d, daemon_observer fn, void *arg)
{
	d->observer = fn;
	d->observer_arg = arg;
}

unsigned daemon_active(const struct daemon *d)
{
	unsigned n = 0;

	for (size_t i = 0; i < d->ncamps; i++)
		n += d->camps[i]->state <= DAEMON_RUNNING;
	return n;
}

void daemon_shutdown(struct daemon *d, const char *why)
{
	d->stopping = true;
	for (size_t i = 0; i < d->ncamps; i++) {
		struct daemon_campaign *dc = d->camps[i];

		if (dc->state == DAEMON_QUEUED)
			dc->state = DAEMON_CANCELLED;
		else if (dc->state == DAEMON_RUNNING && dc->runner != NULL) {
			snprintf(dc->why, sizeof(dc->why), "%s", why);
			runner_cancel(dc->runner, why);
		}
	}
}

int daemon_idle(const struct daemon *d)
{
	for (size_t i = 0; i < d->ncamps; i++)
		if (d->camps[i]->runner != NULL)
			return 0;
	return 1;
}

void daemon_free(struct daemon *d)
{
	if (d == NULL)
		return;
	control_free(d->ctl);
	for (size_t i = 0; i < d->ncamps; i++) {
		struct daemon_campaign *dc = d->camps[i];

		daemon_campaign_release(dc);
		daemon_history_free(dc);
		for (size_t k = 0; k < dc->nknees; k++)
			free(dc->knees[k]);
		free(dc->results);
		free(dc->command);
		free(dc);
	}
	free(d->camps);
	free(d->watchers);
	free(d->results_root);
	free(d);
}
