/* SPDX-License-Identifier: MIT */
/* One framed connection: the frame codec over a bufferevent, on a TLS or Unix transport. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/bufferevent_struct.h> /* ev_read, ev_write: made active by conn */
#include <event2/event.h>
#include <openssl/err.h>

#include "clock.h"
#include "conn.h"
#include "frame.h"
#include "log.h"
#include "tls.h"
#include "xalloc.h"

/*
 * A handshake must finish in this time from the first byte, however the peer trickles
 * its bytes: a silent or slow plain-TCP client is dropped.
 */
#define CONN_HANDSHAKE_SECONDS 5
/* A closing connection gets this long to flush what is queued. */
#define CONN_FLUSH_SECONDS 2
/* A struct timeval's two fields for a count of milliseconds. */
#define CONN_TV_MS(ms) (time_t)((ms) / 1000), (suseconds_t)((ms) % 1000) * 1000

/* What differs between carrying frames over TLS and over a plain stream. */
struct conn_transport {
	/* The stream is up: 0, or -1 with why the peer may not stay. */
	int (*connected)(struct conn *c, char *why, size_t len);
	/* Why the stream ended (what: BEV_EVENT_* flags), for on_close. */
	void (*reason)(struct conn *c, short what, int saved_errno, char *buf, size_t len);
	/* Last words once the output has drained (TLS: close_notify); may be NULL. */
	void (*finish)(struct conn *c);
};

struct conn {
	const struct conn_transport *tp;
	struct bufferevent *bev;
	SSL *ssl; /* TLS only */
	const struct conn_cbs *cbs;
	void *arg;
	size_t max_frame;
	unsigned unpack_times; /* frame_read_trusted: 1 but from a trusted peer */
	unsigned idle_ms;
	struct event *deadline_ev; /* absolute: not restarted by traffic */
	char deadline_reason[96];
	bool deadline_until_up; /* the handshake's own deadline: cleared once up */
	bool connected;
	bool in_callback;  /* the owner's close or abort waits while a callback runs */
	bool closing;      /* owner closed: flush, finish, free */
	bool flushing;     /* closing, and the flush has begun (conn_do_close ran) */
	bool aborting;     /* owner aborted inside a callback: free when it returns */
	bool dead;         /* on_close delivered or owner closed: no more callbacks */
	bool timing;       /* conn_output_cb is on the output buffer (and TLS: conn_bio_cb) */
	size_t stamp_left; /* bytes to write before the timed frame has started; 0: none */
	uint64_t sent_ns;  /* the timed frame's send time (conn_send_timed) */
	bool write_armed;  /* TLS: write_ns holds the first write since the last drain */
	uint64_t write_ns;
	enum conn_failure failure; /* set with the reason, before on_close */
	char peer_name[128];
	char peer_serial[80]; /* of its certificate, upper-case hex */
	char peer_addr[112];
};

static void conn_event_cb(struct bufferevent *bev, short what, void *arg);
static void conn_output_cb(struct evbuffer *buf, const struct evbuffer_cb_info *info, void *arg);

/*
 * The one end of every connection, however it ended (owner's close or abort, a failed
 * handshake, the deadline, the peer): everything that can call back into c goes with
 * it, so nothing fires on freed memory later. The deadline timer is freed, the
 * output-buffer and BIO hooks are removed, and bufferevent_free() clears the
 * bufferevent's callbacks (deferred ones included) and its timeouts at once; its SSL
 * and socket follow at the loop's next turn, with nothing of ours attached.
 * notify: on_free runs first (not after conn_abort).
 */
static void conn_destroy(struct conn *c, bool notify)
{
	if (notify && c->cbs->on_free != NULL)
		c->cbs->on_free(c, c->arg);
	if (c->deadline_ev != NULL)
		event_free(c->deadline_ev);
	if (c->timing) {
		BIO *wbio = c->ssl != NULL ? SSL_get_wbio(c->ssl) : NULL;

		if (wbio != NULL) {
			BIO_set_callback_ex(wbio, NULL);
			BIO_set_callback_arg(wbio, NULL);
		}
		evbuffer_remove_cb(bufferevent_get_output(c->bev), conn_output_cb, c);
	}
	/* The SSL belongs to the bufferevent (BEV_OPT_CLOSE_ON_FREE frees it). */
	bufferevent_free(c->bev);
	free(c);
}

