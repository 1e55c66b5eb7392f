/* SPDX-License-Identifier: MIT */
/*
 * The control verbs: each request on the control socket is answered by its row of
 * verbs_table (the daemon's half of a verb; the CLI's half is cli/cmd_NAME.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "clock.h"
#include "control.h"
#include "daemon_core.h"
#include "evfile.h"
#include "frame.h"
#include "log.h"
#include "running.h"
#include "verbs.h"
#include "xalloc.h"

/* One control verb: the request it answers and what answers it. */
struct verbs_entry {
	const char *name; /* the CLI verb that sends it (iocurve NAME), for the debug log */
	int body;         /* the request's Envelope body case */
	/*
	 * A request that names a campaign (a field `id`): the lowest id it takes (0: the
	 * running or latest one); the highest is RUNNING_ID_MAX.
	 */
	uint32_t min_id;
	/* Answers on c; closes c when nothing more may come of it. */
	void (*handle)(struct daemon *d, struct conn *c, const Iocurve__Envelope *env);
};

static void verbs_reply(struct conn *c, bool ok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void verbs_reply(struct conn *c, bool ok, const char *fmt, ...)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__ControlReply r = IOCURVE__CONTROL_REPLY__INIT;
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r.ok = ok;
	r.message = msg;
	env.body_case = IOCURVE__ENVELOPE__BODY_CONTROL_REPLY;
	env.control_reply = &r;
	conn_send(c, &env);
}

/* The Submit verb: a campaign for the registered agents, with the client's command line. */
static void verbs_submit(struct daemon *d, struct conn *conn, const Iocurve__Envelope *req)
{
	const Iocurve__Submit *s = req->submit;
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Submitted r = IOCURVE__SUBMITTED__INIT;
	bool busy = daemon_busy(d);
	struct daemon_campaign *dc;
	struct campaign *c = NULL;
	struct error err;

	env.body_case = IOCURVE__ENVELOPE__BODY_SUBMITTED;
	env.submitted = &r;
	r.results = "";
	r.error = "";
	if (campaign_parse(s->plan, strlen(s->plan), s->name[0] ? s->name : "plan", &c, &err) < 0) {
		r.error = err.msg;
	} else if (c->agents_mode == CAMPAIGN_AGENTS_LOCAL) {
		snprintf(err.msg, sizeof(err.msg),
		         "%s: agents: {local: N} runs agents on this machine for one run; a daemon "
		         "uses its registered agents: write agents: {select: {count: N}}, or run "
		         "without --coordinator",
		         s->name);
		r.error = err.msg;
		campaign_free(c);
	} else if ((dc = daemon_enqueue(
	                d, &(struct daemon_submission){.campaign = c, .no_wait = s->no_wait},
	                &err)) == NULL) {
		r.error = err.msg;
	} else {
		dc->command = xasprintf("%s (submitted to iocurve serve as campaign %u)",
		                        s->command[0] ? s->command : "iocurve run", dc->id);
		daemon_start_next(d);
		r.id = dc->id;
		r.queued = busy;
		r.results = dc->results;
	}
	conn_send(conn, &env);
}

static void verbs_status(struct daemon *d, struct conn *conn, const Iocurve__Envelope *req)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__StatusReply r = IOCURVE__STATUS_REPLY__INIT;
	Iocurve__CampaignStatus *cs = xcalloc(d->ncamps, sizeof(*cs));
	Iocurve__CampaignStatus **pcs = xcalloc(d->ncamps, sizeof(*pcs));

	for (size_t i = 0; i < d->ncamps; i++) {
		struct daemon_campaign *dc = d->camps[i];

		iocurve__campaign_status__init(&cs[i]);
		cs[i].id = dc->id;
		cs[i].name = dc->name;
		cs[i].state = (char *)daemon_state_names[dc->state];
		cs[i].progress = dc->progress;
		cs[i].started = dc->started;
		cs[i].results = dc->results;
		cs[i].ended = dc->ended;
		cs[i].reason = dc->reason;
		cs[i].n_knees = dc->nknees;
		cs[i].knees = dc->knees;
		pcs[i] = &cs[i];
	}
	r.n_campaigns = d->ncamps;
	r.campaigns = pcs;
	env.body_case = IOCURVE__ENVELOPE__BODY_STATUS_REPLY;
	env.status_reply = &r;
	conn_send(conn, &env);
	free(cs);
	free(pcs);
}

