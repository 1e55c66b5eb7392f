/* SPDX-License-Identifier: MIT */
/* Clock sync: offsets from four timestamps, the min-RTT filter, a round's end, drift, refused
 * samples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clocksync.h"

/* An agent whose clock reads `offset` ahead, legs of `up` and `down` ns, `busy` ns inside. */
static enum clocksync_verdict sample(struct clocksync *cs, uint64_t t1, int64_t offset, uint64_t up,
                                     uint64_t down, uint64_t busy)
{
	uint64_t t2 = (uint64_t)((int64_t)(t1 + up) + offset);
	uint64_t t3 = t2 + busy;
	uint64_t t4 = t1 + up + busy + down;

	return clocksync_add(cs, t1, t2, t3, t4, NULL);
}

static void test_symmetric_legs_are_exact(void **state)
{
	struct clocksync cs = {0};

	assert_int_equal(sample(&cs, 1000000, 5000000000ll, 40000, 40000, 7000), CLOCKSYNC_BEST);
	assert_true(clocksync_round_end(&cs));
	assert_int_equal(cs.samples, 1);
	assert_int_equal(clocksync_offset_at(&cs, 1000000), 5000000000ll);
	assert_int_equal(cs.rtt_ns, 80000);
}

static void test_agent_behind_and_wrapping(void **state)
{
	struct clocksync cs = {0};

	/* The agent's clock reads far less than the coordinator's: the offset is negative. */
	sample(&cs, 9000000000000ull, -8999999000000ll, 10000, 10000, 0);
	clocksync_round_end(&cs);
	assert_int_equal(cs.offset_ns, -8999999000000ll);
	assert_int_equal(cs.rtt_ns, 20000);
}

static void test_smallest_round_trip_wins(void **state)
{
	struct clocksync cs = {0};

	/* Asymmetric, slow legs skew the offset by half the difference... */
	assert_int_equal(sample(&cs, 0, 1000000, 900000, 100000, 0), CLOCKSYNC_BEST);
	/* ...a quick, symmetric sample replaces it; a slower one later does not. */
	assert_int_equal(sample(&cs, 2000000, 1000000, 20000, 20000, 0), CLOCKSYNC_BEST);
	assert_int_equal(sample(&cs, 4000000, 1000000, 300000, 10000, 0), CLOCKSYNC_KEPT);
	clocksync_round_end(&cs);
	assert_int_equal(clocksync_offset_at(&cs, 2020000), 1000000);
	assert_int_equal(cs.rtt_ns, 40000);
	assert_int_equal(cs.samples, 3);
	/* The uncertainty is half the round trip at the sample, plus the drift prior later. */
	assert_int_equal(clocksync_uncertainty_at(&cs, cs.t_ref), 20000);
	assert_int_equal(clocksync_uncertainty_at(&cs, cs.t_ref + 1000000000ull), 20000 + 100000);
}

static void test_agent_time_inside_round_trip_excluded(void **state)
{
	struct clocksync cs = {0};

	/* 5 ms spent in the agent between receive and send is not network time. */
	sample(&cs, 0, 0, 30000, 30000, 5000000);
	clocksync_round_end(&cs);
	assert_int_equal(cs.rtt_ns, 60000);
	assert_int_equal(cs.offset_ns, 0);
}

/* The agent's clock: `offset` ahead at coordinator time 0, running `ppm` fast. */
static int64_t skewed(int64_t offset, double ppm, uint64_t t)
{
	return offset + (int64_t)((double)t * ppm * 1e-6);
}

/*
 * Rounds of 8 pings with jittered legs (20..220 us each way), every `every_s`
 * seconds: the line through the rounds' quickest samples finds the drift and
 * predicts the offset 30 s past the last round.
 */
static void run_drift(double ppm, int64_t offset, unsigned rounds, unsigned every_s,
                      struct clocksync *cs)
{
	uint64_t t = 5000000000ull;

	srandom(7);
	for (unsigned r = 0; r < rounds; r++, t += every_s * 1000000000ull) {
		for (unsigned k = 0; k < 8; k++) {
			uint64_t t1 = t + k * 1000000ull;
			uint64_t up = 20000 + (uint64_t)(random() % 200000);
			uint64_t down = 20000 + (uint64_t)(random() % 200000);
			uint64_t t2 = t1 + up + (uint64_t)skewed(offset, ppm, t1 + up);
			uint64_t t3 = t2 + 5000;
			uint64_t t4 = t1 + up + 5000 + down;

			assert_int_not_equal(clocksync_add(cs, t1, t2, t3, t4, NULL),
			                     CLOCKSYNC_REJECTED);
		}
		assert_true(clocksync_round_end(cs));
	}
}

