/* SPDX-License-Identifier: MIT */
/* Clock sync: offsets from four timestamps, and the smallest round trip wins. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "clocksync.h"

/* An agent whose clock reads `offset` ahead, legs of `up` and `down` ns, `busy` ns inside. */
static void sample(struct clocksync *cs, uint64_t t1, int64_t offset, uint64_t up, uint64_t down,
                   uint64_t busy)
{
	uint64_t t2 = (uint64_t)((int64_t)(t1 + up) + offset);
	uint64_t t3 = t2 + busy;
	uint64_t t4 = t1 + up + busy + down;

	clocksync_add(cs, t1, t2, t3, t4);
}

static void test_symmetric_legs_are_exact(void **state)
{
	struct clocksync cs = {0};

	sample(&cs, 1000000, 5000000000ll, 40000, 40000, 7000);
	assert_int_equal(cs.samples, 1);
	assert_int_equal(cs.offset_ns, 5000000000ll);
	assert_int_equal(cs.rtt_ns, 80000);
}

static void test_agent_behind_and_wrapping(void **state)
{
	struct clocksync cs = {0};

	/* The agent's clock reads far less than the coordinator's: the offset is negative. */
	sample(&cs, 9000000000000ull, -8999999000000ll, 10000, 10000, 0);
	assert_int_equal(cs.offset_ns, -8999999000000ll);
	assert_int_equal(cs.rtt_ns, 20000);
}

static void test_smallest_round_trip_wins(void **state)
{
	struct clocksync cs = {0};

	/* Asymmetric, slow legs skew the offset by half the difference... */
	sample(&cs, 0, 1000000, 900000, 100000, 0);
	assert_int_equal(cs.offset_ns, 1000000 + 400000);
	/* ...a quick, symmetric sample replaces it; a slower one later does not. */
	sample(&cs, 2000000, 1000000, 20000, 20000, 0);
	assert_int_equal(cs.offset_ns, 1000000);
	assert_int_equal(cs.rtt_ns, 40000);
	sample(&cs, 4000000, 1000000, 300000, 10000, 0);
	assert_int_equal(cs.offset_ns, 1000000);
	assert_int_equal(cs.rtt_ns, 40000);
	assert_int_equal(cs.samples, 3);
}

static void test_agent_time_inside_round_trip_excluded(void **state)
{
	struct clocksync cs = {0};

	/* 5 ms spent in the agent between receive and send is not network time. */
	sample(&cs, 0, 0, 30000, 30000, 5000000);
	assert_int_equal(cs.rtt_ns, 60000);
	assert_int_equal(cs.offset_ns, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_symmetric_legs_are_exact),
	    cmocka_unit_test(test_agent_behind_and_wrapping),
	    cmocka_unit_test(test_smallest_round_trip_wins),
	    cmocka_unit_test(test_agent_time_inside_round_trip_excluded),
	};

	return cmocka_run_group_tests_name("clocksync", tests, NULL, NULL);
}
