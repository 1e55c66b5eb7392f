/* SPDX-License-Identifier: MIT */
/*
 * The control socket between the iocurve CLI and the daemon: a Unix socket (0600) that
 * carries framed Envelopes over the connection core (conn.h, Unix transport).
 */
#ifndef IOCURVE_CONTROL_H
#define IOCURVE_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>

#include "conn.h"
#include "error.h"

struct control; /* a listening socket */

/* How long the CLI waits for the daemon to accept a connection, and to answer. */
#define CONTROL_TIMEOUT_SECONDS 10

/*
 * Where the CLI and the daemon meet when no --control/--coordinator is given:
 * $XDG_RUNTIME_DIR/iocurve.sock, else /run/iocurve/iocurve.sock.
 */
const char *control_default_path(char *buf, size_t len);

/*
 * Listen on path, mode 0600 (a stale socket nobody answers on is replaced). Every
 * accepted connection is a conn with cbs and arg; a peer of another user (root
 * aside) is turned away.
 */
struct control *control_listen(struct event_base *base, const char *path,
                               const struct conn_cbs *cbs, void *arg, struct error *err);
/* Stop listening, drop every connection (no callbacks), remove the socket file. */
void control_free(struct control *ctl);
/*
 * Connect to the daemon at path, waiting at most timeout_s seconds for it to accept
 * (0: no limit). err says when nobody listens or the daemon did not accept in time.
 */
struct conn *control_connect(struct event_base *base, const char *path, unsigned timeout_s,
                             const struct conn_cbs *cbs, void *arg, struct error *err);

/*
 * A control request's parts, found through the protocol's descriptors so that a
 * verb's request is its message type alone: the CLI's ID verbs (cli/cmd.c) and the
 * daemon's table (daemon/verbs.c) share the rule that a request names a campaign
 * by its field `id`.
 */
/* Make m env's body, in the case whose message type is m's: -1 when there is none. */
int control_request_set(Iocurve__Envelope *env, ProtobufCMessage *m);
/* The campaign id env's request names (its uint32 field `id`), or NULL: it names none. */
uint32_t *control_request_id(const Iocurve__Envelope *env);

#endif