static void test_drift_from_rounds(void **state)
{
	struct clocksync cs = {0};
	const int64_t offset = -4123456789ll; /* t2 stays positive, as real clocks do */
	uint64_t later;

	run_drift(100.0, offset, 6, 30, &cs);
	assert_int_equal(cs.rounds, 6);
	assert_true(cs.drift_ppm > 99.0 && cs.drift_ppm < 101.0);
	later = cs.t_ref + 30000000000ull;
	/* 100 ppm over 2.5 min is 15 ms; the line is within 100 us of the truth 30 s on. */
	assert_true(llabs(clocksync_offset_at(&cs, later) - skewed(offset, 100.0, later)) < 100000);
	assert_true(clocksync_uncertainty_at(&cs, later) >= cs.rtt_ns / 2);
	/* and the uncertainty covers the actual error */
	assert_true(
	    (uint64_t)llabs(clocksync_offset_at(&cs, later) - skewed(offset, 100.0, later)) <=
	    clocksync_uncertainty_at(&cs, later));
}

static void test_negative_drift_and_window(void **state)
{
	struct clocksync cs = {0};

	/* More rounds than the window holds: the oldest leave, the estimate stays. */
	run_drift(-40.0, 7000000, CLOCKSYNC_ROUNDS + 5, 2, &cs);
	assert_int_equal(cs.nwindow, CLOCKSYNC_ROUNDS);
	assert_true(cs.drift_ppm > -50.0 && cs.drift_ppm < -30.0);
	/* The uncertainty bounds the error, at the window and a minute past it. */
	for (uint64_t t = cs.window[0].t; t < cs.t_ref + 60000000000ull; t += 1000000000ull)
		assert_true(
		    (uint64_t)llabs(clocksync_offset_at(&cs, t) - skewed(7000000, -40.0, t)) <=
		    clocksync_uncertainty_at(&cs, t));
	/* and grows with the distance from the points: the drift's error */
	assert_true(clocksync_uncertainty_at(&cs, cs.t_ref + 60000000000ull) >
	            clocksync_uncertainty_at(&cs, cs.t_ref));
}

static void test_congested_round_left_out(void **state)
{
	struct clocksync cs = {0};

	/* Three quick rounds on a steady clock, then one whose best is slow and lopsided. */
	for (uint64_t r = 0; r < 3; r++) {
		sample(&cs, r * 1000000000ull, 500000, 30000, 30000, 0);
		clocksync_round_end(&cs);
	}
	sample(&cs, 3000000000ull, 500000, 2000000, 100000, 0);
	clocksync_round_end(&cs);
	assert_int_equal(cs.fit_points, 3);
	assert_int_equal(clocksync_offset_at(&cs, 4000000000ull), 500000);
	assert_true(cs.drift_ppm == 0.0);
}

/*
 * A round may end at its first sample as quick as the window's quickest, give or take
 * the slack; never in the first round, which has nothing to compare with; and not on
 * a slow sample, which more pings may beat.
 */
static void test_round_settles_on_a_quick_sample(void **state)
{
	struct clocksync cs = {0};

	assert_false(clocksync_round_settled(&cs));
	sample(&cs, 0, 500000, 30000, 30000, 0);
	assert_false(clocksync_round_settled(&cs)); /* the first round: no window yet */
	clocksync_round_end(&cs);
	assert_false(clocksync_round_settled(&cs)); /* a round with no sample yet */
	/* 60 us is the window's quickest: a sample of 60 + 100 us settles, one over not. */
	sample(&cs, 1000000000ull, 500000, 80001, 80000, 0);
	assert_false(clocksync_round_settled(&cs));
	sample(&cs, 1100000000ull, 500000, 2000000, 100000, 0);
	assert_false(clocksync_round_settled(&cs)); /* a slower one does not make it */
	sample(&cs, 1200000000ull, 500000, 80000, 80000, 0);
	assert_true(clocksync_round_settled(&cs));
	clocksync_round_end(&cs);
	assert_int_equal(cs.rounds, 2);
	assert_int_equal(cs.window[1].rtt_ns, 160000);
	/* Time spent inside the agent is not the round trip's. */
	sample(&cs, 2000000000ull, 500000, 20000, 20000, 5000000);
	assert_true(clocksync_round_settled(&cs));
}

