/* SPDX-License-Identifier: MIT */
/* The control socket: Unix-domain, mode 0600, framed Envelopes over the connection core. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/listener.h>

#include "control.h"
#include "fdbudget.h"
#include "listenpause.h"
#include "log.h"
#include "xalloc.h"

/*
 * A client has this long from connecting to its first complete request, however
 * slowly its bytes come; after it (a Watch lasts a campaign) no deadline.
 */
#define CONTROL_REQUEST_SECONDS 5
/* Connections at once (or an eighth of the descriptor limit, when less). */
#define CONTROL_MAX_CONNS   64
#define CONTROL_CONNS_SHARE 8
/* What a reply from the daemon may unpack to, in times its length (frame.h). */
#define CONTROL_UNPACK_TIMES 16

struct control_client {
	struct conn *c;
	bool asked; /* its first request came */
};

struct control {
	struct event_base *base;
	struct evconnlistener *listener;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const struct conn_cbs *cbs;
	void *arg;
	struct control_client *conns; /* live accepted connections, oldest first */
	size_t nconns;
	struct listenpause *pause;  /* out of fds: stop accepting a while */
	unsigned long long dropped; /* to make room: logged once per 1000 */
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

int control_request_set(Iocurve__Envelope *env, ProtobufCMessage *m)
{
	const ProtobufCMessageDescriptor *e = &iocurve__envelope__descriptor;

	for (unsigned i = 0; i < e->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &e->fields[i];

		if (f->type != PROTOBUF_C_TYPE_MESSAGE || f->descriptor != m->descriptor)
			continue;
		*(ProtobufCMessage **)((char *)env + f->offset) = m;
		env->body_case = (Iocurve__Envelope__BodyCase)f->id;
		return 0;
	}
	return -1;
}

uint32_t *control_request_id(const Iocurve__Envelope *env)
{
	const ProtobufCFieldDescriptor *body, *id;
	ProtobufCMessage *m;

	body = protobuf_c_message_descriptor_get_field(&iocurve__envelope__descriptor,
	                                               (unsigned)env->body_case);
	if (body == NULL || body->type != PROTOBUF_C_TYPE_MESSAGE)
		return NULL;
	m = *(ProtobufCMessage *const *)((const char *)env + body->offset);
	id =
	    m != NULL ? protobuf_c_message_descriptor_get_field_by_name(m->descriptor, "id") : NULL;
	if (id == NULL || id->type != PROTOBUF_C_TYPE_UINT32 ||
	    id->label == PROTOBUF_C_LABEL_REPEATED)
		return NULL;
	return (uint32_t *)((char *)m + id->offset);
}

/* The owner's callbacks, with the listener's bookkeeping around them. */
static void control_on_message(struct conn *c, Iocurve__Envelope *env, void *arg)
{
	struct control *ctl = arg;

	for (size_t i = 0; i < ctl->nconns; i++)
		if (ctl->conns[i].c == c && !ctl->conns[i].asked) {
			ctl->conns[i].asked = true;
			conn_set_deadline(c, 0, NULL);
		}
	ctl->cbs->on_message(c, env, ctl->arg);
}

static void control_on_close(struct conn *c, const char *reason, void *arg)
{
	struct control *ctl = arg;

	if (ctl->cbs->on_close != NULL)
		ctl->cbs->on_close(c, reason, ctl->arg);
}

/* Take c off the list (oldest first: the order stays). */
static void control_forget(struct control *ctl, const struct conn *c)
{
	for (size_t i = 0; i < ctl->nconns; i++)
		if (ctl->conns[i].c == c) {
			memmove(&ctl->conns[i], &ctl->conns[i + 1],
			        (ctl->nconns - i - 1) * sizeof(*ctl->conns));
			ctl->nconns--;
			break;
		}
}

static void control_on_free(struct conn *c, void *arg)
{
	struct control *ctl = arg;

	control_forget(ctl, c);
	if (ctl->cbs->on_free != NULL)
		ctl->cbs->on_free(c, ctl->arg);
}

static const struct conn_cbs control_conn_cbs = {
    .on_message = control_on_message,
    .on_close = control_on_close,
    .on_free = control_on_free,
};

/* The socket is 0600 already; a peer of another user (through root's help) is refused. */
static int control_peer_ok(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return 0;
	if (cred.uid != geteuid() && cred.uid != 0) {
		log_warn("control socket: refusing a connection from uid %u (pid %d)",
		         (unsigned)cred.uid, (int)cred.pid);
		return 0;
	}
	return 1;
}

/*
 * Room for one more: at the cap, the oldest client still to send its first request
 * goes; when every one has asked (watchers), the newcomer is refused.
 */
static bool control_make_room(struct control *ctl)
{
	size_t cap = fdbudget_cap(CONTROL_MAX_CONNS, CONTROL_CONNS_SHARE);

	if (ctl->nconns < cap)
		return true;
	for (size_t i = 0; i < ctl->nconns; i++)
		if (!ctl->conns[i].asked) {
			struct conn *c = ctl->conns[i].c;

			if (ctl->dropped++ % 1000 == 0)
				log_warn("control socket: %zu connections (cap %zu): dropping the "
				         "oldest that has not sent a request (%llu so far)",
				         ctl->nconns, cap, ctl->dropped);
			/* conn_abort calls no on_free: the owner hears of it here. */
			control_forget(ctl, c);
			if (ctl->cbs->on_free != NULL)
				ctl->cbs->on_free(c, ctl->arg);
			conn_abort(c);
			listenpause_next_turn(ctl->pause);
			return true;
		}
	if (ctl->dropped++ % 1000 == 0)
		log_warn("control socket: %zu connections (cap %zu), all of them in use: refusing "
		         "one (%llu dropped or refused so far)",
		         ctl->nconns, cap, ctl->dropped);
	return false;
}

static void control_accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
                              int salen, void *arg)
{
	struct control *ctl = arg;
	struct conn *c;

	if (!control_peer_ok(fd) || !control_make_room(ctl)) {
		close(fd);
		return;
	}
	c = conn_unix(ctl->base, fd, "control socket", &control_conn_cbs, ctl);
	if (c == NULL) {
		close(fd);
		return;
	}
	conn_set_deadline(c, CONTROL_REQUEST_SECONDS, "no complete request");
	ctl->conns = xreallocarray(ctl->conns, ctl->nconns + 1, sizeof(*ctl->conns));
	ctl->conns[ctl->nconns++] = (struct control_client){c, false};
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
                               const struct conn_cbs *cbs, void *arg, struct error *err)
{
	struct control *ctl;
	struct sockaddr_un sun;
	struct stat st;
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
	if (lstat(path, &st) == 0 && !S_ISSOCK(st.st_mode)) {
		error_set(err,
		          "control socket %s: something that is not a socket is there; not "
		          "removing it",
		          path);
		return NULL;
	}
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
	ctl->pause = listenpause_new(base, ctl->listener, "control socket", 1000);
	return ctl;
}

