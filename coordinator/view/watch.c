/* SPDX-License-Identifier: MIT */
/* Following a campaign in the daemon: its events on the dashboard, as plain lines or as JSON. */
#include <stdio.h>
#include <string.h>

#include <event2/event.h>

#include "control.h"
#include "event_pb.h"
#include "follow.h"
#include "log.h"
#include "runner.h"
#include "watch.h"

/* One watch: the connection, what shows it, and how it ended. */
struct watch {
	struct event_base *base;
	struct conn *conn;
	struct follow *follow;
	uint32_t id;
	int status; /* -2: no done event yet */
	char message[1024];
	void (*on_event)(void *arg, const struct event *e); /* or NULL */
	void *arg;
	unsigned marks_pending; /* Mark requests (the dashboard's m) not yet answered */
};

static void watch_send_cancel(struct watch *w)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Cancel c = IOCURVE__CANCEL__INIT;

	c.id = w->id;
	env.body_case = IOCURVE__ENVELOPE__BODY_CANCEL;
	env.cancel = &c;
	conn_send(w->conn, &env);
}

static void watch_on_message(struct conn *c, Iocurve__Envelope *env, void *arg)
{
	struct watch *w = arg;
	struct error err;
	struct event e;

	if (env->body_case == IOCURVE__ENVELOPE__BODY_CONTROL_REPLY) {
		/* Replies come in the order asked: the marks' first, while any is awaited. */
		if (w->marks_pending > 0) {
			w->marks_pending--;
			follow_notice(w->follow, env->control_reply->message);
			return;
		}
		if (!env->control_reply->ok) {
			snprintf(w->message, sizeof(w->message), "%s", env->control_reply->message);
			w->status = 1;
			event_base_loopexit(w->base, NULL);
		}
		return;
	}
	if (env->body_case != IOCURVE__ENVELOPE__BODY_EVENT)
		return;
	w->id = env->event->id;
	if (event_from_pb(&e, env->event, &err) < 0) {
		log_warn("%s: skipped", err.msg);
		return;
	}
	follow_event(w->follow, &e);
	if (w->on_event != NULL)
		w->on_event(w->arg, &e);
	if (e.kind == EVENT_DONE) {
		w->status = e.done.status;
		snprintf(w->message, sizeof(w->message), "%s", e.done.message);
		/* On the dashboard, leave the final screen up a moment. */
		event_base_loopexit(w->base,
		                    follow_dashboard(w->follow) ? &(struct timeval){1, 0} : NULL);
	}
	event_clear(&e);
}

static void watch_on_close(struct conn *c, const char *reason, void *arg)
{
	struct watch *w = arg;

	w->conn = NULL;
	/* The campaign is on disk: name it and how to carry it on once the daemon is back. */
	if (w->status == -2 && w->id != 0)
		snprintf(w->message, sizeof(w->message),
		         "the daemon closed the connection while campaign %u ran; after restarting "
		         "it: iocurve resume %u",
		         w->id, w->id);
	else if (w->status == -2)
		snprintf(w->message, sizeof(w->message),
		         "the daemon closed the connection before naming the campaign (see "
		         "iocurve status once it is back)");
	event_base_loopexit(w->base, NULL);
}

static const struct conn_cbs watch_cbs = {
    .on_message = watch_on_message,
    .on_close = watch_on_close,
};

static void watch_detach(void *arg)
{
	struct watch *w = arg;

	w->status = 0;
	snprintf(w->message, sizeof(w->message), "detached; campaign %u goes on in the daemon",
	         w->id);
	event_base_loopexit(w->base, NULL);
}

static void watch_cancel(void *arg)
{
	watch_send_cancel(arg);
}

/* m on the dashboard: a Mark request on the watch's connection; its reply is a notice. */
static void watch_mark(void *arg, const char *text)
{
	struct watch *w = arg;
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Mark m = IOCURVE__MARK__INIT;

	if (w->conn == NULL)
		return;
	m.id = w->id;
	m.text = (char *)text;
	env.body_case = IOCURVE__ENVELOPE__BODY_MARK;
	env.mark = &m;
	conn_send(w->conn, &env);
	w->marks_pending++;
}

static const struct dashboard_cbs watch_dash_cbs = {
    .on_detach = watch_detach,
    .on_cancel = watch_cancel,
    .on_mark = watch_mark,
};

int watch_campaign(const char *path, uint32_t id, bool json, struct error *err)
{
	return watch_campaign_observed(path, id, json, NULL, NULL, err);
}

int watch_campaign_observed(const char *path, uint32_t id, bool json,
                            void (*on_event)(void *arg, const struct event *e), void *arg,
                            struct error *err)
{
	struct watch w = {.id = id, .status = -2, .on_event = on_event, .arg = arg};
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Watch req = IOCURVE__WATCH__INIT;
	bool dash;

	w.base = event_base_new();
	w.conn = control_connect(w.base, path, CONTROL_TIMEOUT_SECONDS, &watch_cbs, &w, err);
	if (w.conn == NULL) {
		event_base_free(w.base);
		return -1;
	}
	req.id = id;
	env.body_case = IOCURVE__ENVELOPE__BODY_WATCH;
	env.watch = &req;
	conn_send(w.conn, &env);
	w.follow = follow_new(w.base, json, &watch_dash_cbs, &w);
	event_base_dispatch(w.base);
	dash = follow_dashboard(w.follow);
	follow_free(w.follow);
	if (w.conn != NULL)
		conn_close(w.conn);
	event_base_loop(w.base, EVLOOP_NONBLOCK);
	event_base_free(w.base);
	if (w.status == -2) {
		error_set(err, "%s", w.message[0] ? w.message : "the watch ended early");
		return -1;
	}
	if (w.message[0] && (w.status != 0 || dash))
		fprintf(
		    w.status ? stderr : stdout, "%s%s%s\n", w.status ? "iocurve: " : "", w.message,
		    w.status == RUNNER_DEGRADED ? " (exit status 3 unless --accept-degraded)" : "");
	return w.status;
}
