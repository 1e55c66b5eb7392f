/* SPDX-License-Identifier: MIT */
/*
 * A listener for one-shot HTTP GETs from clients nobody vouches for (/metrics):
 * each connection has CONN seconds from accept for its whole request and as long
 * again for the answer to drain, however slowly its bytes come; the connections are
 * capped (HTTPGET_MAX_CONNS, or an eighth of the descriptor limit) and kept out of
 * the descriptor reserve (fdbudget.h); over the cap, the oldest connection of the
 * address holding the most goes. Every answer closes its connection.
 */
#ifndef IOCURVE_HTTPGET_H
#define IOCURVE_HTTPGET_H

#include <stdint.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "error.h"

#define HTTPGET_MAX_HEADERS 8192 /* request line and headers together */
#define HTTPGET_SECONDS     5    /* for the whole request; again for the answer */
#define HTTPGET_MAX_CONNS   64

struct httpget;

/* The answer to a GET of path (query cut off): fill body, return 200 or 404. */
typedef int (*httpget_cb)(const char *path, struct evbuffer *body, void *arg);

/* Listen on host:port; content_type is every 200 answer's. */
struct httpget *httpget_new(struct event_base *base, const char *host, uint16_t port,
                            const char *what, const char *content_type, httpget_cb cb, void *arg,
                            struct error *err);
/* Connections dropped to make room since start (tests, logs). */
unsigned long long httpget_dropped(const struct httpget *h);
void httpget_free(struct httpget *h);

#endif