/*
 * A slow, jittery link read over a short time: legs of 2.5 ms plus up to 1 ms each
 * (as netns-fleet's relay), rounds 1, 2 and 4 s apart as after joining, a clock that
 * does not drift. The few seconds between the rounds cannot tell a drift from the
 * legs' jitter; a line fitted through them anyway read -224 ppm and put one agent's
 * step 0.8 ms away from another's two seconds later. The drift believed is what the
 * span supports: a few ppm here, and the offset a step later within 300 us.
 */
static void test_short_span_does_not_invent_drift(void **state)
{
	const uint64_t at[] = {0, 1000000000ull, 3000000000ull, 7000000000ull};
	unsigned worst_seed = 0;
	double worst = 0;

	for (unsigned seed = 1; seed <= 40; seed++) {
		struct clocksync cs = {0};
		uint64_t later;
		int64_t err;

		srandom(seed);
		for (unsigned r = 0; r < 4; r++) {
			for (unsigned k = 0; k < 8; k++)
				sample(&cs, 5000000000ull + at[r] + k * 10000000ull, 0,
				       2500000 + (uint64_t)(random() % 1000000),
				       2500000 + (uint64_t)(random() % 1000000), 20000);
			clocksync_round_end(&cs);
		}
		later = cs.t_ref + 3000000000ull;
		err = clocksync_offset_at(&cs, later);
		if (fabs(cs.drift_ppm) > worst) {
			worst = fabs(cs.drift_ppm);
			worst_seed = seed;
		}
		assert_true(llabs(err) < 300000);
		/* the uncertainty still covers the error */
		assert_true((uint64_t)llabs(err) <= clocksync_uncertainty_at(&cs, later));
	}
	print_message("largest drift read over 40 links: %.1f ppm (seed %u)\n", worst, worst_seed);
	assert_true(worst < 20.0);
}

static void test_impossible_samples_refused(void **state)
{
	struct clocksync cs = {0};
	const char *why = NULL;
	uint64_t t2 = 1ull << 62;

	sample(&cs, 1000000, 1000, 10000, 10000, 0);
	clocksync_round_end(&cs);
	/* The lying Pong of the audit: t3 = t2 - 2^61 makes a 292-year round trip. */
	assert_int_equal(clocksync_add(&cs, 2000000, t2, t2 - (1ull << 61), 2030000, &why),
	                 CLOCKSYNC_REJECTED);
	assert_non_null(why);
	assert_non_null(strstr(why, "t3 < t2"));
	/* The same lie from a clock below 2^61: t3 wraps past 2^64, the round trip is < 0. */
	assert_int_equal(
	    clocksync_add(&cs, 2000000, 3000000, 3000000 - (1ull << 61), 2030000, &why),
	    CLOCKSYNC_REJECTED);
	assert_non_null(strstr(why, "zero or less"));
	/* A round trip over 1 s. */
	assert_int_equal(clocksync_add(&cs, 0, 100, 200, 1100000000ull, &why), CLOCKSYNC_REJECTED);
	assert_non_null(strstr(why, "over 1 s"));
	/* A zero round trip, and one with t4 before t1. */
	assert_int_equal(clocksync_add(&cs, 5000, 9000, 9000, 5000, &why), CLOCKSYNC_REJECTED);
	assert_int_equal(clocksync_add(&cs, 5000, 9000, 9000, 4000, &why), CLOCKSYNC_REJECTED);
	/* An offset beyond 64 bits: both legs near 2^64. */
	assert_int_equal(clocksync_add(&cs, 0, UINT64_MAX - 10, UINT64_MAX - 5, 1000, &why),
	                 CLOCKSYNC_REJECTED);
	assert_non_null(strstr(why, "64 bits"));
	assert_int_equal(cs.rejected, 6);
	assert_int_equal(cs.samples, 1);
	/* The round with only refused samples changes nothing. */
	assert_false(clocksync_round_end(&cs));
	assert_int_equal(cs.rounds, 1);
	assert_int_equal(clocksync_offset_at(&cs, 1000000), 1000);
	assert_int_equal(cs.rtt_ns, 20000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_symmetric_legs_are_exact),
	    cmocka_unit_test(test_agent_behind_and_wrapping),
	    cmocka_unit_test(test_smallest_round_trip_wins),
	    cmocka_unit_test(test_agent_time_inside_round_trip_excluded),
	    cmocka_unit_test(test_drift_from_rounds),
	    cmocka_unit_test(test_negative_drift_and_window),
	    cmocka_unit_test(test_congested_round_left_out),
	    cmocka_unit_test(test_round_settles_on_a_quick_sample),
	    cmocka_unit_test(test_short_span_does_not_invent_drift),
	    cmocka_unit_test(test_impossible_samples_refused),
	};

	return cmocka_run_group_tests_name("clocksync", tests, NULL, NULL);
}
