/* SPDX-License-Identifier: MIT */
/* One agent-protocol connection: mutual TLS over bufferevent_openssl, framed Envelopes. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <openssl/err.h>

#include "conn.h"
#include "frame.h"
#include "log.h"
#include "tls.h"
#include "xalloc.h"

/* A handshake must finish in this time: a silent plain-TCP client is dropped. */
#define CONN_HANDSHAKE_SECONDS 10

struct conn {
	struct bufferevent *bev;
	SSL *ssl;
	const struct conn_cbs *cbs;
	void *arg;
	size_t max_frame;
	unsigned idle_seconds;
	bool connected;
	bool in_callback; /* freeing is deferred while a callback runs */
	bool closing;     /* owner closed: flush, close_notify, free */
	bool dead;        /* on_close delivered or owner closed: no more callbacks */
	char peer_name[128];
	char peer_addr[64];
};

static void conn_event_cb(struct bufferevent *bev, short what, void *arg);

static void conn_free(struct conn *c)
{
	/* The SSL belongs to the bufferevent (BEV_OPT_CLOSE_ON_FREE frees it). */
	bufferevent_free(c->bev);
	free(c);
}

/* Send close_notify and free once the output has drained. */
static void conn_finish_close(struct conn *c)
{
	SSL_shutdown(c->ssl);
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
	if (!c->connected || evbuffer_get_length(bufferevent_get_output(c->bev)) == 0) {
		if (c->connected)
			conn_finish_close(c);
		else
			conn_free(c);
		return;
	}
	bufferevent_disable(c->bev, EV_READ);
	bufferevent_setcb(c->bev, NULL, conn_drained_cb, conn_event_cb, c);
	bufferevent_set_timeouts(c->bev, NULL, &(struct timeval){2, 0});
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

/* Report the end of the connection once, then free it. */
static void conn_fail(struct conn *c, const char *reason)
{
	if (!c->dead) {
		c->dead = true;
		c->in_callback = true;
		c->cbs->on_close(c, reason, c->arg);
		c->in_callback = false;
	}
	conn_free(c);
}

/*
 * Why the TLS layer gave up: the verify result first, then OpenSSL's queued
 * errors. libevent queues SSL_get_error() codes (SSL_ERROR_SYSCALL = 5) among
 * the packed ERR codes; those only say "look at errno".
 */
static void conn_tls_reason(struct conn *c, int saved_errno, char *buf, size_t len)
{
	bool syscall = false;
	unsigned long e;

	buf[0] = '\0';
	if (SSL_get_verify_result(c->ssl) != X509_V_OK) {
		tls_failure_reason(c->ssl, buf, len);
		return;
	}
	while ((e = bufferevent_get_openssl_error(c->bev)) != 0) {
		const char *r = e > 255 ? ERR_reason_error_string(e) : NULL;

		if (r != NULL && buf[0] == '\0')
			snprintf(buf, len, "%s", r);
		if (e == SSL_ERROR_SYSCALL)
			syscall = true;
	}
	if (buf[0] == '\0' && syscall && saved_errno != 0)
		snprintf(buf, len, "%s", strerror(saved_errno));
}

static void conn_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct conn *c = arg;
	int saved_errno = EVUTIL_SOCKET_ERROR();
	char tlsr[256], reason[400];

	/* Left over from a non-blocking call, not the cause of this event. */
	if (saved_errno == EAGAIN || saved_errno == EWOULDBLOCK || saved_errno == EINTR ||
	    saved_errno == EINPROGRESS)
		saved_errno = 0;

	if (what & BEV_EVENT_CONNECTED) {
		c->connected = true;
		if (tls_peer_name(c->ssl, c->peer_name, sizeof(c->peer_name)) < 0) {
			conn_fail(c, "peer presented no verified certificate");
			return;
		}
		bufferevent_set_timeouts(bev, NULL, NULL);
		if (c->idle_seconds)
			bufferevent_set_timeouts(bev, &(struct timeval){c->idle_seconds, 0}, NULL);
		c->in_callback = true;
		if (c->cbs->on_connected)
			c->cbs->on_connected(c, c->arg);
		c->in_callback = false;
		if (c->closing)
			conn_do_close(c);
		return;
	}
	if (c->closing) {
		conn_free(c);
		return;
	}
	conn_tls_reason(c, saved_errno, tlsr, sizeof(tlsr));
	if (what & BEV_EVENT_TIMEOUT)
		snprintf(reason, sizeof(reason), "%s",
		         c->connected ? "peer silent past the idle timeout"
		                      : "TLS handshake timed out");
	else if (tlsr[0] != '\0')
		snprintf(reason, sizeof(reason), "%s%s",
		         c->connected ? "TLS: " : "TLS handshake failed: ", tlsr);
	else if (what & BEV_EVENT_EOF)
		snprintf(reason, sizeof(reason), "%s",
		         c->connected ? "peer closed the connection"
		                      : "TLS handshake failed: connection closed by peer");
	else if (saved_errno != 0)
		snprintf(reason, sizeof(reason), "%s%s",
		         c->connected ? "" : "TLS handshake failed: ", strerror(saved_errno));
	else
		snprintf(reason, sizeof(reason), "%s",
		         c->connected ? "connection closed without TLS close_notify"
		                      : "TLS handshake failed: connection closed by peer");
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
	while (!c->dead && (rc = frame_read(in, c->max_frame, &env, &err)) != 0) {
		if (rc < 0) {
			char reason[sizeof(err.msg) + 32];

			snprintf(reason, sizeof(reason), "bad frame: %s", err.msg);
			log_warn("%s (%s): %s; closing", c->peer_addr, c->peer_name, reason);
			c->in_callback = false;
			conn_fail(c, reason);
			return;
		}
		c->cbs->on_message(c, env, c->arg);
		frame_free(env);
	}
	c->in_callback = false;
	if (c->closing)
		conn_do_close(c);
}

