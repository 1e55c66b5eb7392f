/* SPDX-License-Identifier: MIT */
/* The rate cap diagnosis (ratecap.c) on synthetic steps: a throttle, saturation, borderlines. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "judged.h"
#include "ratecap.h"
#include "testlib.h"

#define RC_TICKS 6

/*
 * Step `step` (from 0) offered `offered` ops/s (0: closed loop) for 6 measured
 * one-second intervals, completing `achieved` ops/s (each interval +-0.2%) at a
 * mean service time of svc_us; what it did not complete of its load is missed.
 */
static struct step_point rc_pt(uint32_t step, double offered, double achieved, double svc_us)
{
	struct step_point p = {0};

	p.step = step;
	p.offered_ops = offered;
	p.achieved_ops = achieved;
	p.ops = (uint64_t)llround(achieved * RC_TICKS);
	if (offered > achieved)
		p.missed = (uint64_t)llround((offered - achieved) * RC_TICKS);
	p.measured_s = RC_TICKS;
	p.svc_mean_ns = svc_us * 1e3;
	p.mean_ns = svc_us * 1e3;
	p.intervals = RC_TICKS;
	p.steady = true;
	p.workers = 4;
	p.nticks = RC_TICKS;
	for (uint32_t i = 0; i < RC_TICKS; i++) {
		p.ticks[i].seconds = 1;
		p.ticks[i].ops_s = achieved * (i % 2 ? 1.002 : 0.998);
		p.ticks[i].measured = true;
	}
	return p;
}

/* Five steps from a table: each row its step (from 0), offered, achieved, service us. */
static void rc_curve(struct step_point *p, const double rows[5][4])
{
	for (size_t i = 0; i < 5; i++)
		p[i] = rc_pt((uint32_t)rows[i][0], rows[i][1], rows[i][2], rows[i][3]);
}

/* A throttle at 5000 ops/s: fast below it, the excess queued above it. */
static void rc_throttle(struct step_point *p, double near_svc_us)
{
	p[0] = rc_pt(0, 1000, 1000, 100);
	p[1] = rc_pt(1, 2500, 2500, 100);
	p[2] = rc_pt(2, 4600, 4600, near_svc_us);
	p[3] = rc_pt(3, 6500, 5000, 12800);
	p[4] = rc_pt(4, 8000, 5000, 12800);
}

static void test_throttle_capped(void **state)
{
	struct step_point p[5];
	struct ratecap rc;
	char words[512];

	(void)state;
	rc_throttle(p, 101);
	ratecap_judge(p, 5, &rc);
	assert_true(rc.flat);
	assert_true(rc.capped);
	assert_true(fabs(rc.ceiling_ops - 5000) < 1);
	assert_true(rc.ceiling_lo < 5000 && rc.ceiling_hi > 5000);
	assert_int_equal(rc.nflat, 2);
	assert_int_equal(rc.flat_steps[0], 4);
	assert_int_equal(rc.flat_steps[1], 5);
	assert_int_equal(rc.near_step, 3);
	assert_int_equal(rc.low_step, 1);
	assert_true(fabs(rc.top_in_flight - 64) < 0.1); /* 5000 x 12.8 ms */
	assert_true(fabs(rc.in_service - 0.5) < 0.01);  /* 5000 x 100 us */
	assert_non_null(strstr(rc.why, "idled while it refused more"));
	ratecap_words(&rc, words, sizeof(words));
	assert_string_equal(words,
	                    "throughput capped at 5,000 ops/s (a rate limit such as a QoS policy): "
	                    "service time grows with queue depth while throughput stays flat "
	                    "(101us below the cap, 12.8ms with 64.0 in flight at it)");
}

/* An M/M/c saturates with the same flat top, but queued before it was full. */
static void test_saturated_not_capped(void **state)
{
	struct step_point p[5];
	struct ratecap rc;
	char words[64];

	(void)state;
	rc_throttle(p, 400);
	ratecap_judge(p, 5, &rc);
	assert_true(rc.flat);
	assert_false(rc.capped);
	assert_non_null(strstr(rc.why, "saturated, not capped: service time grew 4.00x"));
	ratecap_words(&rc, words, sizeof(words));
	assert_string_equal(words, "");
}