void control_free(struct control *ctl)
{
	if (ctl == NULL)
		return;
	for (size_t i = 0; i < ctl->nconns; i++)
		conn_abort(ctl->conns[i].c); /* no on_free follows */
	free(ctl->conns);
	evconnlistener_free(ctl->listener);
	listenpause_free(ctl->pause);
	unlink(ctl->path);
	free(ctl);
}

struct conn *control_connect(struct event_base *base, const char *path, unsigned timeout_s,
                             const struct conn_cbs *cbs, void *arg, struct error *err)
{
	struct timeval tv = {timeout_s, 0};
	struct sockaddr_un sun;
	struct conn *c;
	int fd;

	if (control_addr(path, &sun, err) < 0)
		return NULL;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		error_set(err, "cannot reach the daemon at %s: %s", path, strerror(errno));
		return NULL;
	}
	/* A Unix connect waits while the daemon's backlog is full: bound that wait. */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		if (errno == EAGAIN || errno == EINPROGRESS)
			error_set(err, "the daemon at %s did not accept a connection within %u s",
			          path, timeout_s);
		else
			error_set(err,
			          "cannot reach the daemon at %s: %s (is `iocurve serve` running?)",
			          path, strerror(errno));
		close(fd);
		return NULL;
	}
	c = conn_unix(base, fd, path, cbs, arg);
	if (c == NULL) {
		error_set(err, "%s: cannot set up the connection", path);
		close(fd);
		return NULL;
	}
	/* Its own daemon's listings: a labelled fleet's unpacks to about 8x its bytes. */
	conn_set_unpack_times(c, CONTROL_UNPACK_TIMES);
	return c;
}