static void conn_free(struct conn *c)
{
	conn_destroy(c, true);
}

static void conn_do_close(struct conn *c);

/* A callback of c has returned: carry out the close or abort the owner asked for in it. */
static void conn_after_callback(struct conn *c)
{
	c->in_callback = false;
	if (c->aborting)
		conn_destroy(c, false);
	else if (c->closing && !c->flushing)
		conn_do_close(c);
}

void conn_abort(struct conn *c)
{
	if (c == NULL || c->aborting)
		return;
	c->dead = true;
	if (c->in_callback) {
		c->aborting = true;
		return;
	}
	conn_destroy(c, false);
}

static void conn_finish_close(struct conn *c)
{
	if (c->tp->finish != NULL)
		c->tp->finish(c);
	conn_free(c);
}

static void conn_drained_cb(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;

	if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
		conn_finish_close(c);
}

/* The owner's close, run outside any callback of this conn. */
static void conn_do_close(struct conn *c)
{
	c->flushing = true;
	if (!c->connected || conn_pending(c) == 0) {
		if (c->connected)
			conn_finish_close(c);
		else
			conn_free(c);
		return;
	}
	bufferevent_disable(c->bev, EV_READ);
	bufferevent_setcb(c->bev, NULL, conn_drained_cb, conn_event_cb, c);
	bufferevent_set_timeouts(c->bev, NULL, &(struct timeval){CONN_FLUSH_SECONDS, 0});
}

void conn_close(struct conn *c)
{
	if (c == NULL || c->closing)
		return;
	c->closing = true;
	c->dead = true;
	if (!c->in_callback)
		conn_do_close(c);
}

/*
 * Report the end of the connection once, then free it: on_close is the last callback
 * (on_free aside), whatever the owner calls from inside it.
 */
static void conn_fail(struct conn *c, const char *reason)
{
	if (!c->dead) {
		c->dead = true;
		c->in_callback = true;
		if (c->cbs->on_close != NULL)
			c->cbs->on_close(c, reason, c->arg);
		c->in_callback = false;
	}
	conn_destroy(c, !c->aborting);
}

/*
 * TLS reads ahead (tls.c): one read(2) takes every record the socket holds, and OpenSSL
 * hands them out a record an SSL_read, while libevent reads again only when the socket
 * is readable. A record already read and not yet decrypted would wait for the peer's
 * next bytes (a Hello behind the handshake, a report behind another): the read event
 * is made active again while OpenSSL holds any.
 */
static void conn_read_pending(struct conn *c)
{
	if (c->ssl != NULL && !c->dead && SSL_has_pending(c->ssl))
		event_active(&c->bev->ev_read, EV_READ, 1);
}

static void conn_up(struct conn *c)
{
	char why[256];

	c->connected = true;
	if (c->tp->connected(c, why, sizeof(why)) < 0) {
		conn_fail(c, why);
		return;
	}
	if (c->deadline_until_up)
		conn_set_deadline(c, 0, NULL);
	bufferevent_set_timeouts(c->bev, NULL, NULL);
	if (c->idle_ms)
		bufferevent_set_timeouts(c->bev, &(struct timeval){CONN_TV_MS(c->idle_ms)}, NULL);
	c->in_callback = true;
	if (c->cbs->on_connected)
		c->cbs->on_connected(c, c->arg);
	conn_read_pending(c);
	conn_after_callback(c);
}

static void conn_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct conn *c = arg;
	int saved_errno = EVUTIL_SOCKET_ERROR();
	char reason[400];

	/* Left over from a non-blocking call, not the cause of this event. */
	if (saved_errno == EAGAIN || saved_errno == EWOULDBLOCK || saved_errno == EINTR ||
	    saved_errno == EINPROGRESS)
		saved_errno = 0;
	if (what & BEV_EVENT_CONNECTED) {
		conn_up(c);
		return;
	}
	if (c->closing) { /* the flush failed or timed out: the owner hears nothing more */
		conn_free(c);
		return;
	}
	if ((what & BEV_EVENT_TIMEOUT) && c->connected && c->cbs->on_idle != NULL &&
	    c->cbs->on_idle(c, c->arg)) {
		/* libevent disabled reading on the timeout: enabled again, the timeout re-arms */
		bufferevent_enable(c->bev, EV_READ);
		return;
	}
	if ((what & BEV_EVENT_TIMEOUT) && c->connected)
		snprintf(reason, sizeof(reason), "peer silent past the idle timeout");
	else
		c->tp->reason(c, what, saved_errno, reason, sizeof(reason));
	conn_fail(c, reason);
}

