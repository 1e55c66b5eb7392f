/* SPDX-License-Identifier: MIT */
/* The CLI's side of the control socket: requests, replies and live watching. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/buffer.h>

#include "client.h"
#include "cmd.h"
#include "control.h"
#include "dashboard.h"
#include "frame.h"
#include "jsonline.h"
#include "view_plain.h"

const char *client_socket(const char *given, char *buf, unsigned long len)
{
	if (given != NULL)
		return given;
	return control_default_path(buf, len);
}

int client_parse(int argc, char **argv, const struct cmd_entry *e, const char **sock, char *buf,
                 unsigned long len, int *json)
{
	static const struct option opts[] = {
	    {"coordinator", required_argument, NULL, 'C'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *given = NULL;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "C:jh", opts, NULL)) != -1) {
		if (c == 'C') {
			given = optarg;
		} else if (c == 'j' && json != NULL) {
			*json = 1;
		} else {
			fprintf(c == 'h' ? stdout : stderr, "usage: iocurve %s %s\n%s\n", e->name,
			        e->usage, e->help);
			return c == 'h' ? 0 : 2;
		}
	}
	*sock = client_socket(given, buf, len);
	return -1;
}

int client_call(const char *verb, const char *sock, const Iocurve__Envelope *req, int want,
                Iocurve__Envelope **reply)
{
	struct error err;

	if (client_request(sock, req, reply, &err) < 0) {
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

int client_request(const char *path, const Iocurve__Envelope *req, Iocurve__Envelope **reply,
                   struct error *err)
{
	struct evbuffer *out = evbuffer_new(), *in = evbuffer_new();
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int fd = -1, rc = -1;

	*reply = NULL;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		error_set(err, "cannot reach the daemon at %s: %s (is `iocurve serve` running?)",
		          path, strerror(errno));
		goto out;
	}
	frame_write(out, req, FRAME_MAX_DEFAULT);
	while (evbuffer_get_length(out) > 0)
		if (evbuffer_write(out, fd) < 0 && errno != EINTR) {
			error_set(err, "%s: %s", path, strerror(errno));
			goto out;
		}
	for (;;) {
		int n = frame_read(in, FRAME_MAX_DEFAULT + (1u << 20), reply, err);

		if (n > 0) {
			rc = 0;
			break;
		}
		if (n < 0)
			break;
		n = evbuffer_read(in, fd, 65536);
		if (n == 0) {
			error_set(err, "%s: the daemon closed the connection without a reply",
			          path);
			break;
		}
		if (n < 0 && errno != EINTR) {
			error_set(err, "%s: %s", path, strerror(errno));
			break;
		}
	}
out:
	if (fd >= 0)
		close(fd);
	evbuffer_free(out);
	evbuffer_free(in);
	return rc;
}

/* One watch: the connection, what shows it, and how it ended. */
struct client_watch {
	struct event_base *base;
	struct control_conn *conn;
	struct dashboard *dash;
	bool json;
	uint32_t id;
	int status; /* -2: no done event yet */
	char message[1024];
};

static void client_send_cancel(struct client_watch *w)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Cancel c = IOCURVE__CANCEL__INIT;

	c.id = w->id;
	env.body_case = IOCURVE__ENVELOPE__BODY_CANCEL;
	env.cancel = &c;
	control_send(w->conn, &env);
}

static void client_on_message(struct control_conn *c, Iocurve__Envelope *env, void *arg)
{
	struct client_watch *w = arg;
	struct jsonline j;
	const char *ev;

	if (env->body_case == IOCURVE__ENVELOPE__BODY_CONTROL_REPLY) {
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
	if (w->dash != NULL)
		dashboard_event(w->dash, env->event->line);
	else if (w->json)
		view_json(stdout, env->event->line);
	else
		view_plain(stdout, env->event->line);
	if (jsonline_parse(&j, env->event->line) == 0 && (ev = jsonline_str(&j, "event")) != NULL &&
	    strcmp(ev, "done") == 0) {
		w->status = (int)jsonline_num(&j, "status", 1);
		snprintf(w->message, sizeof(w->message), "%s", jsonline_str(&j, "message"));
		/* On the dashboard, leave the final screen up a moment. */
		event_base_loopexit(w->base, w->dash ? &(struct timeval){1, 0} : NULL);
	}
}

static void client_on_close(struct control_conn *c, void *arg)
{
	struct client_watch *w = arg;

	w->conn = NULL;
	if (w->status == -2)
		snprintf(w->message, sizeof(w->message), "the daemon closed the connection");
	event_base_loopexit(w->base, NULL);
}

static const struct control_cbs client_cbs = {
    .on_message = client_on_message,
    .on_close = client_on_close,
};

static void client_detach(void *arg)
{
	struct client_watch *w = arg;

	w->status = 0;
	snprintf(w->message, sizeof(w->message), "detached; campaign %u goes on in the daemon",
	         w->id);
	event_base_loopexit(w->base, NULL);
}

static void client_cancel(void *arg)
{
	client_send_cancel(arg);
}

static const struct dashboard_cbs client_dash_cbs = {
    .on_detach = client_detach,
    .on_cancel = client_cancel,
};

int client_watch(const char *path, uint32_t id, bool json, struct error *err)
{
	struct client_watch w = {.json = json, .id = id, .status = -2};
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Watch req = IOCURVE__WATCH__INIT;

	w.base = event_base_new();
	w.conn = control_connect(w.base, path, &client_cbs, &w, err);
	if (w.conn == NULL) {
		event_base_free(w.base);
		return -1;
	}
	req.id = id;
	env.body_case = IOCURVE__ENVELOPE__BODY_WATCH;
	env.watch = &req;
	control_send(w.conn, &env);
	if (!json && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO))
		w.dash = dashboard_new(w.base, &client_dash_cbs, &w);
	event_base_dispatch(w.base);
	dashboard_free(w.dash);
	if (w.conn != NULL)
		control_close(w.conn);
	event_base_loop(w.base, EVLOOP_NONBLOCK);
	event_base_free(w.base);
	if (w.status == -2) {
		error_set(err, "%s", w.message[0] ? w.message : "the watch ended early");
		return -1;
	}
	if (w.message[0] && (w.status != 0 || w.dash != NULL))
		fprintf(w.status ? stderr : stdout, "%s%s\n", w.status ? "iocurve: " : "",
		        w.message);
	return w.status;
}
