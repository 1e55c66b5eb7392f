/* SPDX-License-Identifier: MIT */
/*
 * The step object (analysis/step.h): its window and steady extension, and one point
 * whether the step was fed and judged as the run feeds it or fed and cut as `report`
 * reads it back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "step.h"
#include "testlib.h"

/* One warm-up second, five measured, up to four more while the SLO straddles. */
#define STEP_CAMPAIGN                                                                              \
	TEST_HEAD "slo: {latency: 1ms}\n"                                                          \
	          "interval: 1s\n"                                                                 \
	          "warmup: 1s\n"                                                                   \
	          "measure: 5s\n"                                                                  \
	          "steady: {extend: 4}\n"                                                          \
	          "workloads: [{name: rr, rw: randread, load: {steps: [1000]}}]\n"

/* Interval i of agent a: 1000 operations at lat_us (storage and response alike). */
static void step_record(struct agg_record *rec, uint32_t i, double lat_us)
{
	record_reset(&rec->rec);
	rec->duration_ns = 1000000000;
	rec->agents = 1;
	rec->workers = 1;
	rec->warmup = i == 0;
	rec->rec.ops = 1000;
	for (int k = 0; k < 1000; k++) {
		hist_record(&rec->rec.latency, (uint64_t)(lat_us * 1e3));
		hist_record(&rec->rec.service, (uint64_t)(lat_us * 1e3));
	}
}

/* Feeds lat_us[0..n) (interval 0 the warm-up) from one agent; answers[i]: each one's. */
static struct step *step_run(const struct campaign *c, const double *lat_us, uint32_t n, bool judge,
                             int *answers)
{
	const char *names[1] = {"a"};
	struct step *s = step_new(c, 0, 3, 1000, 1, names);
	struct agg_record *rec = calloc(1, sizeof(*rec));
	const struct agg_record *merged;
	struct error err;

	assert_non_null(rec);
	for (uint32_t i = 0; i < n; i++) {
		step_record(rec, i, lat_us[i]);
		assert_int_equal(step_feed_record(s, 0, i, rec, &merged, &err), 1);
		if (judge)
			answers[i] = step_judge(s, i, &merged);
	}
	free(rec);
	return s;
}

/* Well under the SLO: the window is the planned one, decided at the step's end. */
static void test_planned(void **state)
{
	struct campaign *c = testlib_campaign_ok(STEP_CAMPAIGN);
	static const double lat[6] = {300, 300, 310, 290, 300, 305};
	int answers[6];
	struct step *s = step_run(c, lat, 6, true, answers);
	struct step_point pt;
	uint32_t from, to;

	(void)state;
	assert_int_equal(step_planned(s), 6);
	assert_int_equal(step_intervals(s), 10);
	/* decided once the planned intervals are in: the interval lies under the SLO */
	for (int i = 0; i < 5; i++)
		assert_int_equal(answers[i], STEP_GO_ON);
	assert_int_equal(answers[5], STEP_END);
	step_window(s, &from, &to);
	assert_int_equal(from, 1);
	assert_int_equal(to, 6);
	assert_false(step_close(s));
	assert_true(step_complete(s));
	step_point(s, &pt);
	assert_int_equal(pt.step, 3);
	assert_int_equal(pt.intervals, 5);
	step_free(s);
	campaign_free(c);
}

/* Straddling the SLO to the extension's end: every interval counts, cut at the last. */
static void test_extended(void **state)
{
	struct campaign *c = testlib_campaign_ok(STEP_CAMPAIGN);
	static const double lat[10] = {900, 600, 1500, 600, 1500, 600, 1500, 600, 1500, 600};
	int answers[10];
	struct step *s = step_run(c, lat, 10, true, answers);
	struct step_point pt;
	uint32_t from, to;

	(void)state;
	for (int i = 0; i < 9; i++)
		assert_int_equal(answers[i], STEP_GO_ON);
	assert_int_equal(answers[9], STEP_CUT);
	step_window(s, &from, &to);
	assert_int_equal(to, 10);
	step_point(s, &pt);
	assert_int_equal(pt.intervals, 9);
	step_free(s);
	campaign_free(c);
}

/*
 * The run judges the step; `report` cuts it where the run's window line says, and
 * gives it the cooldown and retries its lines say: the same point.
 */
static void test_run_and_report(void **state)
{
	struct campaign *c = testlib_campaign_ok(STEP_CAMPAIGN);
	static const double lat[10] = {900, 600, 1500, 600, 1500, 600, 1500, 200, 200, 200};
	int answers[10];
	struct step *run = step_run(c, lat, 10, true, answers);
	struct step *rep = step_run(c, lat, 10, false, NULL);
	struct step_point *a = calloc(2, sizeof(*a));
	uint32_t from, to;

	(void)state;
	assert_non_null(a);
	step_set_cooldown(run, 1200, "recovered");
	step_set_retries(run, 1);
	assert_false(step_close(run));
	step_window(run, &from, &to);
	assert_true(to > 6 && to <= 10);
	step_cut(rep, to);
	step_set_cooldown(rep, 1200, "recovered");
	step_set_retries(rep, 1);
	assert_false(step_close(rep));
	step_point(run, &a[0]);
	step_point(rep, &a[1]);
	assert_memory_equal(&a[0], &a[1], sizeof(*a));
	assert_int_equal(a[0].cooldown_ms, 1200);
	assert_string_equal(a[0].cooldown, "recovered");
	assert_int_equal(a[0].client.retries, 1);
	assert_int_equal(a[0].win_to, to);
	free(a);
	step_free(run);
	step_free(rep);
	campaign_free(c);
}

/* Without an extension (extend: 0) the step never ends its window early, nor writes it. */
static void test_no_extension(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\ninterval: 1s\nwarmup: 1s\nmeasure: 5s\n"
	              "steady: {extend: 0}\n"
	              "workloads: [{name: rr, rw: randread, load: {steps: [1000]}}]\n");
	static const double lat[6] = {300, 300, 300, 300, 300, 300};
	int answers[6];
	struct step *s = step_run(c, lat, 6, true, answers);
	uint32_t from, to;

	(void)state;
	for (int i = 0; i < 6; i++)
		assert_int_equal(answers[i], STEP_GO_ON);
	assert_false(step_close(s));
	step_window(s, &from, &to);
	assert_int_equal(to, 6);
	step_free(s);
	campaign_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_planned),
	    cmocka_unit_test(test_extended),
	    cmocka_unit_test(test_run_and_report),
	    cmocka_unit_test(test_no_extension),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