static void verbs_agents(struct daemon *d, struct conn *conn, const Iocurve__Envelope *req)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__AgentsReply r = IOCURVE__AGENTS_REPLY__INIT;
	size_t n;
	const struct server_agent *ag = server_agents(d->srv, &n);
	Iocurve__AgentStatus *as = xcalloc(n, sizeof(*as));
	Iocurve__AgentStatus **pas = xcalloc(n, sizeof(*pas));
	Iocurve__Label ***plab = xcalloc(n, sizeof(*plab));
	uint64_t now = clock_now_ns();

	for (size_t i = 0; i < n; i++) {
		iocurve__agent_status__init(&as[i]);
		as[i].name = (char *)ag[i].name;
		as[i].host = (char *)ag[i].host;
		as[i].state = ag[i].s == NULL ? "lost" : session_owner(ag[i].s) ? "busy" : "idle";
		as[i].version = (char *)ag[i].version;
		as[i].rtt_ms = ag[i].rtt_ms;
		as[i].offset_ms = ag[i].offset_ms;
		if (ag[i].clock.rounds > 0) {
			/* Now, by the clock model: drift since the last round included. */
			as[i].offset_ms = (double)clocksync_offset_at(&ag[i].clock, now) / 1e6;
			as[i].uncertainty_ms =
			    (double)clocksync_uncertainty_at(&ag[i].clock, now) / 1e6;
			as[i].drift_ppm = ag[i].clock.drift_ppm;
		}
		as[i].clock_refused = ag[i].clock.rejected;
		as[i].last_seen_s = (double)(now - ag[i].last_seen_ns) / 1e9;
		plab[i] = label_to_wire(ag[i].labels, ag[i].nlabels);
		as[i].n_labels = ag[i].nlabels;
		as[i].labels = plab[i];
		pas[i] = &as[i];
	}
	r.n_agents = n;
	r.agents = pas;
	env.body_case = IOCURVE__ENVELOPE__BODY_AGENTS_REPLY;
	env.agents_reply = &r;
	conn_send(conn, &env);
	for (size_t i = 0; i < n; i++)
		free(plab[i]);
	free(as);
	free(pas);
	free(plab);
}

/* The Cancel verb: the reply goes out first, then the done event to the watchers. */
static void verbs_cancel(struct daemon *d, struct conn *conn, const Iocurve__Envelope *req)
{
	uint32_t id = req->cancel->id;
	struct daemon_campaign *dc = daemon_find(d, id);
	struct error err;

	if (dc == NULL || dc->state > DAEMON_RUNNING) {
		verbs_reply(conn, false, dc ? "campaign %u is already %s" : "no campaign %u%s",
		            dc ? dc->id : id,
		            dc ? daemon_state_names[dc->state] : " (see iocurve status)");
		return;
	}
	if (dc->state == DAEMON_QUEUED)
		verbs_reply(conn, true, "campaign %u cancelled before it started", dc->id);
	else
		verbs_reply(conn, true, "campaign %u: cancelling; I/O stops on every agent now",
		            dc->id);
	if (daemon_cancel_campaign(d, dc->id,
	                           dc->state == DAEMON_QUEUED ? "cancelled while queued"
	                                                      : "cancelled by iocurve cancel",
	                           &err) < 0)
		log_warn("%s", err.msg);
}

/* The Resume verb: an interrupted campaign queued again, from its results directory. */
static void verbs_resume(struct daemon *d, struct conn *conn, const Iocurve__Envelope *req)
{
	uint32_t id = req->resume->id;
	struct daemon_campaign *dc = daemon_find(d, id);
	bool busy = daemon_busy(d);

	if (dc == NULL || dc->state != DAEMON_INTERRUPTED) {
		verbs_reply(conn, false,
		            dc ? "campaign %u is %s, not interrupted" : "no campaign %u%s", id,
		            dc ? daemon_state_names[dc->state] : " (see iocurve status)");
		return;
	}
	dc->resume = true;
	dc->state = DAEMON_QUEUED;
	snprintf(dc->progress, sizeof(dc->progress), "waiting");
	daemon_start_next(d);
	verbs_reply(conn, true,
	            "campaign %u (%s): %s from its first unfinished step; results in %s", id,
	            dc->name, busy ? "queued to resume" : "resumed", dc->results);
}

/* The Mark verb: the reply says where the mark landed, or why it was refused. */
static void verbs_mark(struct daemon *d, struct conn *conn, const Iocurve__Envelope *req)
{
	char msg[512];
	int rc = daemon_mark_campaign(d, req->mark->id, req->mark->text, msg, sizeof(msg));

	verbs_reply(conn, rc == 0, "%s", msg);
}

struct verbs_replay {
	struct conn *conn;
	uint32_t id;
};