static void conn_read_cb(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	Iocurve__Envelope *env;
	struct error err;
	int rc;

	c->in_callback = true;
	while (!c->dead &&
	       (rc = frame_read_trusted(in, c->max_frame, c->unpack_times, &env, &err)) != 0) {
		if (rc < 0) {
			char reason[sizeof(err.msg) + 32];

			snprintf(reason, sizeof(reason), "bad frame: %s", err.msg);
			log_warn("%s%s%s%s: %s; closing", c->peer_addr, c->peer_name[0] ? " (" : "",
			         c->peer_name, c->peer_name[0] ? ")" : "", reason);
			c->in_callback = false;
			conn_fail(c, reason);
			return;
		}
		c->cbs->on_message(c, env, c->arg);
		frame_free(env);
	}
	conn_read_pending(c);
	conn_after_callback(c);
}

/* Take over bev: callbacks, limits, reading. */
static struct conn *conn_start(struct conn *c, const struct conn_transport *tp,
                               const char *peer_addr, const struct conn_cbs *cbs, void *arg)
{
	c->tp = tp;
	c->cbs = cbs;
	c->arg = arg;
	c->max_frame = FRAME_MAX_DEFAULT;
	snprintf(c->peer_addr, sizeof(c->peer_addr), "%s", peer_addr);
	bufferevent_setwatermark(c->bev, EV_READ, 0, FRAME_HEADER + c->max_frame);
	bufferevent_setcb(c->bev, conn_read_cb, NULL, conn_event_cb, c);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	return c;
}

/* --- TLS: mutual TLS 1.3 over a TCP socket (bufferevent_openssl) --- */

static int conn_tls_connected(struct conn *c, char *why, size_t len)
{
	if (tls_peer_name(c->ssl, c->peer_name, sizeof(c->peer_name)) < 0) {
		snprintf(why, len, "peer presented no verified certificate");
		return -1;
	}
	if (tls_peer_serial(c->ssl, c->peer_serial, sizeof(c->peer_serial)) < 0) {
		snprintf(why, len, "peer certificate has no usable serial number");
		return -1;
	}
	return 0;
}

/*
 * In TLS 1.3 a client's handshake ends before the server has checked the client's
 * certificate. A server that rejects it sends an alert and closes; when our next
 * write met the reset first, the alert is still in the socket, unread. Read what is
 * left (the socket is non-blocking; the connection is ending anyway): an alert about
 * our certificate there is the cause, not the reset.
 */
static void conn_tls_last_words(struct conn *c, char *buf, size_t len)
{
	int fd = (int)bufferevent_getfd(c->bev);
	char scratch[512];
	unsigned long e;

	if (fd < 0 || !(fcntl(fd, F_GETFL) & O_NONBLOCK))
		return; /* a read must not wait */
	ERR_clear_error();
	for (int i = 0; i < 64 && SSL_read(c->ssl, scratch, sizeof(scratch)) > 0; i++)
		;
	while ((e = ERR_get_error()) != 0)
		if (tls_alert_about_us(e) && c->failure != CONN_FAILURE_OUR_CERT) {
			c->failure = CONN_FAILURE_OUR_CERT;
			snprintf(buf, len, "%s", ERR_reason_error_string(e));
		}
}

/*
 * Why the TLS layer gave up: the verify result first, then OpenSSL's queued
 * errors. libevent queues SSL_get_error() codes (SSL_ERROR_SYSCALL = 5) among
 * the packed ERR codes; those only say "look at errno".
 */
