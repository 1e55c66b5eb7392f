/* SPDX-License-Identifier: MIT */
/* One agent session's clock rounds (server_clock.h). */
#include <stdlib.h>

#include "conn.h"
#include "log.h"
#include "server_clock.h"

/*
 * t1 is the coordinator's own stamp, taken as the Ping's first byte is written
 * (conn_send_timed), not the queueing time the Ping carries: the Pong's echo of
 * it is not used, so neither what is queued ahead nor the agent can move it.
 */
static void server_clock_ping(struct server_clock *sc, struct conn *conn)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Ping p = IOCURVE__PING__INIT;

	p.seq = ++sc->ping_seq;
	p.t1 = clock_now_ns();
	env.body_case = IOCURVE__ENVELOPE__BODY_PING;
	env.ping = &p;
	sc->round_left--;
	if (conn != NULL)
		conn_send_timed(conn, &env);
}

void server_clock_start(struct server_clock *sc, struct conn *conn, uint64_t now)
{
	sc->round_left = SERVER_CLOCK_SAMPLES;
	sc->round_start_ns = now;
	server_clock_ping(sc, conn);
}

/* How long between rounds: 1 s after joining, doubling up to the resync period. */
static uint64_t server_clock_period(void)
{
	const char *e = getenv("IOCURVE_TEST_CLOCK_RESYNC_S");

	/* Tests only: a shorter (or longer) period than SERVER_CLOCK_RESYNC_S. */
	if (e != NULL && atoi(e) > 0)
		return (uint64_t)atoi(e) * NSEC_PER_SEC;
	return SERVER_CLOCK_RESYNC_S * NSEC_PER_SEC;
}

/* The round is over: its quickest sample joins the window, the model is refitted. */
static enum server_clock_outcome server_clock_end(struct server_clock *sc, uint64_t now)
{
	uint64_t period = server_clock_period();
	bool first = !sc->synced;

	sc->round_start_ns = 0;
	sc->round_left = 0;
	sc->sync_every_ns = sc->sync_every_ns ? 2 * sc->sync_every_ns : NSEC_PER_SEC;
	if (sc->sync_every_ns > period)
		sc->sync_every_ns = period;
	sc->next_sync_ns = now + sc->sync_every_ns;
	if (!clocksync_round_end(&sc->model))
		return SERVER_CLOCK_NO_SAMPLE;
	sc->synced = true;
	return first ? SERVER_CLOCK_FIRST : SERVER_CLOCK_REFITTED;
}

enum server_clock_outcome server_clock_pong(struct server_clock *sc, struct conn *conn,
                                            const char *name, const Iocurve__Pong *p, uint64_t t4)
{
	uint64_t t1 = conn != NULL ? conn_sent_ns(conn) : 0;
	const char *why;

	if (sc->round_start_ns == 0 || p->seq != sc->ping_seq || t1 == 0)
		return SERVER_CLOCK_GOING; /* not the ping in flight (late, or a round given up) */
	if (clocksync_add(&sc->model, t1, p->t2, p->t3, t4, &why) == CLOCKSYNC_REJECTED)
		log_warn("agent %s: clock sample refused: %s (t1 %llu t2 %llu t3 %llu t4 %llu)",
		         name, why, (unsigned long long)t1, (unsigned long long)p->t2,
		         (unsigned long long)p->t3, (unsigned long long)t4);
	if (sc->round_left > 0 && !clocksync_round_settled(&sc->model)) {
		server_clock_ping(sc, conn); /* a new seq: a second Pong for this ping is stale */
		return SERVER_CLOCK_GOING;
	}
	return server_clock_end(sc, t4);
}

enum server_clock_outcome server_clock_tick(struct server_clock *sc, struct conn *conn,
                                            const char *name, uint64_t now)
{
	if (sc->round_start_ns != 0 && now - sc->round_start_ns > SERVER_CLOCK_ROUND_NS) {
		log_warn("agent %s: no Pong within %llu s: clock round closed", name,
		         (unsigned long long)(SERVER_CLOCK_ROUND_NS / NSEC_PER_SEC));
		return server_clock_end(sc, now);
	}
	if (sc->round_start_ns == 0 && sc->next_sync_ns != 0 && now >= sc->next_sync_ns)
		server_clock_start(sc, conn, now);
	return SERVER_CLOCK_GOING;
}
