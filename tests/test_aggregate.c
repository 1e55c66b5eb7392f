/* SPDX-License-Identifier: MIT */
/* Merging agents' interval records into a step: agent indexes stay put across agg_point. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "aggregate.h"
#include "testlib.h"

/* One measured second of `ops` operations at lat_ns each, from agent `agent`. */
static void aggregate_add_lat(struct agg_step *st, uint32_t agent, uint32_t interval, uint64_t ops,
                              int32_t err_errno, uint64_t lat_ns)
{
	struct agg_record *rec = calloc(1, sizeof(*rec));
	const struct agg_record *merged;
	struct error err;

	assert_non_null(rec);
	record_reset(&rec->rec);
	rec->duration_ns = 1000000000;
	rec->agents = 1;
	rec->workers = 1;
	rec->rec.ops = ops;
	rec->rec.errors = err_errno != 0;
	rec->rec.err_errno = err_errno;
	for (uint64_t k = 0; k < ops; k++)
		hist_record(&rec->rec.latency, lat_ns);
	assert_true(agg_add_record(st, agent, interval, rec, &merged, &err) >= 0);
	free(rec);
}

/* One measured second of `ops` operations at 100 us each, from agent `agent`. */
static void aggregate_add(struct agg_step *st, uint32_t agent, uint32_t interval, uint64_t ops,
                          int32_t err_errno)
{
	aggregate_add_lat(st, agent, interval, ops, err_errno, 100000);
}

static const struct agent_share *aggregate_share(const struct step_point *pt, const char *name)
{
	for (uint32_t a = 0; a < pt->nagents && a < STEP_MAX_AGENTS; a++)
		if (strcmp(pt->agents[a].name, name) == 0)
			return &pt->agents[a];
	fail_msg("no share for agent %s", name);
	return NULL;
}

/*
 * agg_point lists the agents by name; the step goes on after it (a point is taken
 * while the runner may still add records), so agent 0 must still be "zeta": its
 * next interval counts for zeta, and an error in it names zeta.
 */
static void test_point_keeps_agent_index(void **state)
{
	const char *names[2] = {"zeta", "alpha"};
	struct campaign *c = testlib_campaign_ok(TEST_HEAD "workloads: [{name: a, load: "
	                                                   "{steps: [1000]}}]\n");
	struct agg_step *st = agg_step_new(2, names, 2);
	struct step_point *pt = calloc(1, sizeof(*pt));
	const struct agg_record *m;

	(void)state;
	assert_non_null(pt);
	aggregate_add(st, 0, 0, 100, 0);
	aggregate_add(st, 1, 0, 300, 0);
	agg_point(st, 0, 1000, c, pt);
	assert_string_equal(pt->agents[0].name, "alpha"); /* the breakdown is by name */
	assert_string_equal(pt->agents[1].name, "zeta");

	aggregate_add(st, 0, 1, 100, 5);
	aggregate_add(st, 1, 1, 300, 0);
	m = agg_merged(st, 1);
	assert_non_null(m);
	assert_string_equal(m->err_agent, "zeta");
	agg_point(st, 0, 1000, c, pt);
	assert_int_equal(pt->intervals, 2);
	assert_int_equal(pt->ops, 800);
	assert_true(aggregate_share(pt, "zeta")->achieved_ops == 100.0);
	assert_true(aggregate_share(pt, "alpha")->achieved_ops == 300.0);
	assert_int_equal(agg_agent_reported(st, 0), 2);
	assert_int_equal(agg_agent_reported(st, 1), 2);
	free(pt);
	agg_step_free(st);
	campaign_free(c);
}

