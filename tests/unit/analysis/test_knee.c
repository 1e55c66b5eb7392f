/* SPDX-License-Identifier: MIT */
/* Unit tests for knee_find: brackets, edge cases and non-monotonic curves. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "knee.h"

#define KNEE_N(a) (sizeof(a) / sizeof((a)[0]))

/* cmocka 1.1.5 has no assert_double_equal; this one prints both values on failure. */
#define assert_double_equal(got, want, eps)                                                        \
	do {                                                                                       \
		double got_ = (got), want_ = (want);                                               \
		if (!(fabs(got_ - want_) <= (eps)))                                                \
			fail_msg("%s = %.17g, expected %.17g (within %g)", #got, got_, want_,      \
			         (double)(eps));                                                   \
	} while (0)

/* Crossing between steps 2 and 3: t = (1000 - 900) / (1500 - 900) = 1/6. */
static void test_knee_bracket_exact(void **state)
{
	const struct knee_point p[] = {{100, 200}, {200, 500}, {300, 900}, {350, 1500}};
	struct knee k = knee_find(p, KNEE_N(p), 1000);

	(void)state;
	assert_int_equal(k.kind, KNEE_INTERPOLATED);
	assert_double_equal(k.throughput, 300.0 + 50.0 / 6.0, 1e-9);
	assert_int_equal(k.below, 2);
	assert_int_equal(k.above, 3);
}

/* The best step wins even when it is not the last one. */
static void test_knee_all_under(void **state)
{
	const struct knee_point p[] = {{100, 200}, {300, 400}, {250, 600}};
	struct knee k = knee_find(p, KNEE_N(p), 1000);

	(void)state;
	assert_int_equal(k.kind, KNEE_ALL_UNDER);
	assert_double_equal(k.throughput, 300.0, 0.0);
	assert_int_equal(k.below, 1);
	assert_int_equal(k.above, 1);
}

static void test_knee_all_over(void **state)
{
	const struct knee_point p[] = {{100, 2000}, {200, 3000}, {300, 5000}};
	struct knee k = knee_find(p, KNEE_N(p), 1000);

	(void)state;
	assert_int_equal(k.kind, KNEE_ALL_OVER);
	assert_double_equal(k.throughput, 0.0, 0.0);
	assert_int_equal(k.below, 0);
	assert_int_equal(k.above, 0);
}

static void test_knee_empty(void **state)
{
	struct knee k = knee_find(NULL, 0, 1000);

	(void)state;
	assert_int_equal(k.kind, KNEE_NONE);
	assert_double_equal(k.throughput, 0.0, 0.0);
}

/*
 * Latency crosses at 1->2 (250), dips under at 3, crosses again at 3->4:
 * t = (1000 - 900) / (2000 - 900) = 1/11, so 320 + 10/11 beats the first crossing
 * and step 3 itself.
 */
static void test_knee_dip_then_second_crossing(void **state)
{
	const struct knee_point p[] = {
	    {100, 200}, {200, 800}, {300, 1200}, {320, 900}, {330, 2000}};
	struct knee k = knee_find(p, KNEE_N(p), 1000);

	(void)state;
	assert_int_equal(k.kind, KNEE_INTERPOLATED);
	assert_double_equal(k.throughput, 320.0 + 10.0 / 11.0, 1e-9);
	assert_int_equal(k.below, 3);
	assert_int_equal(k.above, 4);
}

/* A dip under the SLO as the last step, higher than the crossing: the step is the knee. */
static void test_knee_dip_at_end(void **state)
{
	const struct knee_point p[] = {{100, 200}, {200, 800}, {300, 1200}, {320, 900}};
	struct knee k = knee_find(p, KNEE_N(p), 1000);

	(void)state;
	assert_int_equal(k.kind, KNEE_AT_STEP);
	assert_double_equal(k.throughput, 320.0, 0.0);
	assert_int_equal(k.below, 3);
	assert_int_equal(k.above, 3);
}

/* A dip that stays below the first crossing's value does not move the knee. */
static void test_knee_low_dip_ignored(void **state)
{
	const struct knee_point p[] = {{100, 200}, {200, 800}, {300, 1200}, {150, 900}};
	struct knee k = knee_find(p, KNEE_N(p), 1000);

	(void)state;
	assert_int_equal(k.kind, KNEE_INTERPOLATED);
	assert_double_equal(k.throughput, 250.0, 1e-9);
	assert_int_equal(k.below, 1);
	assert_int_equal(k.above, 2);
}

/*
 * Throughput collapses past saturation: interpolating toward the over step
 * would give less than the under step achieved, so the step is the answer.
 */
