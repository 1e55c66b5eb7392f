/* SPDX-License-Identifier: MIT */
/* The coordinator's agent port: TLS listener, sessions, Hello, clock sync, heartbeats. */
#ifndef IOCURVE_SERVER_H
#define IOCURVE_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include <event2/event.h>
#include <openssl/ssl.h>

#include "clock.h"
#include "clocksync.h"
#include "error.h"
#include "iocurve.pb-c.h"
#include "label.h"

struct server;
struct conn;

/* One connected agent: its session, seen through the functions below. */
struct session;

/* Every agent that ever joined, kept after it is lost: what `iocurve agents` lists. */
struct server_agent {
	char name[128];
	char host[256];
	char version[32];
	struct label *labels; /* its --label k=v, kept after it is lost */
	size_t nlabels;
	struct session *s;      /* NULL once lost */
	uint64_t last_seen_ns;  /* CLOCK_MONOTONIC of its last frame */
	double rtt_ms;          /* smallest round trip of the last clock window */
	double offset_ms;       /* at the last round */
	struct clocksync clock; /* as of the last round, kept after it is lost */
};

struct server_cbs {
	/* Welcomed and clock-synced: usable for a campaign. */
	void (*on_agent_ready)(struct session *s, void *arg);
	/* Any message past the session layer (Ready, IntervalReport, StepDone, Error...). */
	void (*on_agent_message)(struct session *s, const Iocurve__Envelope *env, void *arg);
	/* The session ends after this returns; s is freed. */
	void (*on_agent_lost)(struct session *s, const char *reason, void *arg);
};

/* Liveness, told to agents in Welcome: defaults, and what serve's options may set. */
#define SERVER_HEARTBEAT_MS 1000
#define SERVER_MISSES       3
#define SERVER_DEADMAN_MS   2000
struct server_liveness {
	uint64_t heartbeat_ms; /* both sides send a Heartbeat this often */
	uint32_t misses;       /* a peer silent for heartbeat_ms x misses is lost */
	uint64_t deadman_ms;   /* workers stop when their agent has not heard us this long */
};

/* Listen on HOST:PORT ("127.0.0.1:0" picks a free port). */
struct server *server_new(struct event_base *base, SSL_CTX *ctx, const char *listen,
                          struct error *err);
void server_set_cbs(struct server *srv, const struct server_cbs *cbs, void *arg);
/* For sessions that start from now on (server_new sets the defaults above). */
void server_set_liveness(struct server *srv, const struct server_liveness *live);
/* Frames from agents above this many bytes close their connection (FRAME_MAX_DEFAULT). */
void server_set_max_frame(struct server *srv, size_t max);
/* "127.0.0.1:41234": where agents should dial. */
/*
 * Read the revocation list at path (revoke.h; a missing file is an empty list) in
 * place of the one in force; agents connected with a revoked certificate are refused
 * (permanently) at once. Returns the number of entries, or -1 with err (the old list
 * stays).
 */
int server_load_revoked(struct server *srv, const char *path, struct error *err);
const char *server_address(const struct server *srv);
/* The connected agents, in the order they came: first, then next until NULL. */
struct session *server_first_session(struct server *srv);
struct session *session_next(const struct session *s);
/* The registry: agents[0..n) (valid until the next event loop turn). */
const struct server_agent *server_agents(const struct server *srv, size_t *n);
int server_send(struct session *s, const Iocurve__Envelope *env);
/*
 * Frames the agent port has read from agents (sent false) or queued for them (true)
 * since start, of the Envelope body with field number body_case (frame.h names it);
 * 0 past the last one counted (SERVER_FRAME_KINDS).
 */
uint64_t server_frames(const struct server *srv, bool sent, unsigned body_case);
/* Envelope body field numbers counted apart; a higher one counts under 0. */
#define SERVER_FRAME_KINDS 128

/* The CN of its certificate. */
const char *session_name(const struct session *s);
/*
 * A log line the agent's own messages caused (a second Hello, a stale report, an
 * unexpected message) is due: its count so far when that is 1, 10, 100, ... (log it,
 * with the count), else 0. A certified agent decides how often these come: 10 seconds
 * of repeated Hellos once wrote 160 MB of log.
 */
uint64_t session_noise(struct session *s);
/* What its Hello said: host name, kernel (uname -sr), iocurve version. */
const char *session_host(const struct session *s);
const char *session_kernel(const struct session *s);
const char *session_version(const struct session *s);
/* The capabilities (proto Capability bits) both it and this coordinator have. */
uint64_t session_caps(const struct session *s);
/* "SOURCE FSTYPE OPTIONS" of the allowed path holding path ("" when unknown). */
const char *session_mount_of(const struct session *s, const char *path);
/* Welcomed and clock-synced: usable for a campaign. */
bool session_ready(const struct session *s);
/* Its clock against the coordinator's (offset: agent clock minus coordinator clock). */
const struct clocksync *session_clock(const struct session *s);
/* The labels of its Hello (--label k=v on the agent). */
const struct label *session_labels(const struct session *s, size_t *n);
/* Take s for owner (a campaign): -1 when another owner holds it. */
int session_claim(struct session *s, void *owner);
/* Give s back if owner holds it. */
void session_release(struct session *s, const void *owner);
/* The owner's own index for s, kept for it: finding a session's slot is O(1). */
void session_set_slot(struct session *s, uint32_t slot);
uint32_t session_slot(const struct session *s);
/* Who holds s; NULL when idle. */
void *session_owner(const struct session *s);
/* Close every session cleanly (close_notify) and stop listening. */
void server_free(struct server *srv);

#endif
