/* SPDX-License-Identifier: MIT */
/* The control socket: a Unix socket (0600) between the iocurve CLI and the daemon, framed
 * Envelopes. */
#ifndef IOCURVE_CONTROL_H
#define IOCURVE_CONTROL_H

#include <stddef.h>

#include <event2/event.h>

#include "error.h"
#include "iocurve.pb-c.h"

struct control;      /* a listening socket */
struct control_conn; /* one client connection */

struct control_cbs {
	/* env is freed when this returns. */
	void (*on_message)(struct control_conn *c, Iocurve__Envelope *env, void *arg);
	/* The last call for c: it is freed after this returns. */
	void (*on_close)(struct control_conn *c, void *arg);
};

/*
 * Where the CLI and the daemon meet when no --control/--coordinator is given:
 * $XDG_RUNTIME_DIR/iocurve.sock, else /run/iocurve/iocurve.sock.
 */
const char *control_default_path(char *buf, size_t len);

/* Listen on path, mode 0600 (a stale socket nobody answers on is replaced). */
struct control *control_listen(struct event_base *base, const char *path,
                               const struct control_cbs *cbs, void *arg, struct error *err);
/* Stop listening, close every connection, remove the socket file. */
void control_free(struct control *ctl);
struct control_conn *control_connect(struct event_base *base, const char *path,
                                     const struct control_cbs *cbs, void *arg, struct error *err);
int control_send(struct control_conn *c, const Iocurve__Envelope *env);
/* Bytes queued for the peer: a watcher that stops reading shows here. */
size_t control_pending(const struct control_conn *c);
/* Close after what is queued has gone out. No callback follows. */
void control_close(struct control_conn *c);
void control_set_data(struct control_conn *c, void *data);
void *control_data(const struct control_conn *c);

#endif
