/* SPDX-License-Identifier: MIT */
/*
 * The agent's session with the coordinator: dial, backoff, the TLS connection,
 * Hello and Welcome, refusals, heartbeats, clock pings, sending frames. It knows
 * nothing of workloads: what it hears goes to the callbacks it is given.
 */
#ifndef IOCURVE_LINK_H
#define IOCURVE_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <openssl/ssl.h>

#include "agent.h"
#include "iocurve.pb-c.h"

struct link;

/* How to reach the coordinator, from the command line. */
struct link_opts {
	char coordinator[256]; /* --coordinator HOST:PORT, as given */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	SSL_CTX *ssl_ctx;    /* the agent's certificate; the caller frees it after link_free */
	const char *tls_dir; /* for the advice when certificates fail */
	size_t max_frame;    /* --max-frame; 0: the default */
	/* Liveness given on the command line (0: the coordinator's, from Welcome). */
	uint64_t heartbeat_ms; /* send at least this often */
	uint32_t misses;       /* the coordinator is lost after this many silent intervals */
	uint64_t deadman_ms;   /* workers stop this long after the coordinator was heard */
};

/* What the link tells its owner; each is called with the arg given to link_new. */
struct link_cbs {
	/* A frame came from the coordinator at now_ns (before it is handled). */
	void (*on_heard)(void *arg, uint64_t now_ns);
	/*
	 * Welcome: the session is up; workers stop deadman_ms after the coordinator was
	 * heard; caps are the capabilities both sides have (caps.h).
	 */
	void (*on_welcome)(void *arg, uint64_t deadman_ms, uint64_t caps);
	/* A message that is not the session's own, once welcomed. */
	void (*on_message)(void *arg, const Iocurve__Envelope *env);
	/* The connection is gone (the link dials again unless it gives up or is stopped). */
	void (*on_lost)(void *arg);
	/* The link gives up for good: a permanent Refuse, or certificates no retry mends. */
	void (*on_give_up)(void *arg);
	/* Whether workers are running, as each heartbeat says. */
	bool (*busy)(void *arg);
};

/* A link for agent a (read, not copied: it must outlive the link); start it with link_start. */
struct link *link_new(const struct agent *a, const struct link_opts *opts,
                      const struct link_cbs *cbs, void *arg);
/* Dial the coordinator; the link reconnects with backoff until it is stopped or gives up. */
void link_start(struct link *l);
/* Close the connection (close_notify goes out on the loop) and dial no more. */
void link_stop(struct link *l);
/* Stop and free; NULL is allowed. */
void link_free(struct link *l);
/* Send to the coordinator if connected; dropped (with a debug log) otherwise. */
void link_send(struct link *l, const Iocurve__Envelope *env);

#endif
