/* SPDX-License-Identifier: MIT */
/* The coordinator daemon: campaigns submitted over the control socket, queued, run, watched. */
#ifndef IOCURVE_DAEMON_H
#define IOCURVE_DAEMON_H

#include <event2/event.h>

#include "error.h"
#include "events.h"
#include "server.h"

struct daemon;

/* Results of campaign N go to RESULTS_ROOT/<campaign>-<UTC time>/. */
struct daemon *daemon_new(struct event_base *base, struct server *srv, const char *results_root);
int daemon_listen(struct daemon *d, const char *control_path, struct error *err);
/* Every campaign's events as they happen, with the campaign's id (for /metrics). */
typedef void (*daemon_observer)(void *arg, uint32_t id, const struct event *e);
void daemon_observe(struct daemon *d, daemon_observer fn, void *arg);
/* Campaigns queued or running, for /metrics. */
unsigned daemon_active(const struct daemon *d);
/* SIGTERM: abort the running campaign (agents told, results flushed), drop the queue. */
void daemon_shutdown(struct daemon *d, const char *why);
/* True once nothing is running: the event loop may end. */
int daemon_idle(const struct daemon *d);
void daemon_free(struct daemon *d);

#endif
