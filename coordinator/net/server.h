/* SPDX-License-Identifier: MIT */
/* The coordinator's agent port: TLS listener, sessions, Hello, clock sync, heartbeats. */
#ifndef IOCURVE_SERVER_H
#define IOCURVE_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <event2/event.h>
#include <openssl/ssl.h>

#include "clocksync.h"
#include "error.h"
#include "iocurve.pb-c.h"
#include "label.h"

struct server;
struct conn;

/* Clock sync: pings per agent; the sample with the smallest round trip wins. */
#define SERVER_CLOCK_SAMPLES 8

/* One connected agent. */
struct session {
	struct server *srv;
	struct conn *conn;
	char name[128]; /* the CN of its certificate */
	char host[256];
	char addr[64];
	uint32_t cpus;
	char **allowed;
	size_t nallowed;
	struct label *labels; /* from Hello: --label k=v on the agent */
	size_t nlabels;
	bool welcomed;
	bool synced;
	struct clocksync clock; /* offset: agent clock minus coordinator clock */
	void *owner;            /* the campaign using this agent; NULL when idle */
	TAILQ_ENTRY(session) entry;
};
TAILQ_HEAD(session_list, session);

/* Every agent that ever joined, kept after it is lost: what `iocurve agents` lists. */
struct server_agent {
	char name[128];
	char host[256];
	char version[32];
	struct label *labels; /* its --label k=v, kept after it is lost */
	size_t nlabels;
	struct session *s;     /* NULL once lost */
	uint64_t last_seen_ns; /* CLOCK_MONOTONIC of its last frame */
	double rtt_ms;
	double offset_ms;
};

struct server_cbs {
	/* Welcomed and clock-synced: usable for a campaign. */
	void (*on_agent_ready)(struct session *s, void *arg);
	/* Any message past the session layer (Ready, IntervalReport, StepDone, Error...). */
	void (*on_agent_message)(struct session *s, const Iocurve__Envelope *env, void *arg);
	/* The session ends after this returns; s is freed. */
	void (*on_agent_lost)(struct session *s, const char *reason, void *arg);
};

/* Listen on HOST:PORT ("127.0.0.1:0" picks a free port). */
struct server *server_new(struct event_base *base, SSL_CTX *ctx, const char *listen,
                          struct error *err);
void server_set_cbs(struct server *srv, const struct server_cbs *cbs, void *arg);
/* Frames from agents above this many bytes close their connection (default 16 MiB). */
void server_set_max_frame(struct server *srv, size_t max);
/* "127.0.0.1:41234": where agents should dial. */
const char *server_address(const struct server *srv);
struct session_list *server_sessions(struct server *srv);
/* The registry: agents[0..n) (valid until the next event loop turn). */
const struct server_agent *server_agents(const struct server *srv, size_t *n);
int server_send(struct session *s, const Iocurve__Envelope *env);
/* Close every session cleanly (close_notify) and stop listening. */
void server_free(struct server *srv);

#endif
