/* SPDX-License-Identifier: MIT */
/* Unit tests for fixed work's completion-time figures (storm.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "storm.h"

#define assert_near(got, want)                                                                     \
	do {                                                                                       \
		double got_ = (got), want_ = (want);                                               \
		if (!(fabs(got_ - want_) <= 1e-9))                                                 \
			fail_msg("%s = %.17g, expected %.17g", #got, got_, want_);                 \
	} while (0)

/* Nearest rank: of 10 values the median is the 5th, p90 the 9th; unsorted input. */
static void test_stats_nearest_rank(void **state)
{
	double v[] = {10, 3, 7, 1, 9, 2, 8, 4, 6, 5};
	struct storm_stats st;

	(void)state;
	storm_stats_of(v, 10, &st);
	assert_int_equal(st.n, 10);
	assert_near(st.min_s, 1);
	assert_near(st.median_s, 5);
	assert_near(st.p90_s, 9);
	assert_near(st.max_s, 10);
}

/* One value is every figure; none leaves them 0. */
static void test_stats_small(void **state)
{
	double one[] = {2.5}, three[] = {3, 1, 2};
	struct storm_stats st;

	(void)state;
	storm_stats_of(one, 1, &st);
	assert_near(st.min_s, 2.5);
	assert_near(st.median_s, 2.5);
	assert_near(st.p90_s, 2.5);
	assert_near(st.max_s, 2.5);
	storm_stats_of(three, 3, &st);
	assert_near(st.median_s, 2);
	assert_near(st.p90_s, 3);
	storm_stats_of(NULL, 0, &st);
	assert_int_equal(st.n, 0);
	assert_near(st.max_s, 0);
}

/*
 * Two agents of two workers, started 0, 1, 2, 3 s after the step: a worker's time
 * runs from its own start, an agent's from its first worker's start to its last
 * finish, the storm from the first start to the last finish.
 */
static void test_storm_fleet(void **state)
{
	const struct storm_worker ws[] = {
	    {.agent = 1, .worker = 0, .start_s = 2, .done_s = 4, .ops = 10},
	    {.agent = 0, .worker = 0, .start_s = 0, .done_s = 5, .ops = 10},
	    {.agent = 0, .worker = 1, .start_s = 1, .done_s = 1, .ops = 10},
	    {.agent = 1, .worker = 1, .start_s = 3, .done_s = 2, .ops = 10},
	};
	const char *names[] = {"a0", "a1"};
	struct storm s;
	char text[512];

	(void)state;
	storm_compute(&s, ws, 4, 2, names, 10);
	assert_true(s.on);
	assert_int_equal(s.workers, 4);
	assert_int_equal(s.finished, 4);
	assert_int_equal(s.agents, 2);
	assert_int_equal(s.agents_done, 2);
	assert_int_equal(s.ops, 40);
	assert_near(s.worker.min_s, 1);
	assert_near(s.worker.median_s, 2);
	assert_near(s.worker.max_s, 5);
	/* a0: 0 to 5; a1: 2 to 6 */
	assert_near(s.agent.min_s, 4);
	assert_near(s.agent.max_s, 5);
	assert_near(s.first_start_s, 0);
	assert_near(s.last_finish_s, 6);
	assert_near(s.storm_s, 6);
	/* a mark per worker, in time order: a0/w1 at 2, a0/w0 at 5, a1/w1 at 5, a1/w0 at 6 */
	assert_int_equal(s.nmarks, 4);
	assert_false(s.marks_per_agent);
	assert_string_equal(s.mark_label[0], "a0/w1");
	assert_near(s.mark_s[0], 2);
	assert_string_equal(s.mark_label[1], "a0/w0");
	assert_string_equal(s.mark_label[2], "a1/w1");
	assert_string_equal(s.mark_label[3], "a1/w0");
	assert_near(s.mark_s[3], 6);
	storm_text(&s, text, sizeof(text));
	assert_non_null(strstr(text, "Storm: 6.000 s from the first start to the last finish"));
	assert_non_null(strstr(text, "no knee"));
}

/* A worker that missed the deadline: its agent is not done, the storm unfinished. */
static void test_storm_unfinished(void **state)
{
	const struct storm_worker ws[] = {
	    {.agent = 0, .worker = 0, .start_s = 0, .done_s = 3, .ops = 100},
	    {.agent = 1, .worker = 0, .start_s = 1, .done_s = -1, .ops = 25},
	};
	struct storm s;
	char text[512];

	(void)state;
	storm_compute(&s, ws, 2, 2, NULL, 100);
	assert_int_equal(s.finished, 1);
	assert_int_equal(s.agents_done, 1);
	assert_near(s.least_pct, 25);
	assert_int_equal(s.nmarks, 1);
	assert_string_equal(s.mark_label[0], "a0/w0");
	storm_text(&s, text, sizeof(text));
	assert_non_null(strstr(text, "UNFINISHED: 1 of 2 workers"));
	assert_non_null(strstr(text, "25.0%"));
}

/* Past STORM_MAX_MARKS workers the marks are the agents'. */
static void test_storm_marks_per_agent(void **state)
{
	struct storm_worker ws[STORM_MAX_MARKS + 2];
	struct storm s;

	(void)state;
	for (uint32_t i = 0; i < STORM_MAX_MARKS + 2; i++)
		ws[i] = (struct storm_worker){
		    .agent = i % 2, .worker = i / 2, .start_s = 0, .done_s = 1 + i % 2, .ops = 1};
	storm_compute(&s, ws, STORM_MAX_MARKS + 2, 2, NULL, 1);
	assert_true(s.marks_per_agent);
	assert_int_equal(s.nmarks, 2);
	assert_string_equal(s.mark_label[0], "a0");
	assert_near(s.mark_s[1], 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stats_nearest_rank),    cmocka_unit_test(test_stats_small),
	    cmocka_unit_test(test_storm_fleet),           cmocka_unit_test(test_storm_unfinished),
	    cmocka_unit_test(test_storm_marks_per_agent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
