/* SPDX-License-Identifier: MIT */
/* One agent-protocol connection: mutual TLS over libevent, framed Envelopes. */
#ifndef IOCURVE_CONN_H
#define IOCURVE_CONN_H

#include <stddef.h>

#include <event2/event.h>
#include <openssl/ssl.h>

#include "iocurve.pb-c.h"

struct conn;

/*
 * Callbacks run on the event loop. on_message's env is freed when it returns.
 * on_close is the last call for a connection (handshake failure, peer close,
 * bad frame, timeout): the conn is freed right after it returns. conn_close
 * from the owner's side makes no callback.
 */
struct conn_cbs {
	void (*on_connected)(struct conn *c, void *arg);
	void (*on_message)(struct conn *c, Iocurve__Envelope *env, void *arg);
	void (*on_close)(struct conn *c, const char *reason, void *arg);
};

/* Server side, for an accepted socket (the conn owns fd). */
struct conn *conn_accept(struct event_base *base, SSL_CTX *ctx, int fd, const char *peer_addr,
                         const struct conn_cbs *cbs, void *arg);
/* Client side: connects and handshakes; on_connected or on_close follows. */
struct conn *conn_connect(struct event_base *base, SSL_CTX *ctx, const struct sockaddr *sa,
                          int salen, const char *peer_addr, const struct conn_cbs *cbs, void *arg);

/* Queue one Envelope; -1 when it packs over the frame limit (logged). */
int conn_send(struct conn *c, const Iocurve__Envelope *env);
/*
 * Close cleanly: flush what is queued, send TLS close_notify, free. No
 * callback follows. Safe to call from inside a callback of this conn.
 */
void conn_close(struct conn *c);

/* Seconds without any frame from the peer before on_close ("peer silent"); 0: none. */
void conn_set_idle_timeout(struct conn *c, unsigned seconds);
void conn_set_max_frame(struct conn *c, size_t max);
/* The CN of the peer's verified certificate ("" before on_connected). */
const char *conn_peer_name(const struct conn *c);
/* "127.0.0.1:40312". */
const char *conn_peer_addr(const struct conn *c);

#endif
