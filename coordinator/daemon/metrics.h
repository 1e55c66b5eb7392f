/* SPDX-License-Identifier: MIT */
/* /metrics: the daemon's state in Prometheus text format, over libevent's evhttp. */
#ifndef IOCURVE_METRICS_H
#define IOCURVE_METRICS_H

#include <stdint.h>

#include <event2/event.h>

#include "daemon.h"
#include "error.h"
#include "server.h"

struct metrics;

/* Serve GET /metrics on HOST:PORT. */
struct metrics *metrics_new(struct event_base *base, const char *listen, struct server *srv,
                            struct daemon *d, struct error *err);
/* A daemon_observer: feed it every campaign event. */
void metrics_event(void *arg, uint32_t id, const struct event *e);
void metrics_free(struct metrics *m);

#endif