/* A lost agent is dropped by its index after a point was taken, too. */
static void test_point_then_drop(void **state)
{
	const char *names[3] = {"c", "b", "a"};
	struct campaign *c = testlib_campaign_ok(TEST_HEAD "workloads: [{name: a, load: "
	                                                   "{steps: [1000]}}]\n");
	struct agg_step *st = agg_step_new(3, names, 2);
	struct step_point *pt = calloc(1, sizeof(*pt));

	(void)state;
	assert_non_null(pt);
	for (uint32_t a = 0; a < 3; a++)
		aggregate_add(st, a, 0, 100 * (a + 1), 0);
	agg_point(st, 0, 1000, c, pt);
	/* "c" (index 0) reported interval 0 only: it is gone from interval 1. */
	assert_int_equal(agg_drop_agent(st, 0), 1);
	aggregate_add(st, 1, 1, 200, 0);
	aggregate_add(st, 2, 1, 300, 0);
	assert_non_null(agg_merged(st, 1));
	agg_point(st, 0, 1000, c, pt);
	assert_int_equal(pt->agents_lost, 1);
	assert_int_equal(pt->lost_at, 1);
	assert_true(aggregate_share(pt, "c")->achieved_ops == 100.0);
	assert_true(aggregate_share(pt, "b")->achieved_ops == 200.0);
	assert_true(aggregate_share(pt, "a")->achieved_ops == 300.0);
	free(pt);
	agg_step_free(st);
	campaign_free(c);
}

/*
 * The metric's 95% interval by batch means: ten intervals alternating 100 us and
 * 300 us (mean 200 us, batch sd 105.4 us) give 200 +- t(0.975, 9) 105.4 / sqrt(10)
 * = 200 +- 75.4 us; ten equal ones a zero-width interval; one interval none. Twenty
 * intervals with a 10 ms stall in the middle: two-interval batches, and the stall
 * widens the interval past the quiet intervals' 100 us.
 */
static void test_metric_ci(void **state)
{
	const char *names[1] = {"a"};
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\nworkloads: [{name: a, load: {steps: [1000]}}]\n");
	struct agg_step *st = agg_step_new(1, names, 20);
	struct step_point *pt = calloc(1, sizeof(*pt));
	double lo, hi;

	(void)state;
	assert_non_null(pt);
	for (uint32_t i = 0; i < 10; i++)
		aggregate_add_lat(st, 0, i, 100, 0, i % 2 ? 300000 : 100000);
	agg_set_window(st, 0, 10);
	agg_metric_ci(st, SLO_MEAN, &lo, &hi);
	assert_true(fabs(lo - 124600) < 200 && fabs(hi - 275400) < 200);
	agg_point(st, 0, 100, c, pt);
	assert_true(pt->metric_lo_ns == lo && pt->metric_hi_ns == hi);
	agg_set_window(st, 0, 1);
	agg_metric_ci(st, SLO_MEAN, &lo, &hi);
	assert_true(lo == 0 && hi == 0);
	agg_step_free(st);

	st = agg_step_new(1, names, 20);
	for (uint32_t i = 0; i < 20; i++)
		aggregate_add_lat(st, 0, i, 100, 0, i == 10 ? 10000000 : 100000);
	agg_set_window(st, 0, 20);
	agg_metric_ci(st, SLO_MEAN, &lo, &hi);
	/* the window's mean: (19 x 100 + 10000) / 20 = 595 us, inside a wide interval */
	assert_true(lo < 595000 && hi > 595000 && hi - lo > 500000);
	agg_metric_ci(st, SLO_P99, &lo, &hi);
	assert_true(hi >= 9000000); /* the stall is 5% of the operations: p99 is in it */
	agg_step_free(st);

	st = agg_step_new(1, names, 10);
	for (uint32_t i = 0; i < 10; i++)
		aggregate_add_lat(st, 0, i, 100, 0, 100000);
	agg_set_window(st, 0, 10);
	agg_metric_ci(st, SLO_MEAN, &lo, &hi);
	assert_true(lo == hi && fabs(lo - 100000) < 1000);
	free(pt);
	agg_step_free(st);
	campaign_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_point_keeps_agent_index),
	    cmocka_unit_test(test_point_then_drop),
	    cmocka_unit_test(test_metric_ci),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
