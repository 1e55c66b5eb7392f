/* SPDX-License-Identifier: MIT */
/* conn's TLS transport: mutual TLS 1.3 on the socket, why it ended, conn_accept, conn_connect. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>

#include "conn_priv.h"
#include "tls.h"

/*
 * A handshake must finish in this time from the first byte, however the peer trickles
 * its bytes: a silent or slow plain-TCP client is dropped.
 */
#define CONN_HANDSHAKE_SECONDS 5

/*
 * In TLS 1.3 a client's handshake ends before the server has checked the client's
 * certificate. A server that rejects it sends an alert and closes; when our next
 * write met the reset first, the alert is still in the socket, unread. Read what is
 * left (the socket is non-blocking; the connection is ending anyway): an alert about
 * our certificate there is the cause, not the reset.
 */
static void conn_tls_last_words(struct conn *c, char *buf, size_t len)
{
	char scratch[512];
	unsigned long e;

	if (c->fd < 0 || !(fcntl(c->fd, F_GETFL) & O_NONBLOCK))
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
 * Why the TLS layer gave up: the verify result first, then OpenSSL's queued errors
 * (read at once: the queue is the thread's, and the next connection's call clears it).
 */
static void conn_tls_error(struct conn *c, bool syscall, int saved_errno, char *buf, size_t len)
{
	unsigned long e;

	buf[0] = '\0';
	if (SSL_get_verify_result(c->ssl) != X509_V_OK) {
		c->failure = CONN_FAILURE_PEER_CERT;
		tls_failure_reason(c->ssl, buf, len);
		ERR_clear_error();
		return;
	}
	while ((e = ERR_get_error()) != 0) {
		const char *r = ERR_reason_error_string(e);

		if (r != NULL && buf[0] == '\0')
			snprintf(buf, len, "%s", r);
		if (tls_alert_about_us(e))
			c->failure = CONN_FAILURE_OUR_CERT;
		/* OpenSSL 3's word for a peer gone without close_notify. */
		if (ERR_GET_LIB(e) == ERR_LIB_SSL &&
		    ERR_GET_REASON(e) == SSL_R_UNEXPECTED_EOF_WHILE_READING &&
		    c->failure == CONN_FAILURE_OTHER)
			c->failure = CONN_FAILURE_CLOSED;
	}
	if (buf[0] == '\0' && syscall && saved_errno != 0)
		snprintf(buf, len, "%s", strerror(saved_errno));
	if (c->connected && c->failure != CONN_FAILURE_OUR_CERT)
		conn_tls_last_words(c, buf, len);
}

/*
 * c->why for a stream that ended with an error: the TCP connect's (no TLS was spoken),
 * the handshake's, or the session's. syscall: OpenSSL said look at errno.
 */
static void conn_tls_reason(struct conn *c, bool syscall, int saved_errno)
{
	const char *pre = c->connected ? "" : "TLS handshake failed: ";
	char tlsr[256];
	bool eof;

	if (saved_errno == EAGAIN || saved_errno == EWOULDBLOCK || saved_errno == EINTR ||
	    saved_errno == EINPROGRESS)
		saved_errno = 0;
	if (!c->connected && saved_errno == ECONNREFUSED)
		c->failure = CONN_FAILURE_REFUSED;
	else if (!c->connected && (saved_errno == EHOSTUNREACH || saved_errno == ENETUNREACH ||
	                           saved_errno == ETIMEDOUT))
		c->failure = CONN_FAILURE_UNREACHABLE;
	conn_tls_error(c, syscall, saved_errno, tlsr, sizeof(tlsr));
	/* Nothing queued and no errno: the peer's FIN, without a word of TLS. */
	eof = syscall && saved_errno == 0 && tlsr[0] == '\0';
	if (c->failure == CONN_FAILURE_OTHER && (saved_errno == ECONNRESET || eof))
		c->failure = CONN_FAILURE_CLOSED;
	if (c->failure == CONN_FAILURE_REFUSED || c->failure == CONN_FAILURE_UNREACHABLE)
		pre = ""; /* no TLS was spoken: it was the TCP connect */
	if (tlsr[0] != '\0')
		snprintf(c->why, sizeof(c->why), "%s%s", c->connected ? "TLS: " : pre, tlsr);
	else if (saved_errno != 0)
		snprintf(c->why, sizeof(c->why), "%s%s", pre, strerror(saved_errno));
	else
		snprintf(c->why, sizeof(c->why), "%s",
		         c->connected ? "connection closed without TLS close_notify"
		                      : "TLS handshake failed: connection closed by peer");
}

/* What an SSL call that returned r came to. */
static enum conn_io conn_tls_io(struct conn *c, int r, size_t *n)
{
	int saved = errno;

	*n = 0;
	if (r > 0) {
		*n = (size_t)r;
		return CONN_IO_DONE;
	}
	switch (SSL_get_error(c->ssl, r)) {
	case SSL_ERROR_WANT_READ:
		return CONN_IO_WANT_READ;
	case SSL_ERROR_WANT_WRITE:
		return CONN_IO_WANT_WRITE;
	case SSL_ERROR_ZERO_RETURN: /* close_notify */
		c->failure = CONN_FAILURE_CLOSED;
		snprintf(c->why, sizeof(c->why), "%s",
		         c->connected ? "peer closed the connection"
		                      : "TLS handshake failed: connection closed by peer");
		return CONN_IO_END;
	case SSL_ERROR_SYSCALL:
		conn_tls_reason(c, true, saved);
		return CONN_IO_END;
	default:
		conn_tls_reason(c, false, saved);
		return CONN_IO_END;
	}
}

static enum conn_io conn_tls_read(struct conn *c, void *buf, size_t len, size_t *n)
{
	ERR_clear_error();
	errno = 0;
	return conn_tls_io(c, SSL_read(c->ssl, buf, (int)len), n);
}

static enum conn_io conn_tls_write(struct conn *c, const void *buf, size_t len, size_t *n)
{
	ERR_clear_error();
	errno = 0;
	return conn_tls_io(c, SSL_write(c->ssl, buf, (int)len), n);
}

static int conn_tls_handshake(struct conn *c)
{
	size_t n;
	int r;

	ERR_clear_error();
	errno = 0;
	r = SSL_do_handshake(c->ssl);
	if (r == 1)
		return 1;
	switch (conn_tls_io(c, r, &n)) {
	case CONN_IO_WANT_READ:
		return 0;
	case CONN_IO_WANT_WRITE:
		event_add(c->wev, NULL);
		return 0;
	default:
		return -1;
	}
}

static int conn_tls_connect_done(struct conn *c)
{
	socklen_t len = sizeof(int);
	int err = 0;

	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		err = errno;
	if (err == 0)
		return 0;
	conn_tls_reason(c, true, err);
	return -1;
}

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

static void conn_tls_finish(struct conn *c)
{
	ERR_clear_error();
	SSL_shutdown(c->ssl);
	ERR_clear_error();
}

static const struct conn_transport conn_tls = {
    .read = conn_tls_read,
    .handshake = conn_tls_handshake,
    .connect_done = conn_tls_connect_done,
    .write = conn_tls_write,
    .connected = conn_tls_connected,
    .finish = conn_tls_finish,
};

static struct conn *conn_tls_new(struct event_base *base, SSL_CTX *ctx, int fd, bool server,
                                 const char *peer_addr, const struct conn_cbs *cbs, void *arg)
{
	SSL *ssl = SSL_new(ctx);
	struct conn *c;

	if (ssl == NULL)
		return NULL;
	if ((c = conn_new(base, fd, &conn_tls, peer_addr, cbs, arg)) == NULL) {
		SSL_free(ssl);
		return NULL;
	}
	c->ssl = ssl;
	if (conn_bio_attach(c, ssl) < 0) {
		c->fd = -1; /* the caller's still */
		conn_abort(c);
		return NULL;
	}
	/* A write that waits is retried from where the output buffer then lies. */
	SSL_set_mode(ssl, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	if (server)
		SSL_set_accept_state(ssl);
	else
		SSL_set_connect_state(ssl);
	conn_set_deadline(c, CONN_HANDSHAKE_SECONDS, "TLS handshake not done in time");
	c->deadline_until_up = true;
	return c;
}

struct conn *conn_accept(struct event_base *base, SSL_CTX *ctx, int fd, const char *peer_addr,
                         const struct conn_cbs *cbs, void *arg)
{
	struct conn *c;

	evutil_make_socket_nonblocking(fd);
	c = conn_tls_new(base, ctx, fd, true, peer_addr, cbs, arg);
	if (c != NULL) {
		c->handshaking = true;
		conn_read_on(c, true);
	}
	return c;
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
	c->tcp_connecting = true;
	event_add(c->wev, NULL);
	return c;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return NULL;
}