static struct conn *conn_new(struct event_base *base, SSL_CTX *ctx, int fd, bool server,
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
	if (c->bev == NULL) {
		SSL_free(c->ssl);
		free(c);
		return NULL;
	}
	/* A peer that vanishes without close_notify is an error, not a clean EOF. */
	bufferevent_openssl_set_allow_dirty_shutdown(c->bev, 0);
	c->cbs = cbs;
	c->arg = arg;
	c->max_frame = FRAME_MAX_DEFAULT;
	snprintf(c->peer_addr, sizeof(c->peer_addr), "%s", peer_addr);
	bufferevent_setwatermark(c->bev, EV_READ, 0, FRAME_HEADER + c->max_frame);
	bufferevent_setcb(c->bev, conn_read_cb, NULL, conn_event_cb, c);
	bufferevent_set_timeouts(c->bev, &(struct timeval){CONN_HANDSHAKE_SECONDS, 0}, NULL);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	return c;
}

struct conn *conn_accept(struct event_base *base, SSL_CTX *ctx, int fd, const char *peer_addr,
                         const struct conn_cbs *cbs, void *arg)
{
	return conn_new(base, ctx, fd, true, peer_addr, cbs, arg);
}

struct conn *conn_connect(struct event_base *base, SSL_CTX *ctx, const struct sockaddr *sa,
                          int salen, const char *peer_addr, const struct conn_cbs *cbs, void *arg)
{
	struct conn *c = conn_new(base, ctx, -1, false, peer_addr, cbs, arg);

	if (c == NULL)
		return NULL;
	if (bufferevent_socket_connect(c->bev, sa, salen) < 0) {
		conn_free(c);
		return NULL;
	}
	return c;
}

int conn_send(struct conn *c, const Iocurve__Envelope *env)
{
	if (c->dead)
		return -1;
	if (frame_write(bufferevent_get_output(c->bev), env, c->max_frame) < 0) {
		log_error("%s: not sending %s: over the frame limit of %zu bytes", c->peer_addr,
		          frame_body_name(env), c->max_frame);
		return -1;
	}
	return 0;
}

void conn_set_idle_timeout(struct conn *c, unsigned seconds)
{
	c->idle_seconds = seconds;
	if (c->connected)
		bufferevent_set_timeouts(c->bev, seconds ? &(struct timeval){seconds, 0} : NULL,
		                         NULL);
}

void conn_set_max_frame(struct conn *c, size_t max)
{
	c->max_frame = max;
	bufferevent_setwatermark(c->bev, EV_READ, 0, FRAME_HEADER + max);
}

const char *conn_peer_name(const struct conn *c)
{
	return c->peer_name;
}

const char *conn_peer_addr(const struct conn *c)
{
	return c->peer_addr;
}