static void test_knee_throughput_falls(void **state)
{
	const struct knee_point p[] = {{100, 200}, {300, 900}, {250, 3000}};
	struct knee k = knee_find(p, KNEE_N(p), 1000);

	(void)state;
	assert_int_equal(k.kind, KNEE_AT_STEP);
	assert_double_equal(k.throughput, 300.0, 0.0);
	assert_int_equal(k.below, 1);
	assert_int_equal(k.above, 1);
}

/* Latency equal to the SLO meets it: t = 0 and the crossing reports that step exactly. */
static void test_knee_slo_equal_to_point(void **state)
{
	const struct knee_point p[] = {{100, 200}, {200, 1000}, {210, 3000}};
	struct knee k = knee_find(p, KNEE_N(p), 1000);

	(void)state;
	assert_int_equal(k.kind, KNEE_INTERPOLATED);
	assert_double_equal(k.throughput, 200.0, 0.0);
	assert_int_equal(k.below, 1);
	assert_int_equal(k.above, 2);
}

/* The last step sits exactly at the SLO and nothing follows: every step met it. */
static void test_knee_slo_equal_last_point(void **state)
{
	const struct knee_point p[] = {{100, 200}, {200, 1000}};
	struct knee k = knee_find(p, KNEE_N(p), 1000);

	(void)state;
	assert_int_equal(k.kind, KNEE_ALL_UNDER);
	assert_double_equal(k.throughput, 200.0, 0.0);
	assert_int_equal(k.below, 1);
}

/* The first step already over the SLO: there is no under step to bracket with. */
static void test_knee_first_over_then_under(void **state)
{
	const struct knee_point p[] = {{100, 1500}, {200, 700}};
	struct knee k = knee_find(p, KNEE_N(p), 1000);

	(void)state;
	assert_int_equal(k.kind, KNEE_AT_STEP);
	assert_double_equal(k.throughput, 200.0, 0.0);
	assert_int_equal(k.below, 1);
}

/* A NaN latency is neither under nor over, so it brackets nothing. */
static void test_knee_nan_latency(void **state)
{
	const struct knee_point p[] = {{100, 200}, {200, NAN}, {300, 2000}};
	struct knee k = knee_find(p, KNEE_N(p), 1000);

	(void)state;
	assert_int_equal(k.kind, KNEE_AT_STEP);
	assert_double_equal(k.throughput, 100.0, 0.0);
	assert_int_equal(k.below, 0);
}

/* An infinite latency over the SLO interpolates to t = 0, not NaN. */
static void test_knee_infinite_latency(void **state)
{
	const struct knee_point p[] = {{100, 500}, {400, INFINITY}};
	struct knee k = knee_find(p, KNEE_N(p), 1000);

	(void)state;
	assert_int_equal(k.kind, KNEE_INTERPOLATED);
	assert_double_equal(k.throughput, 100.0, 0.0);
}

/* -inf latency makes t = inf/inf; it must clamp, not poison the answer with NaN. */
static void test_knee_nan_interpolation_clamped(void **state)
{
	const struct knee_point p[] = {{100, -INFINITY}, {400, INFINITY}};
	struct knee k = knee_find(p, KNEE_N(p), 1000);

	(void)state;
	assert_int_equal(k.kind, KNEE_INTERPOLATED);
	assert_double_equal(k.throughput, 100.0, 0.0);
}

/* A plateau: the earliest step that reaches the best throughput is reported. */
static void test_knee_plateau_earliest(void **state)
{
	const struct knee_point p[] = {{100, 200}, {300, 400}, {300, 600}};
	struct knee k = knee_find(p, KNEE_N(p), 1000);

	(void)state;
	assert_int_equal(k.kind, KNEE_ALL_UNDER);
	assert_double_equal(k.throughput, 300.0, 0.0);
	assert_int_equal(k.below, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_knee_bracket_exact),
	    cmocka_unit_test(test_knee_all_under),
	    cmocka_unit_test(test_knee_all_over),
	    cmocka_unit_test(test_knee_empty),
	    cmocka_unit_test(test_knee_dip_then_second_crossing),
	    cmocka_unit_test(test_knee_dip_at_end),
	    cmocka_unit_test(test_knee_low_dip_ignored),
	    cmocka_unit_test(test_knee_throughput_falls),
	    cmocka_unit_test(test_knee_slo_equal_to_point),
	    cmocka_unit_test(test_knee_slo_equal_last_point),
	    cmocka_unit_test(test_knee_first_over_then_under),
	    cmocka_unit_test(test_knee_nan_latency),
	    cmocka_unit_test(test_knee_infinite_latency),
	    cmocka_unit_test(test_knee_nan_interpolation_clamped),
	    cmocka_unit_test(test_knee_plateau_earliest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
