/* SPDX-License-Identifier: MIT */
/* Clock sync with an agent, NTP style: offset, drift and their uncertainty from timestamps. */
#ifndef IOCURVE_CLOCKSYNC_H
#define IOCURVE_CLOCKSYNC_H

#include <stdbool.h>
#include <stdint.h>

/*
 * t1: coordinator sends Ping; t2: agent receives it; t3: agent sends Pong;
 * t4: coordinator receives it. t1, t4 on the coordinator's clock, t2, t3 on the
 * agent's. A sample's offset (agent minus coordinator) is exact when the two legs
 * take equal time; its error is at most half the round trip.
 *
 * Samples come in rounds (a burst of pings, repeated while the session lives).
 * The min-RTT filter keeps each round's quickest sample; the last CLOCKSYNC_ROUNDS
 * of those form the window. The model is a straight line through the window's
 * points, offset(t) = offset_ns + drift * (t - t_ref), its drift least squares
 * held towards zero as much as a short span of jittery points needs (ridge,
 * with CLOCKSYNC_DRIFT_PRIOR as the prior),
 * leaving out points whose round trip is over twice the window's smallest (plus
 * CLOCKSYNC_RTT_SLACK_NS): a congested round would pull the line. One point gives
 * the offset and no drift.
 */
#define CLOCKSYNC_ROUNDS       8
#define CLOCKSYNC_RTT_MAX_NS   1000000000ull /* a sample with a longer round trip is refused */
#define CLOCKSYNC_RTT_SLACK_NS 100000ull
#define CLOCKSYNC_DRIFT_MAX    500.0 /* ppm; a fit beyond it is clamped (no real clock drifts so) */
/* Before the drift is measured, it is assumed to be up to this (ppm) in the uncertainty. */
#define CLOCKSYNC_DRIFT_PRIOR 100.0

struct clocksync_point {
	uint64_t t;        /* coordinator clock, middle of the round trip */
	int64_t offset_ns; /* agent minus coordinator */
	uint64_t rtt_ns;
};

struct clocksync {
	unsigned samples;  /* accepted */
	unsigned rejected; /* refused as impossible */
	unsigned rounds;   /* rounds closed */
	bool have_best;
	struct clocksync_point best;                     /* quickest of the round in progress */
	struct clocksync_point window[CLOCKSYNC_ROUNDS]; /* one per round, oldest first */
	unsigned nwindow;
	/* The model, valid once rounds > 0. */
	uint64_t t_ref;
	int64_t offset_ns; /* at t_ref */
	double drift_ppm;
	uint64_t rtt_ns;     /* smallest round trip in the window */
	unsigned fit_points; /* points the line went through */
};

enum clocksync_verdict {
	CLOCKSYNC_REJECTED = -1, /* impossible: see why */
	CLOCKSYNC_KEPT = 0,      /* accepted, slower than the round's best */
	CLOCKSYNC_BEST = 1,      /* accepted, the round's best so far */
};

/*
 * Add one sample to the round in progress. Refused (and not counted in any
 * offset): t3 < t2, t4 < t1, a round trip <= 0 or over CLOCKSYNC_RTT_MAX_NS, an
 * offset that does not fit in 64 bits. *why (may be NULL) says which.
 */
enum clocksync_verdict clocksync_add(struct clocksync *cs, uint64_t t1, uint64_t t2, uint64_t t3,
                                     uint64_t t4, const char **why);
/* Close the round: its best sample joins the window and the line is fitted again.
 * false when the round had no accepted sample (the model is unchanged). */
bool clocksync_round_end(struct clocksync *cs);
/*
 * The round in progress already holds a sample as quick as the window's quickest, give
 * or take CLOCKSYNC_RTT_SLACK_NS: more pings could take at most half that off the
 * uncertainty, so the round may end. Never in the first round (no window to compare).
 */
bool clocksync_round_settled(const struct clocksync *cs);
/* Agent clock minus coordinator clock at coordinator time t (rounds > 0). */
int64_t clocksync_offset_at(const struct clocksync *cs, uint64_t t);
/*
 * How far the true offset at t may be from clocksync_offset_at, at worst: each
 * point of the line is within half its round trip of the truth; the bound carries
 * those through the least-squares weights to t (so it grows away from the points,
 * which is the drift's error); with a single point, half its round trip plus
 * CLOCKSYNC_DRIFT_PRIOR times the time since.
 */
uint64_t clocksync_uncertainty_at(const struct clocksync *cs, uint64_t t);

#endif
