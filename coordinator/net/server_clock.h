/* SPDX-License-Identifier: MIT */
/*
 * One agent session's clock rounds: when to ping, each Pong a sample of the session's
 * clock model (clocksync.h), and what a round's end gave. The session owns the state and
 * sends nothing else through it; the agent port (server.c) acts on the outcomes.
 *
 * Rounds of up to SERVER_CLOCK_SAMPLES pings, one after the other's Pong, a round
 * ending early once it has a sample as quick as the window's (clocksync_round_settled):
 * the first at Hello,
 * then 1 s later and at doubling gaps up to SERVER_CLOCK_RESYNC_S, for as long as the
 * session lives (clocksync.h: min-RTT filter per round, drift over rounds). Tests only
 * may set the period with IOCURVE_TEST_CLOCK_RESYNC_S (whole seconds). A round still
 * waiting for a Pong after SERVER_CLOCK_ROUND_NS is closed.
 */
#ifndef IOCURVE_SERVER_CLOCK_H
#define IOCURVE_SERVER_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "clocksync.h"
#include "iocurve.pb-c.h"

#define SERVER_CLOCK_SAMPLES  8
#define SERVER_CLOCK_RESYNC_S 30
#define SERVER_CLOCK_ROUND_NS (3 * NSEC_PER_SEC)

struct conn;

struct server_clock {
	struct clocksync model; /* offset: agent clock minus coordinator clock */
	bool synced;            /* a round has ended with a usable sample */
	uint64_t ping_seq;      /* of the ping in flight */
	unsigned round_left;    /* pings still to send in the round in progress; 0: none */
	uint64_t round_start_ns;
	uint64_t next_sync_ns; /* the next round starts at this time */
	uint64_t sync_every_ns;
};

/* What a call did to the model, for the caller to act on. */
enum server_clock_outcome {
	SERVER_CLOCK_GOING,    /* a round goes on, or none was due */
	SERVER_CLOCK_FIRST,    /* the first round ended with a usable sample: synced */
	SERVER_CLOCK_REFITTED, /* a later round ended with one: the model moved */
	SERVER_CLOCK_NO_SAMPLE /* a round ended without a usable sample */
};

/* Start a round now on conn (the welcome's). */
void server_clock_start(struct server_clock *sc, struct conn *conn, uint64_t now);
/*
 * A Pong received at t4 on conn: one sample (t1 our own stamp of the Ping's send), an
 * impossible one refused and logged with name; the next ping, or the round's end.
 */
enum server_clock_outcome server_clock_pong(struct server_clock *sc, struct conn *conn,
                                            const char *name, const Iocurve__Pong *p, uint64_t t4);
/* A heartbeat tick: the next round when due; one whose Pong never came is closed. */
enum server_clock_outcome server_clock_tick(struct server_clock *sc, struct conn *conn,
                                            const char *name, uint64_t now);

#endif
