/* SPDX-License-Identifier: MIT */
/* The CLI's side of the control socket: one request and its reply, in bounded time. */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <event2/event.h>

#include "client.h"
#include "control.h"
#include "frame.h"
#include "xalloc.h"

const char *client_socket(const char *given, char *buf, unsigned long len)
{
	if (given != NULL)
		return given;
	return control_default_path(buf, len);
}

int client_call(const char *verb, const char *sock, const Iocurve__Envelope *req, int want,
                Iocurve__Envelope **reply)
{
	struct error err;

	if (client_request(sock, req, CONTROL_TIMEOUT_SECONDS, reply, &err) < 0) {
		fprintf(stderr, "iocurve %s: %s\n", verb, err.msg);
		return 1;
	}
	if ((int)(*reply)->body_case != want) {
		fprintf(stderr, "iocurve %s: %s\n", verb,
		        (*reply)->body_case == IOCURVE__ENVELOPE__BODY_CONTROL_REPLY
		            ? (*reply)->control_reply->message
		            : "unexpected reply from the daemon");
		frame_free(*reply);
		*reply = NULL;
		return 1;
	}
	return 0;
}

/* One request in flight: what came back, or why nothing did. */
struct client_wait {
	struct event_base *base;
	struct conn *conn; /* NULL once the core has freed it */
	const char *path;
	unsigned timeout_s;
	Iocurve__Envelope *reply;
	struct error err;
};

/* The reply outlives the callback: keep a copy of it. */
static Iocurve__Envelope *client_copy(const Iocurve__Envelope *env)
{
	size_t len = iocurve__envelope__get_packed_size(env);
	uint8_t *buf = xmalloc(len ? len : 1);
	Iocurve__Envelope *copy;

	iocurve__envelope__pack(env, buf);
	copy = iocurve__envelope__unpack(NULL, len, buf);
	free(buf);
	return copy;
}

static void client_on_message(struct conn *c, Iocurve__Envelope *env, void *arg)
{
	struct client_wait *w = arg;

	w->reply = client_copy(env);
	if (w->reply == NULL)
		error_set(&w->err, "%s: cannot copy the daemon's reply", w->path);
	conn_close(c);
	event_base_loopbreak(w->base);
}

static void client_on_close(struct conn *c, const char *reason, void *arg)
{
	struct client_wait *w = arg;

	if (conn_pending(c) > 0)
		error_set(&w->err, "cannot send the request to the daemon at %s: %s", w->path,
		          reason);
	else
		error_set(&w->err, "the daemon at %s closed the connection without a reply (%s)",
		          w->path, reason);
	event_base_loopbreak(w->base);
}

static void client_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	struct client_wait *w = arg;

	error_set(&w->err, "the daemon at %s did not answer within %u s", w->path, w->timeout_s);
	event_base_loopbreak(w->base);
}

static void client_on_free(struct conn *c, void *arg)
{
	struct client_wait *w = arg;

	w->conn = NULL;
}

static const struct conn_cbs client_cbs = {
    .on_message = client_on_message,
    .on_close = client_on_close,
    .on_free = client_on_free,
};

int client_request(const char *path, const Iocurve__Envelope *req, unsigned timeout_s,
                   Iocurve__Envelope **reply, struct error *err)
{
	struct client_wait w = {.path = path, .timeout_s = timeout_s};
	size_t len = iocurve__envelope__get_packed_size(req);
	struct event *timer = NULL;

	*reply = NULL;
	if (len > FRAME_MAX_DEFAULT) {
		error_set(err,
		          "the request (%s, %zu bytes) is over the frame limit of %u bytes; not "
		          "sent to the daemon at %s",
		          frame_body_name(req), len, FRAME_MAX_DEFAULT, path);
		return -1;
	}
	/* A daemon that hangs up is an error to report, not a signal that ends the CLI. */
	signal(SIGPIPE, SIG_IGN);
	w.base = event_base_new();
	w.conn = control_connect(w.base, path, timeout_s, &client_cbs, &w, err);
	if (w.conn == NULL) {
		event_base_free(w.base);
		return -1;
	}
	conn_send(w.conn, req);
	if (timeout_s) {
		timer = evtimer_new(w.base, client_timeout_cb, &w);
		event_add(timer, &(struct timeval){timeout_s, 0});
	}
	event_base_dispatch(w.base);
	/* Still open after a timeout, or flushing after the reply: let it go. */
	conn_abort(w.conn);
	if (timer != NULL)
		event_free(timer);
	event_base_free(w.base);
	if (w.reply == NULL) {
		*err = w.err;
		return -1;
	}
	*reply = w.reply;
	return 0;
}

int client_control(const char *verb, const char *sock, const Iocurve__Envelope *req)
{
	Iocurve__Envelope *reply;
	int rc;

	if (client_call(verb, sock, req, IOCURVE__ENVELOPE__BODY_CONTROL_REPLY, &reply) != 0)
		return 1;
	rc = reply->control_reply->ok ? 0 : 1;
	if (rc)
		fprintf(stderr, "iocurve %s: %s\n", verb, reply->control_reply->message);
	else
		printf("%s\n", reply->control_reply->message);
	frame_free(reply);
	return rc;
}
