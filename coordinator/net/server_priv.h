/* SPDX-License-Identifier: MIT */
/*
 * The agent port's own structures, shared by its files only: the listener and its
 * sessions (server.c), what a session answers about itself (session.c).
 */
#ifndef IOCURVE_SERVER_PRIV_H
#define IOCURVE_SERVER_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <event2/listener.h>

#include "server_clock.h"
#include "label.h"
#include "server.h"
#include "strindex.h"

/* One connected agent. */
struct session {
	struct server *srv;
	struct conn *conn;
	char name[128];  /* the CN of its certificate */
	char serial[80]; /* and its serial, upper-case hex */
	char host[256];
	char addr[64];
	uint32_t cpus;
	char **allowed;
	size_t nallowed;
	char **mounts;    /* per allowed path: "SOURCE FSTYPE OPTIONS" ("" unknown) */
	char kernel[160]; /* uname -sr of its host */
	char version[32];
	uint64_t caps;        /* the capabilities both sides have (caps.h) */
	struct label *labels; /* from Hello: --label k=v on the agent */
	size_t nlabels;
	bool welcomed;
	struct server_clock clock; /* its clock rounds and model */
	void *owner;               /* the campaign using this agent; NULL when idle */
	uint32_t owner_slot;       /* the owner's index for it (session_set_slot) */
	size_t agent;              /* its registry entry, once welcomed (the registry only grows) */
	uint64_t noise;            /* log lines it caused that session_noise counted */
	unsigned backlog_ticks;    /* heartbeat ticks since the kernel's queue was asked */
	TAILQ_ENTRY(session) entry;
};
TAILQ_HEAD(session_list, session);

struct server {
	struct event_base *base;
	SSL_CTX *ctx;
	struct evconnlistener *listener;
	struct event *heartbeat_ev;
	struct session_list sessions;
	struct server_agent *agents;
	size_t nagents;
	struct strindex by_name; /* agents[] by name */
	const struct server_cbs *cbs;
	void *arg;
	char address[64];
	size_t max_frame;
	struct server_liveness live;
	struct listenpause *pause; /* out of fds: stop accepting a while */
	struct revoke *revoked;    /* DIR/revoked: names and serials refused */
	uint64_t pending_refused;
	uint64_t refused_window_ns; /* rate limit of "refused" lines */
	uint64_t refused_logged, refused_unlogged;
	size_t backlog_max; /* SERVER_SESSION_BACKLOG */
	/*
	 * The loop's own stalls (a frozen or starved daemon): a tick every
	 * SERVER_STALL_TICK_MS notes when it ran; silence that is ours is no agent's.
	 */
	struct event *stall_ev;
	uint64_t tick_ns;        /* the tick last ran */
	uint64_t grace_until_ns; /* after a stall: no agent is silent before this */
	uint64_t stall_ns;       /* how long the last one was */
	/* Frames the agent port read and queued, by the Envelope body's field number. */
	uint64_t frames[2][SERVER_FRAME_KINDS];
};

/* A welcomed session's registry entry: by index, not by name (every frame asks). */
static inline struct server_agent *server_agent_at(const struct session *s)
{
	return &s->srv->agents[s->agent];
}

#endif
