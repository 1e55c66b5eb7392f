/* SPDX-License-Identifier: MIT */
/* Step control without a fleet: ramp, curve, refine and the stop rules on made-up points. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "planner.h"
#include "verdict.h"
#include "testlib.h"

/* A device of `cap` ops/s: below it the latency is 500us, above it the backlog grows. */
static struct step_point planner_device(double offered, double cap, uint32_t step)
{
	struct step_point p = {0};

	p.step = step;
	p.offered_ops = offered;
	p.achieved_ops = offered > 0 && offered < cap ? offered : cap;
	p.measured_s = 5;
	p.intervals = 5;
	p.steady = offered <= cap;
	p.ops = (uint64_t)(p.achieved_ops * 5);
	p.missed = offered > cap ? (uint64_t)((offered - cap) * 5) : 0;
	p.mean_ns = offered > 0 && offered <= cap ? 500e3 : 80e6;
	return p;
}

/* Run the planner against the device until it is done; returns the steps' offered rates. */
static size_t planner_drive(const struct campaign *c, double cap, double *rates, size_t max)
{
	struct step_point pts[64];
	struct planner p;
	size_t n = 0;
	double rate;

	planner_init(&p, c, &c->workloads[0]);
	while (n < max && planner_next(&p, pts, n, &rate)) {
		rates[n] = rate;
		pts[n] = planner_device(rate, cap, (uint32_t)n);
		n++;
	}
	return n;
}

static void test_ramp_stops_at_saturation(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "workloads: [{name: a, load: {ramp: {start: 1000, factor: 2}}}]\n");
	double r[32];
	size_t n = planner_drive(c, 5000, r, 32);

	/* 1000, 2000, 4000 meet the rate; 8000 saturates (62%): the ramp stops there. */
	assert_int_equal(n, 4);
	assert_true(r[0] == 1000 && r[1] == 2000 && r[2] == 4000 && r[3] == 8000);
	campaign_free(c);
}

static void test_ramp_increment_and_max_steps(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD
	    "workloads: [{name: a, load: {ramp: {start: 100, increment: 100, max_steps: 5}}}]\n");
	double r[32];
	size_t n = planner_drive(c, 1e9, r, 32);

	assert_int_equal(n, 5);
	assert_true(r[4] == 500);
	campaign_free(c);
}

static void test_refine_brackets_the_knee(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD
	    "slo: {latency: 1ms}\n"
	    "workloads: [{name: a, load: {ramp: {start: 1000, factor: 2}, refine: 10}}]\n");
	double r[32], lo = 0, hi = 1e18;
	size_t n = planner_drive(c, 5000, r, 32);

	/* The pass (4 steps), then bisection until the bracket is within 2%. */
	assert_true(n > 4 && n <= 14);
	for (size_t i = 0; i < n; i++) {
		if (r[i] <= 5000 && r[i] > lo)
			lo = r[i];
		if (r[i] > 5000 && r[i] < hi)
			hi = r[i];
	}
	assert_true(hi - lo <= 0.02 * lo);
	assert_true(lo > 4900);
	campaign_free(c);
}

static void test_curve_runs_the_peak_first(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "workloads: [{name: a, load: {curve: [25%, 50%, 100%]}}]\n");
	double r[32];
	size_t n = planner_drive(c, 4000, r, 32);

	assert_int_equal(n, 4);
	assert_true(r[0] == 0); /* max */
	assert_true(r[1] == 1000 && r[2] == 2000 && r[3] == 4000);
	campaign_free(c);
}

static void test_saturation_rules(void **state)
{
	struct campaign *c =
	    testlib_campaign_ok(TEST_HEAD "stop: {achieved: 90%, ceiling: 10ms, errors: true}\n"
	                                  "workloads: [{name: a, load: {steps: [1]}}]\n");
	struct step_point p = {
	    .offered_ops = 1000, .achieved_ops = 950, .ops = 950, .missed = 50, .mean_ns = 2e6};
	char why[128];

	assert_false(verdict_saturated(c, &p, why, sizeof(why)));
	p.ops = 850;
	p.missed = 150;
	assert_true(verdict_saturated(c, &p, why, sizeof(why)));
	assert_string_equal(why, "achieved 85% of the operations due");
	/* Poisson count noise: 90% of offered, but every due operation completed. */
	p.ops = 900;
	p.missed = 0;
	assert_false(verdict_saturated(c, &p, why, sizeof(why)));
	p.achieved_ops = 1000;
	p.mean_ns = 20e6;
	assert_true(verdict_saturated(c, &p, why, sizeof(why)));
	assert_non_null(strstr(why, "over the 10.0ms ceiling"));
	p.mean_ns = 1e6;
	p.errors = 3;
	assert_true(verdict_saturated(c, &p, why, sizeof(why)));
	assert_string_equal(why, "3 I/O errors");
	campaign_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ramp_stops_at_saturation),
	    cmocka_unit_test(test_ramp_increment_and_max_steps),
	    cmocka_unit_test(test_refine_brackets_the_knee),
	    cmocka_unit_test(test_curve_runs_the_peak_first),
	    cmocka_unit_test(test_saturation_rules),
	};

	return cmocka_run_group_tests_name("planner", tests, NULL, NULL);
}
