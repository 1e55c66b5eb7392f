/* SPDX-License-Identifier: MIT */
/*
 * One framed connection over libevent: Envelopes in frames (frame.h), a frame size
 * limit, an idle timeout, close callbacks with a reason, and a free that waits while a
 * callback of the connection runs. Two transports carry the bytes: mutual TLS over TCP
 * (the agent protocol) and a plain Unix stream (the control socket).
 */
#ifndef IOCURVE_CONN_H
#define IOCURVE_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>
#include <openssl/ssl.h>

#include "iocurve.pb-c.h"

struct conn;

/*
 * Callbacks run on the event loop. on_message's env is freed when it returns.
 * on_close is the last callback for a connection (handshake failure, peer close,
 * bad frame, timeout), with why in words; conn_close from the owner's side makes no
 * on_close. on_free, when set, runs as the connection's memory goes, however it
 * ended (not after conn_abort). Whatever ends a connection, its timers (deadline,
 * idle timeout) and callbacks end with it: none fires after on_close or on_free.
 */
struct conn_cbs {
	void (*on_connected)(struct conn *c, void *arg); /* TLS: handshake done */
	void (*on_message)(struct conn *c, Iocurve__Envelope *env, void *arg);
	void (*on_close)(struct conn *c, const char *reason, void *arg);
	void (*on_free)(struct conn *c, void *arg);
	/*
	 * The idle timeout passed (optional): true keeps the connection, its timeout
	 * starting again (the owner knows the silence was its own: a stalled loop); false
	 * or no callback: it closes ("peer silent past the idle timeout").
	 */
	bool (*on_idle)(struct conn *c, void *arg);
};

/* TLS, server side, for an accepted socket (the conn owns fd). */
struct conn *conn_accept(struct event_base *base, SSL_CTX *ctx, int fd, const char *peer_addr,
                         const struct conn_cbs *cbs, void *arg);
/*
 * TLS, client side: connects and handshakes; on_connected or on_close follows. NULL,
 * with errno, when the connect fails at once (ENETUNREACH: no route): then nothing of
 * the attempt is left, no timer, no callback.
 */
struct conn *conn_connect(struct event_base *base, SSL_CTX *ctx, const struct sockaddr *sa,
                          int salen, const char *peer_addr, const struct conn_cbs *cbs, void *arg);
/* A connected Unix stream socket, either side (the conn owns fd; no on_connected). */
struct conn *conn_unix(struct event_base *base, int fd, const char *peer_addr,
                       const struct conn_cbs *cbs, void *arg);

/*
 * The event base for framed connections: epoll's changes gathered and made once a
 * pass (EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST), so a frame queued and written in the
 * same pass (conn_send) costs no epoll_ctl. NULL when libevent cannot make one.
 */
struct event_base *conn_base_new(void);
/*
 * Queue one Envelope; -1 when it packs over the frame limit (logged) or c is closing.
 * Into an empty output it is written in the loop's current pass.
 */
int conn_send(struct conn *c, const Iocurve__Envelope *env);
/*
 * conn_send, written at once rather than later in the pass, unless the socket holds
 * back what was queued before it: a frame whose stamps time it (a Pong's t3).
 */
int conn_send_now(struct conn *c, const Iocurve__Envelope *env);
/*
 * conn_send, and note when the frame leaves: conn_sent_ns() is 0 until the
 * transport has written its first byte, then the CLOCK_MONOTONIC time taken just
 * before the socket write that carried it (TLS; never later than the send). One
 * frame at a time: a second call forgets the first.
 */
int conn_send_timed(struct conn *c, const Iocurve__Envelope *env);
uint64_t conn_sent_ns(const struct conn *c);
/*
 * When the bytes of the frame being handed out (on_message) had arrived, CLOCK_MONOTONIC:
 * TLS takes the kernel's stamp of the last packet the read that took them took, so
 * never earlier than the frame's arrival, and without the loop's delay in reading it;
 * where the kernel gave no stamp (and over Unix sockets) the read's own time.
 */
uint64_t conn_heard_ns(const struct conn *c);
/* Bytes queued for the peer and not yet written: a peer that stops reading shows here. */
size_t conn_pending(const struct conn *c);
/*
 * conn_pending plus what the kernel holds for the peer, sent or not, until it
 * acknowledges it (SIOCOUTQ): a peer that stops reading shows here even while
 * the kernel's buffers still take our writes.
 */
size_t conn_backlog(const struct conn *c);
/*
 * Close cleanly: flush what is queued, end the transport (TLS close_notify), free.
 * No on_close follows. Safe to call from inside a callback of this conn.
 */
void conn_close(struct conn *c);
/*
 * Free now, dropping what is queued; no callback follows (on_free neither). From
 * inside a callback of c, the free waits until that callback returns.
 */
void conn_abort(struct conn *c);

/*
 * Read nothing more from the peer, and let the socket's receive buffer fill:
 * a peer that stops reading, for tests of the other side's output cap. Its idle
 * timeout ends with it: it no longer hears the peer.
 */
void conn_stop_reading(struct conn *c);

/* Seconds without any frame from the peer before on_close ("peer silent"); 0: none. */
void conn_set_idle_timeout(struct conn *c, unsigned seconds);
/* The same in milliseconds: heartbeat interval x misses. */
void conn_set_idle_timeout_ms(struct conn *c, unsigned ms);
/*
 * Close with on_close(reason) unless cleared (seconds 0) within seconds from now;
 * traffic does not restart it. A TLS connection starts with a handshake deadline
 * that ends once the handshake is done; setting another replaces it.
 */
void conn_set_deadline(struct conn *c, unsigned seconds, const char *reason);
/* Frames over max bytes, either way, are refused (default FRAME_MAX_DEFAULT). */
void conn_set_max_frame(struct conn *c, size_t max);
/*
 * A frame may unpack to times x its length plus FRAME_UNPACK_SLACK (frame.h); 1, the
 * default, for peers nobody trusts with memory.
 */
void conn_set_unpack_times(struct conn *c, unsigned times);
/* TLS: the CN of the peer's verified certificate ("" before on_connected, or Unix). */
const char *conn_peer_name(const struct conn *c);
/* The serial of the peer's certificate, upper-case hex ("" over a Unix socket). */
const char *conn_peer_serial(const struct conn *c);

/* What ended a connection, as far as the transport can tell (read it in on_close). */
enum conn_failure {
	CONN_FAILURE_OTHER,
	CONN_FAILURE_REFUSED,     /* nothing listens at the address (ECONNREFUSED) */
	CONN_FAILURE_UNREACHABLE, /* no route, or no answer to the connect */
	CONN_FAILURE_PEER_CERT,   /* we rejected the peer's certificate (not from our CA) */
	CONN_FAILURE_OUR_CERT,    /* the peer rejected ours (an alert: unknown CA, bad, revoked) */
	CONN_FAILURE_CLOSED,      /* the peer closed or reset the connection, without a word */
};
enum conn_failure conn_failure(const struct conn *c);

#endif