/*
 * Saturated before the top: the highest step that kept up had queued already (an M/M/2
 * of 2 ms per worker, two workers, as a CI run of rate-cap read it: 2.0 ms at 25% of its
 * 2,000 ops/s, 50 ms at 92%, 64 ms at the top), so the top's service time is not twice
 * it. The storage queued: saturated, not the client setting the rate.
 */
static void test_saturated_before_the_top(void **state)
{
	struct step_point p[5];
	struct ratecap rc;

	(void)state;
	rc_curve(p, (const double[5][4]){{0, 500, 500, 2000},
	                                 {1, 1000, 1000, 2900},
	                                 {2, 1850, 1850, 50000},
	                                 {3, 2600, 1971, 64000},
	                                 {4, 3200, 2014, 63500}});
	ratecap_judge(p, 5, &rc);
	assert_true(rc.flat);
	assert_false(rc.capped);
	assert_int_equal(rc.near_step, 3);
	assert_int_equal(rc.low_step, 1);
	assert_non_null(strstr(rc.why, "saturated, not capped: service time grew 25.00x"));
	assert_null(strstr(rc.why, "client"));
}

/* Borderlines: the growth below the ceiling at THRESH_CAP_FAST exactly is fast; over it is not. */
static void test_growth_borderline(void **state)
{
	struct step_point p[5];
	struct ratecap rc;

	(void)state;
	rc_throttle(p, 100 * THRESH_CAP_FAST);
	ratecap_judge(p, 5, &rc);
	assert_true(rc.capped);
	rc_throttle(p, 100 * THRESH_CAP_FAST + 1);
	ratecap_judge(p, 5, &rc);
	assert_false(rc.capped);
	assert_non_null(strstr(rc.why, "saturated"));
}

/* The highest step that kept up must be at THRESH_CAP_NEAR of the ceiling or more. */
static void test_near_borderline(void **state)
{
	struct step_point p[5];
	struct ratecap rc;

	(void)state;
	rc_throttle(p, 100);
	p[2] = rc_pt(2, 4260, 4260, 100); /* 85.2% of 5000 */
	ratecap_judge(p, 5, &rc);
	assert_true(rc.capped);
	p[2] = rc_pt(2, 4200, 4200, 100); /* 84% */
	ratecap_judge(p, 5, &rc);
	assert_true(rc.flat);
	assert_false(rc.capped);
	assert_non_null(strstr(rc.why, "must keep up at 85% of it or more"));
	/* nor without a step at half the ceiling or less */
	rc_throttle(p, 100);
	p[0] = rc_pt(0, 2600, 2600, 100);
	p[1] = rc_pt(1, 3000, 3000, 100);
	ratecap_judge(p, 5, &rc);
	assert_false(rc.capped);
	assert_false(rc.low);
}

/* One step at the top is no flat top; nor are two whose rates differ beyond their noise. */
static void test_no_flat_top(void **state)
{
	struct step_point p[5];
	struct ratecap rc;

	(void)state;
	rc_throttle(p, 100);
	ratecap_judge(p, 4, &rc); /* only 6500 over the cap */
	assert_false(rc.flat);
	assert_false(rc.capped);
	assert_string_equal(rc.why, "");
	rc_throttle(p, 100);
	p[3] = rc_pt(3, 6500, 4800, 12800); /* 4% apart: +-0.2% and count noise */
	ratecap_judge(p, 5, &rc);
	assert_false(rc.flat);
	/* the same two within noise of each other: a wide interval from noisy intervals */
	for (uint32_t i = 0; i < RC_TICKS; i++)
		p[3].ticks[i].ops_s = 4800 * (i % 2 ? 1.08 : 0.92);
	ratecap_judge(p, 5, &rc);
	assert_true(rc.flat);
}