static void conn_tls_error(struct conn *c, int saved_errno, char *buf, size_t len)
{
	bool syscall = false;
	unsigned long e;

	buf[0] = '\0';
	if (SSL_get_verify_result(c->ssl) != X509_V_OK) {
		c->failure = CONN_FAILURE_PEER_CERT;
		tls_failure_reason(c->ssl, buf, len);
		return;
	}
	while ((e = bufferevent_get_openssl_error(c->bev)) != 0) {
		const char *r = e > 255 ? ERR_reason_error_string(e) : NULL;

		if (r != NULL && buf[0] == '\0')
			snprintf(buf, len, "%s", r);
		if (e > 255 && tls_alert_about_us(e))
			c->failure = CONN_FAILURE_OUR_CERT;
		/* OpenSSL 3's word for a peer gone without close_notify. */
		if (e > 255 && ERR_GET_LIB(e) == ERR_LIB_SSL &&
		    ERR_GET_REASON(e) == SSL_R_UNEXPECTED_EOF_WHILE_READING &&
		    c->failure == CONN_FAILURE_OTHER)
			c->failure = CONN_FAILURE_CLOSED;
		if (e == SSL_ERROR_SYSCALL)
			syscall = true;
	}
	if (buf[0] == '\0' && syscall && saved_errno != 0)
		snprintf(buf, len, "%s", strerror(saved_errno));
	if (c->connected && c->failure != CONN_FAILURE_OUR_CERT)
		conn_tls_last_words(c, buf, len);
}

static void conn_tls_reason(struct conn *c, short what, int saved_errno, char *buf, size_t len)
{
	const char *pre = c->connected ? "" : "TLS handshake failed: ";
	char tlsr[256];

	if (!c->connected && saved_errno == ECONNREFUSED)
		c->failure = CONN_FAILURE_REFUSED;
	else if (!c->connected && (saved_errno == EHOSTUNREACH || saved_errno == ENETUNREACH ||
	                           saved_errno == ETIMEDOUT))
		c->failure = CONN_FAILURE_UNREACHABLE;
	conn_tls_error(c, saved_errno, tlsr, sizeof(tlsr));
	if (c->failure == CONN_FAILURE_OTHER && !(what & BEV_EVENT_TIMEOUT) &&
	    (saved_errno == ECONNRESET || (what & BEV_EVENT_EOF)))
		c->failure = CONN_FAILURE_CLOSED;
	if (c->failure == CONN_FAILURE_REFUSED || c->failure == CONN_FAILURE_UNREACHABLE)
		pre = ""; /* no TLS was spoken: it was the TCP connect */
	if (what & BEV_EVENT_TIMEOUT)
		snprintf(buf, len, "TLS handshake timed out");
	else if (tlsr[0] != '\0')
		snprintf(buf, len, "%s%s", c->connected ? "TLS: " : pre, tlsr);
	else if (what & BEV_EVENT_EOF)
		snprintf(buf, len, "%s",
		         c->connected ? "peer closed the connection"
		                      : "TLS handshake failed: connection closed by peer");
	else if (saved_errno != 0)
		snprintf(buf, len, "%s%s", pre, strerror(saved_errno));
	else
		snprintf(buf, len, "%s",
		         c->connected ? "connection closed without TLS close_notify"
		                      : "TLS handshake failed: connection closed by peer");
}

static void conn_tls_finish(struct conn *c)
{
	SSL_shutdown(c->ssl);
}

static const struct conn_transport conn_tls = {
    .connected = conn_tls_connected,
    .reason = conn_tls_reason,
    .finish = conn_tls_finish,
};

static struct conn *conn_tls_new(struct event_base *base, SSL_CTX *ctx, int fd, bool server,
                                 const char *peer_addr, const struct conn_cbs *cbs, void *arg)
{
	struct conn *c = xcalloc(1, sizeof(*c));

	c->ssl = SSL_new(ctx);
	if (c->ssl == NULL) {
		free(c);
		return NULL;
	}
	c->bev = bufferevent_openssl_socket_new(
	    base, fd, c->ssl, server ? BUFFEREVENT_SSL_ACCEPTING : BUFFEREVENT_SSL_CONNECTING,
	    BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS);
	if (c->bev ==
	    NULL) { /* libevent freed the SSL (BEV_OPT_CLOSE_ON_FREE); fd is the caller's */
		free(c);
		return NULL;
	}
	/* A peer that vanishes without close_notify is an error, not a clean EOF. */
	bufferevent_openssl_set_allow_dirty_shutdown(c->bev, 0);
	c = conn_start(c, &conn_tls, peer_addr, cbs, arg);
	if (c != NULL) {
		conn_set_deadline(c, CONN_HANDSHAKE_SECONDS, "TLS handshake not done in time");
		c->deadline_until_up = true;
	}
	return c;
}