static void verbs_replay_send(void *arg, const struct event *e)
{
	struct verbs_replay *r = arg;

	daemon_send_event(r->conn, r->id, e);
}

/* A connection watches at most one campaign. */
static bool verbs_is_watcher(const struct daemon *d, const struct conn *c)
{
	for (size_t i = 0; i < d->nwatchers; i++)
		if (d->watchers[i].conn == c)
			return true;
	return false;
}

/* The Watch verb: the campaign's events so far, then live until it ends. */
static void verbs_watch(struct daemon *d, struct conn *conn, const Iocurve__Envelope *req)
{
	uint32_t id = req->watch->id;
	struct daemon_campaign *dc;

	if (verbs_is_watcher(d, conn)) {
		verbs_reply(conn, false, "this connection watches a campaign already");
		return;
	}
	dc = daemon_find(d, id);
	if (dc == NULL) {
		verbs_reply(conn, false,
		            id ? "no campaign %u (see iocurve status)" : "no campaign to watch%.0u",
		            id);
		conn_close(conn);
		return;
	}
	/* What happened so far, then live: a late watcher sees the whole curve. */
	if (dc->hist_on_file)
		evfile_replay(dc->results, dc->id, verbs_replay_send,
		              &(struct verbs_replay){conn, dc->id});
	for (size_t i = 0; i < dc->nhist; i++)
		daemon_send_event(conn, dc->id, &dc->history[i]);
	if (dc->state > DAEMON_RUNNING && dc->runner == NULL) {
		conn_close(conn);
		return;
	}
	d->watchers = xreallocarray(d->watchers, d->nwatchers + 1, sizeof(*d->watchers));
	d->watchers[d->nwatchers++] = (struct daemon_watcher){conn, dc->id};
}

/*
 * One row a verb (docs/architecture.md, "A control verb"); min_id counts only for a
 * request with an id, so Submit, StatusRequest and AgentsRequest ignore theirs.
 */
static const struct verbs_entry verbs_table[] = {
    {"run", IOCURVE__ENVELOPE__BODY_SUBMIT, 1, verbs_submit},
    {"status", IOCURVE__ENVELOPE__BODY_STATUS_REQUEST, 1, verbs_status},
    {"agents", IOCURVE__ENVELOPE__BODY_AGENTS_REQUEST, 1, verbs_agents},
    {"cancel", IOCURVE__ENVELOPE__BODY_CANCEL, 1, verbs_cancel},
    {"resume", IOCURVE__ENVELOPE__BODY_RESUME, 1, verbs_resume},
    {"mark", IOCURVE__ENVELOPE__BODY_MARK, 0, verbs_mark},
    {"watch", IOCURVE__ENVELOPE__BODY_WATCH, 0, verbs_watch},
};
#define VERBS_N (sizeof(verbs_table) / sizeof(verbs_table[0]))

/*
 * A request's numbers checked where they enter, before any handler: the campaign id
 * of a request that names one (control_request_id) is in [v->min_id,
 * RUNNING_ID_MAX], so a new verb's id is checked by its row alone. false: refused.
 */
static bool verbs_request_ok(const struct verbs_entry *v, struct conn *c,
                             const Iocurve__Envelope *env)
{
	const uint32_t *id = control_request_id(env);

	if (id == NULL || (*id >= v->min_id && *id <= RUNNING_ID_MAX))
		return true;
	verbs_reply(c, false, "campaign id %u is outside [%u, %u]", *id, v->min_id, RUNNING_ID_MAX);
	return false;
}

static void verbs_on_message(struct conn *c, Iocurve__Envelope *env, void *arg)
{
	struct daemon *d = arg;

	for (size_t i = 0; i < VERBS_N; i++) {
		const struct verbs_entry *v = &verbs_table[i];

		if ((int)env->body_case != v->body)
			continue;
		log_debug("control: %s (%s)", v->name, frame_body_name(env));
		if (verbs_request_ok(v, c, env))
			v->handle(d, c, env);
		return;
	}
	verbs_reply(c, false, "not a control request");
	conn_close(c);
}

/* The connection is freed, however it ended: no watcher entry may outlive it. */
static void verbs_on_free(struct conn *c, void *arg)
{
	struct daemon *d = arg;

	for (size_t i = 0; i < d->nwatchers;)
		if (d->watchers[i].conn == c)
			daemon_drop_watcher(d, i);
		else
			i++;
}

const struct conn_cbs verbs_control_cbs = {
    .on_message = verbs_on_message,
    .on_free = verbs_on_free,
};