/* A flat top whose service time did not grow was set before the storage (the client). */
static void test_flat_without_queueing(void **state)
{
	struct step_point p[5];
	struct ratecap rc;

	(void)state;
	rc_throttle(p, 100);
	p[3].svc_mean_ns = p[4].svc_mean_ns = 150e3;
	ratecap_judge(p, 5, &rc);
	assert_true(rc.flat);
	assert_false(rc.capped);
	assert_non_null(strstr(rc.why, "did not queue the excess"));
}

/*
 * A ramp then refinement: one step over the cap, one that kept up just under it.
 * Both are flat; the ceiling is what the held-back one achieved.
 */
static void test_refined_top(void **state)
{
	struct step_point p[5];
	struct ratecap rc;

	(void)state;
	rc_curve(p, (const double[5][4]){{0, 1000, 1000, 100},
	                                 {1, 2250, 2250, 100},
	                                 {2, 3375, 3375, 100},
	                                 {5, 4960, 4960, 102},
	                                 {4, 5062, 5000, 12800}});
	ratecap_judge(p, 5, &rc);
	assert_true(rc.capped);
	assert_int_equal(rc.nflat, 2);
	assert_int_equal(rc.flat_steps[0], 6);
	assert_int_equal(rc.near_step, 6);
	assert_true(fabs(rc.ceiling_ops - 5000) < 1e-6);
	assert_true(rc.ceiling_lo > 4900 && rc.ceiling_hi < 5100);
}

/* A closed-loop step counts as offered more than it achieved; errors keep a step out. */
static void test_closed_loop_and_errors(void **state)
{
	struct step_point p[5];
	struct ratecap rc;

	(void)state;
	rc_throttle(p, 100);
	p[4] = rc_pt(4, 0, 5000, 3200);
	ratecap_judge(p, 5, &rc);
	assert_true(rc.capped);
	p[3].errors = 5;
	ratecap_judge(p, 5, &rc);
	assert_false(rc.flat);
	/* figures no count holds are left out, never printed */
	rc_throttle(p, 100);
	p[2].svc_mean_ns = NAN;
	p[3].achieved_ops = 1e300;
	ratecap_judge(p, 5, &rc);
	assert_false(rc.capped);
}

/* The judged curve names the cap as the limiting factor, before the client's CPU. */
static void test_judged_limit(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\n"
	              "workloads: [{name: rr, rw: randread, load: {steps: [1000, 2000]}}]\n");
	struct judged_curve j = {0};
	struct step_point p[5];

	(void)state;
	rc_throttle(p, 100);
	for (int i = 0; i < 5; i++)
		p[i].client.host_cpu_pct = 95;
	judged_update(&j, c, &c->workloads[0], p, 5);
	assert_true(j.ratecap.capped);
	assert_non_null(strstr(j.limit, "throughput capped at 5,000 ops/s (a rate limit such as a "
	                                "QoS policy)"));
	assert_null(strstr(j.limit, "parallel units"));
	/* a slower device behind the same ceiling: 4 units of 800 us would draw it too */
	rc_throttle(p, 800);
	for (int i = 0; i < 5; i++)
		p[i].svc_mean_ns = i < 3 ? 800e3 : 12800e3;
	judged_update(&j, c, &c->workloads[0], p, 5);
	assert_true(j.ratecap.capped);
	assert_non_null(strstr(j.limit,
	                       "throughput flat at 5,000 ops/s: a rate limit such as a QoS "
	                       "policy, or a device of 4.0 parallel units that do not slow "
	                       "before all are busy (these steps cannot tell them apart)"));
	/* the whole sentence: the demo's was cut at "122220.1 in fli" (a 288-byte limit) */
	assert_non_null(strstr(j.limit, " in flight at it)"));
	assert_null(strstr(j.limit, "throughput capped"));
	rc_throttle(p, 400);
	judged_update(&j, c, &c->workloads[0], p, 5);
	assert_null(strstr(j.limit, "capped"));
	judged_free(&j);
	campaign_free(c);
}

/*
 * A busy client host is the limit only where the storage did not queue: the same curve,
 * 97% busy, with the top step's service time flat (the client issued late, the storage
 * answered as fast) and grown 30-fold (the storage held the operations: saturated).
 */