struct conn *conn_accept(struct event_base *base, SSL_CTX *ctx, int fd, const char *peer_addr,
                         const struct conn_cbs *cbs, void *arg)
{
	return conn_tls_new(base, ctx, fd, true, peer_addr, cbs, arg);
}

/*
 * The connect comes first, so that a failure at once (no route: ENETUNREACH) leaves
 * nothing behind: no connection, no timer, errno for the caller. One that fails later
 * (a refusal, no answer) ends in on_close like any handshake failure.
 */
struct conn *conn_connect(struct event_base *base, SSL_CTX *ctx, const struct sockaddr *sa,
                          int salen, const char *peer_addr, const struct conn_cbs *cbs, void *arg)
{
	int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), saved;
	struct conn *c;

	if (fd < 0)
		return NULL;
	/* Interrupted, the connect goes on in the background, as one in progress does. */
	if (connect(fd, sa, (socklen_t)salen) < 0 && errno != EINPROGRESS && errno != EINTR)
		goto fail;
	c = conn_tls_new(base, ctx, fd, false, peer_addr, cbs, arg);
	if (c == NULL) {
		errno = ENOMEM;
		goto fail;
	}
	return c;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return NULL;
}

/* --- Unix: a plain stream socket, connected when it is wrapped --- */

static int conn_unix_connected(struct conn *c, char *why, size_t len)
{
	return 0;
}

static void conn_unix_reason(struct conn *c, short what, int saved_errno, char *buf, size_t len)
{
	const char *op = what & BEV_EVENT_WRITING ? "cannot write: " : "";

	if (what & BEV_EVENT_EOF)
		snprintf(buf, len, "peer closed the connection");
	else if (saved_errno != 0)
		snprintf(buf, len, "%s%s", op, strerror(saved_errno));
	else
		snprintf(buf, len, "%sconnection error", op);
}

static const struct conn_transport conn_unix_transport = {
    .connected = conn_unix_connected,
    .reason = conn_unix_reason,
};

struct conn *conn_unix(struct event_base *base, int fd, const char *peer_addr,
                       const struct conn_cbs *cbs, void *arg)
{
	struct conn *c = xcalloc(1, sizeof(*c));

	evutil_make_socket_nonblocking(fd);
	c->bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS);
	if (c->bev == NULL) {
		free(c);
		return NULL;
	}
	c->connected = true;
	return conn_start(c, &conn_unix_transport, peer_addr, cbs, arg);
}

/* --- Both --- */

void conn_stop_reading(struct conn *c)
{
	int fd = (int)bufferevent_getfd(c->bev), small = 1;

	bufferevent_disable(c->bev, EV_READ);
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
}

struct event_base *conn_base_new(void)
{
	struct event_config *cfg = event_config_new();
	struct event_base *base;

	if (cfg == NULL)
		return NULL;
	event_config_set_flag(cfg, EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST);
	base = event_base_new_with_config(cfg);
	event_config_free(cfg);
	return base;
}

int conn_send(struct conn *c, const Iocurve__Envelope *env)
{
	struct evbuffer *out;
	bool idle;

	if (c->dead)
		return -1;
	out = bufferevent_get_output(c->bev);
	idle = evbuffer_get_length(out) == 0;
	if (frame_write(out, env, c->max_frame) < 0) {
		log_error("%s: not sending %s: over the frame limit of %zu bytes", c->peer_addr,
		          frame_body_name(env), c->max_frame);
		return -1;
	}
	/*
	 * Written in this pass of the loop, not after a poll says the socket is writable:
	 * on a base from conn_base_new, the write event the frame added and the one its
	 * write removed cancel out, and a frame costs its write and no epoll_ctl.
	 */
	if (idle && c->connected && !c->closing)
		event_active(&c->bev->ev_write, EV_WRITE, 1);
	return 0;
}

/*
 * TLS: called by OpenSSL around every write to the socket. The time before the
 * first write since the output buffer was last drained is kept: the bytes that
 * drain next went out in that write or in one right after it.
 */
static long conn_bio_cb(BIO *b, int oper, const char *argp, size_t len, int argi, long argl,
                        int ret, size_t *processed)
{
	struct conn *c = (struct conn *)BIO_get_callback_arg(b);

	if (oper == BIO_CB_WRITE && c != NULL && !c->write_armed) {
		c->write_ns = clock_now_ns();
		c->write_armed = true;
	}
	return ret;
}

