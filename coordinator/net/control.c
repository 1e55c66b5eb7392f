/* SPDX-License-Identifier: MIT */
/* The control socket: Unix-domain, mode 0600, the same frames as the agent protocol. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/listener.h>

#include "control.h"
#include "frame.h"
#include "log.h"
#include "xalloc.h"

/* Control messages are small; a plan is the largest (the campaign file is at most 16 MiB). */
#define CONTROL_MAX_FRAME (17u << 20)

struct control_conn {
	struct control *ctl; /* NULL on the client side */
	struct bufferevent *bev;
	const struct control_cbs *cbs;
	void *arg;
	void *data;
	bool in_callback, closing, dead;
	struct control_conn *next;
};

struct control {
	struct event_base *base;
	struct evconnlistener *listener;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const struct control_cbs *cbs;
	void *arg;
	struct control_conn *conns;
};

const char *control_default_path(char *buf, size_t len)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");

	if (rt != NULL && rt[0] == '/')
		snprintf(buf, len, "%s/iocurve.sock", rt);
	else
		snprintf(buf, len, "/run/iocurve/iocurve.sock");
	return buf;
}

static void control_unlink(struct control_conn *c)
{
	struct control_conn **p;

	if (c->ctl == NULL)
		return;
	for (p = &c->ctl->conns; *p != NULL; p = &(*p)->next)
		if (*p == c) {
			*p = c->next;
			return;
		}
}

static void control_destroy(struct control_conn *c)
{
	control_unlink(c);
	bufferevent_free(c->bev);
	free(c);
}

static void control_drained_cb(struct bufferevent *bev, void *arg)
{
	if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
		control_destroy(arg);
}

static void control_event_cb(struct bufferevent *bev, short what, void *arg);

static void control_finish_close(struct control_conn *c)
{
	if (evbuffer_get_length(bufferevent_get_output(c->bev)) == 0) {
		control_destroy(c);
		return;
	}
	bufferevent_disable(c->bev, EV_READ);
	bufferevent_setcb(c->bev, NULL, control_drained_cb, control_event_cb, c);
	bufferevent_set_timeouts(c->bev, NULL, &(struct timeval){2, 0});
}

void control_close(struct control_conn *c)
{
	if (c == NULL || c->closing)
		return;
	c->closing = c->dead = true;
	if (!c->in_callback)
		control_finish_close(c);
}

static void control_gone(struct control_conn *c)
{
	if (!c->dead) {
		c->dead = true;
		c->in_callback = true;
		if (c->cbs->on_close)
			c->cbs->on_close(c, c->arg);
		c->in_callback = false;
	}
	control_destroy(c);
}

static void control_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct control_conn *c = arg;

	if (c->closing) {
		control_destroy(c);
		return;
	}
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT))
		control_gone(c);
}

static void control_read_cb(struct bufferevent *bev, void *arg)
{
	struct control_conn *c = arg;
	Iocurve__Envelope *env;
	struct error err;
	int rc;

	c->in_callback = true;
	while (!c->dead &&
	       (rc = frame_read(bufferevent_get_input(bev), CONTROL_MAX_FRAME, &env, &err)) != 0) {
		if (rc < 0) {
			log_warn("control socket: %s; closing", err.msg);
			c->in_callback = false;
			control_gone(c);
			return;
		}
		c->cbs->on_message(c, env, c->arg);
		frame_free(env);
	}
	c->in_callback = false;
	if (c->closing)
		control_finish_close(c);
}

static struct control_conn *control_wrap(struct event_base *base, int fd, struct control *ctl,
                                         const struct control_cbs *cbs, void *arg)
{
	struct control_conn *c = xcalloc(1, sizeof(*c));

	c->ctl = ctl;
	c->cbs = cbs;
	c->arg = arg;
	c->bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS);
	bufferevent_setwatermark(c->bev, EV_READ, 0, CONTROL_MAX_FRAME + FRAME_HEADER);
	bufferevent_setcb(c->bev, control_read_cb, NULL, control_event_cb, c);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	if (ctl != NULL) {
		c->next = ctl->conns;
		ctl->conns = c;
	}
	return c;
}

static void control_accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
                              int salen, void *arg)
{
	struct control *ctl = arg;

	control_wrap(ctl->base, fd, ctl, ctl->cbs, ctl->arg);
}

static int control_addr(const char *path, struct sockaddr_un *sun, struct error *err)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun->sun_path)) {
		error_set(err, "control socket path %s is too long", path);
		return -1;
	}
	strcpy(sun->sun_path, path);
	return 0;
}

struct control *control_listen(struct event_base *base, const char *path,
                               const struct control_cbs *cbs, void *arg, struct error *err)
{
	struct control *ctl;
	struct sockaddr_un sun;
	mode_t old;
	int probe;

	if (control_addr(path, &sun, err) < 0)
		return NULL;
	/* A socket file nobody answers on is left over from a crash: replace it. */
	probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (probe >= 0 && connect(probe, (struct sockaddr *)&sun, sizeof(sun)) == 0) {
		close(probe);
		error_set(err, "control socket %s: a daemon is already listening there", path);
		return NULL;
	}
	if (probe >= 0)
		close(probe);
	unlink(path);
	ctl = xcalloc(1, sizeof(*ctl));
	ctl->base = base;
	ctl->cbs = cbs;
	ctl->arg = arg;
	snprintf(ctl->path, sizeof(ctl->path), "%s", path);
	old = umask(077); /* the socket is born 0600: only its owner may drive campaigns */
	ctl->listener = evconnlistener_new_bind(base, control_accept_cb, ctl,
	                                        LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 16,
	                                        (struct sockaddr *)&sun, (int)sizeof(sun));
	umask(old);
	if (ctl->listener == NULL) {
		error_set(err, "control socket %s: %s", path, strerror(errno));
		free(ctl);
		return NULL;
	}
	chmod(path, 0600);
	return ctl;
}

void control_free(struct control *ctl)
{
	if (ctl == NULL)
		return;
	while (ctl->conns != NULL) {
		struct control_conn *c = ctl->conns;

		ctl->conns = c->next;
		c->ctl = NULL;
		bufferevent_free(c->bev);
		free(c);
	}
	evconnlistener_free(ctl->listener);
	unlink(ctl->path);
	free(ctl);
}

struct control_conn *control_connect(struct event_base *base, const char *path,
                                     const struct control_cbs *cbs, void *arg, struct error *err)
{
	struct sockaddr_un sun;
	int fd;

	if (control_addr(path, &sun, err) < 0)
		return NULL;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		error_set(err, "cannot reach the daemon at %s: %s (is `iocurve serve` running?)",
		          path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	evutil_make_socket_nonblocking(fd);
	return control_wrap(base, fd, NULL, cbs, arg);
}

int control_send(struct control_conn *c, const Iocurve__Envelope *env)
{
	if (c->dead)
		return -1;
	return frame_write(bufferevent_get_output(c->bev), env, CONTROL_MAX_FRAME);
}

size_t control_pending(const struct control_conn *c)
{
	return evbuffer_get_length(bufferevent_get_output(c->bev));
}

void control_set_data(struct control_conn *c, void *data)
{
	c->data = data;
}

void *control_data(const struct control_conn *c)
{
	return c->data;
}