static void test_cpu_or_storage(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\n"
	              "workloads: [{name: rr, rw: randread, load: {steps: [1000, 2000]}}]\n");
	struct judged_curve j = {0};
	struct step_point p[4];

	(void)state;
	for (int grown = 0; grown < 2; grown++) {
		p[0] = rc_pt(0, 1000, 1000, 100);
		p[1] = rc_pt(1, 2000, 2000, 100);
		p[2] = rc_pt(2, 4000, 4000, 100);
		p[3] = rc_pt(3, 8000, 5000, grown ? 3000 : 100);
		for (int i = 0; i < 4; i++)
			p[i].client.host_cpu_pct = 97;
		judged_update(&j, c, &c->workloads[0], p, 4);
		if (grown)
			assert_non_null(strstr(j.limit, "storage saturated: "));
		else
			assert_string_equal(j.limit, "client CPU (an agent host 97% busy)");
	}
	/* the client's reap delay is its own, not the storage's queue */
	p[3].client.reap_delay_ns = 2950e3;
	judged_update(&j, c, &c->workloads[0], p, 4);
	assert_string_equal(j.limit, "client CPU (an agent host 97% busy)");
	judged_free(&j);
	campaign_free(c);
}

/*
 * The client's own disk at its limit at the first violation: named beside the client-side
 * reason, with its busy share there and the throughput from which it stayed that busy.
 */
static void test_judged_disk(void **state)
{
	static const double util[5] = {20, 40, 95, 99, 99};
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\n"
	              "workloads: [{name: rr, rw: randread, load: {steps: [1000, 2000]}}]\n");
	struct judged_curve j = {0};
	struct step_point p[5];

	(void)state;
	rc_throttle(p, 100);
	for (int i = 0; i < 5; i++) {
		p[i].kernel.known = true;
		p[i].kernel.dev_util_pct = util[i];
		/* steps 3 and 4 (12.8 ms) wholly over the 1 ms SLO: violated */
		p[i].metric_lo_ns = p[i].metric_hi_ns = p[i].svc_mean_ns;
		snprintf(p[i].kernel.dev, sizeof(p[i].kernel.dev), "vda");
	}
	judged_update(&j, c, &c->workloads[0], p, 5);
	assert_non_null(strstr(j.limit, "throughput capped at 5,000 ops/s"));
	assert_non_null(strstr(j.limit, "; client disk vda busy 99% from 4,600 ops/s"));
	/* under its limit at the first violation (or not read): not named */
	p[3].kernel.dev_util_pct = 80;
	judged_update(&j, c, &c->workloads[0], p, 5);
	assert_null(strstr(j.limit, "client disk"));
	/* busy from the first step (1,000 ops/s) and serving 5,000 at the violation: a
	   device that serves in parallel, busy and not saturated: not named */
	for (int i = 0; i < 5; i++)
		p[i].kernel.dev_util_pct = 99;
	judged_update(&j, c, &c->workloads[0], p, 5);
	assert_null(strstr(j.limit, "client disk"));
	for (int i = 0; i < 5; i++)
		p[i].kernel.known = false;
	p[3].kernel.dev_util_pct = 99;
	judged_update(&j, c, &c->workloads[0], p, 5);
	assert_null(strstr(j.limit, "client disk"));
	judged_free(&j);
	campaign_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_throttle_capped),
	    cmocka_unit_test(test_saturated_not_capped),
	    cmocka_unit_test(test_saturated_before_the_top),
	    cmocka_unit_test(test_growth_borderline),
	    cmocka_unit_test(test_near_borderline),
	    cmocka_unit_test(test_no_flat_top),
	    cmocka_unit_test(test_flat_without_queueing),
	    cmocka_unit_test(test_closed_loop_and_errors),
	    cmocka_unit_test(test_judged_limit),
	    cmocka_unit_test(test_cpu_or_storage),
	    cmocka_unit_test(test_judged_disk),
	    cmocka_unit_test(test_refined_top),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