/*
 * Called as the output buffer changes; bytes are drained from it once the
 * transport wrote them. The timed frame's send time is the time taken before that
 * write (TLS), never after it: a stamp late by a preemption would shorten the
 * round trip and win the min-RTT filter with a wrong offset, while an early one
 * lengthens it and loses. The Unix transport has no hook before its write: there
 * the time is taken at the drain.
 */
static void conn_output_cb(struct evbuffer *buf, const struct evbuffer_cb_info *info, void *arg)
{
	struct conn *c = arg;
	uint64_t at;

	if (info->n_deleted == 0)
		return;
	at = c->write_armed ? c->write_ns : clock_now_ns();
	c->write_armed = false;
	if (c->stamp_left == 0)
		return;
	if (info->n_deleted >= c->stamp_left) {
		c->sent_ns = at;
		c->stamp_left = 0;
	} else {
		c->stamp_left -= info->n_deleted;
	}
}

int conn_send_timed(struct conn *c, const Iocurve__Envelope *env)
{
	size_t ahead;

	if (c->dead)
		return -1;
	ahead = conn_pending(c);
	if (conn_send(c, env) < 0)
		return -1;
	if (!c->timing) {
		BIO *wbio = c->ssl != NULL ? SSL_get_wbio(c->ssl) : NULL;

		if (wbio != NULL) {
			BIO_set_callback_arg(wbio, (char *)c);
			BIO_set_callback_ex(wbio, conn_bio_cb);
		}
		evbuffer_add_cb(bufferevent_get_output(c->bev), conn_output_cb, c);
		c->timing = true;
	}
	c->stamp_left = ahead + 1;
	c->sent_ns = 0;
	return 0;
}

uint64_t conn_sent_ns(const struct conn *c)
{
	return c->sent_ns;
}

size_t conn_pending(const struct conn *c)
{
	return evbuffer_get_length(bufferevent_get_output(c->bev));
}

size_t conn_backlog(const struct conn *c)
{
	int fd = (int)bufferevent_getfd(c->bev), queued = 0;

	if (fd < 0 || ioctl(fd, SIOCOUTQ, &queued) < 0 || queued < 0)
		queued = 0;
	return conn_pending(c) + (size_t)queued;
}

void conn_set_idle_timeout_ms(struct conn *c, unsigned ms)
{
	c->idle_ms = ms;
	if (c->connected)
		bufferevent_set_timeouts(c->bev, ms ? &(struct timeval){CONN_TV_MS(ms)} : NULL,
		                         NULL);
}

void conn_set_idle_timeout(struct conn *c, unsigned seconds)
{
	conn_set_idle_timeout_ms(c, seconds * 1000);
}

void conn_set_unpack_times(struct conn *c, unsigned times)
{
	c->unpack_times = times;
}

void conn_set_max_frame(struct conn *c, size_t max)
{
	c->max_frame = max;
	bufferevent_setwatermark(c->bev, EV_READ, 0, FRAME_HEADER + max);
}

enum conn_failure conn_failure(const struct conn *c)
{
	return c->failure;
}

const char *conn_peer_name(const struct conn *c)
{
	return c->peer_name;
}

const char *conn_peer_serial(const struct conn *c)
{
	return c->peer_serial;
}

/* The timer is freed with c (conn_destroy): c is alive whenever this runs. */
static void conn_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	if (!c->closing)
		conn_fail(c, c->deadline_reason);
}

void conn_set_deadline(struct conn *c, unsigned seconds, const char *reason)
{
	if (c->dead && seconds != 0)
		return; /* closing: the flush has its own limit */
	c->deadline_until_up = false;
	if (seconds == 0) {
		if (c->deadline_ev != NULL)
			event_del(c->deadline_ev);
		return;
	}
	if (c->deadline_ev == NULL)
		c->deadline_ev = evtimer_new(bufferevent_get_base(c->bev), conn_deadline_cb, c);
	snprintf(c->deadline_reason, sizeof(c->deadline_reason), "%s (%u s deadline)", reason,
	         seconds);
	{
		struct timeval tv = {seconds, 0};

		evtimer_add(c->deadline_ev, &tv);
	}
}
