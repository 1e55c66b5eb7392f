/* SPDX-License-Identifier: MIT */
/*
 * Known answers for the headline: steps shaped like the demos whose figures the method
 * used to overrule, merged from their intervals (agg_point), judged (judged_update) and
 * printed (table_knee_text) as a run and `iocurve report` do.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "figs.h"
#include "glance.h"
#include "judged.h"
#include "table.h"
#include "testlib.h"

/* A step for the test: its offered rate, what it achieved a second, its intervals' latency. */
struct headline_step {
	double offered;
	uint64_t ops_s;   /* completed a second */
	uint64_t backlog; /* added to the backlog a second (behind) */
	const double *lat_us;
	size_t n;
	double slot_us; /* per operation, waiting for a slot (queues full 20% of the time) */
};

/*
 * The point of a step of s->n measured one-second intervals after one warm-up second:
 * each interval's operations all at its latency (storage and response alike).
 */
static void headline_point(const struct campaign *c, const struct workload *w, uint32_t step,
                           const struct headline_step *s, struct step_point *pt)
{
	const char *names[1] = {"a"};
	struct agg_step *st = agg_step_new(1, names, (uint32_t)s->n + 1);
	struct agg_record *rec = calloc(1, sizeof(*rec));
	const struct agg_record *merged;
	struct error err;

	assert_non_null(rec);
	for (uint32_t i = 0; i <= s->n; i++) {
		uint64_t lat = (uint64_t)((i == 0 ? s->lat_us[0] : s->lat_us[i - 1]) * 1e3);

		record_reset(&rec->rec);
		rec->duration_ns = 1000000000;
		rec->agents = 1;
		rec->workers = 4;
		rec->warmup = i == 0;
		rec->rec.ops = s->ops_s;
		rec->rec.missed = s->backlog * (i + 1);
		rec->rec.health_n = 1;
		rec->rec.slot_wait_ns = (uint64_t)(s->slot_us * 1e3) * s->ops_s;
		rec->rec.qd_full_ns = s->slot_us > 0 ? 4 * 200000000ull : 0;
		for (uint64_t k = 0; k < s->ops_s; k += 100) {
			uint64_t m = s->ops_s - k < 100 ? s->ops_s - k : 100;

			for (uint64_t q = 0; q < m; q++) {
				hist_record(&rec->rec.latency, lat);
				hist_record(&rec->rec.service, lat);
			}
		}
		assert_true(agg_add_record(st, 0, i, rec, &merged, &err) == 1);
	}
	agg_set_window(st, 0, (uint32_t)s->n + 1);
	agg_point(st, step, s->offered, c, pt);
	agg_point_workload(pt, c, w);
	figs_client_workload(pt, c, w);
	free(rec);
	agg_step_free(st);
}

/* The curve of steps[0..n) (run order) judged; *text the knee as summary.txt prints it. */
static struct judged_curve headline_judge(const struct campaign *c, const struct headline_step *s,
                                          size_t n, struct step_point *pts, char *text, size_t len)
{
	struct judged_curve j = {0};

	for (size_t i = 0; i < n; i++)
		headline_point(c, &c->workloads[0], (uint32_t)i, &s[i], &pts[i]);
	judged_update(&j, c, &c->workloads[0], pts, n);
	table_knee_text(&j, text, len);
	return j;
}

/* The value before " ops/s" in text after `after`, digits grouped with commas. */
static double headline_figure(const char *text, const char *after)
{
	const char *at = strstr(text, after);
	char digits[32];
	size_t k = 0;

	assert_non_null(at);
	for (at += strlen(after); *at != '\0' && *at != ' ' && k + 1 < sizeof(digits); at++)
		if (*at != ',')
			digits[k++] = *at;
	digits[k] = '\0';
	return atof(digits);
}

#define FLAT(name, us) static const double name[10] = {us, us, us, us, us, us, us, us, us, us}

/*
 * 0.2.0's demo (98d45fe): the randread step at 56,000 ops/s had intervals of 558, 1,354,
 * 4,541, 1,062, 1,035, 577, 581, 569, 681 and 398 us after its warm-up. A trend rule
 * cut five of them and published a knee of 56,000 at 561 us. Every interval counts now:
 * its mean is the ten's (1,135.6 us), it does not meet the SLO, and the knee lies below
 * it, above the step that met it (48,000), under the violation at 56,500.
 */
static void test_demo_98d45fe_randread(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\n"
	              "workloads: [{name: rr, rw: randread, load: {steps: [1000]}}]\n");
	static const double stall[10] = {558, 1354, 4541, 1062, 1035, 577, 581, 569, 681, 398};
	FLAT(l32, 300);
	FLAT(l48, 520);
	FLAT(l56500, 7480);
	const struct headline_step s[] = {
	    {32000, 32000, 0, l32, 10},
	    {48000, 48000, 0, l48, 10},
	    {56000, 56000, 0, stall, 10},
	    {56500, 56500, 0, l56500, 10},
	};
	struct step_point pts[4];
	char text[1024];
	struct judged_curve j;

	(void)state;
	j = headline_judge(c, s, 4, pts, text, sizeof(text));
	assert_true(fabs(pts[2].svc_mean_ns - 1135600) < 0.01 * 1135600);
	assert_int_equal(pts[2].intervals, 10);
	assert_int_equal(verdict_judge(c, &pts[2]), VERDICT_UNDECIDED);
	assert_int_equal(verdict_judge(c, &pts[3]), VERDICT_VIOLATED);
	assert_true(j.knee.throughput >= 48000 && j.knee.throughput < 56000);
	assert_true(j.knee.band_lo == 48000 && j.knee.band_hi == 56500);
	assert_non_null(strstr(text, "(95% band 48,000-56,500)"));
	judged_free(&j);
	campaign_free(c);
}

/*
 * 9f0d923's demo beside a busy compiler: the step at 64,000 ops/s achieved its rate at
 * 550 us mean, its interval wholly under the 1 ms SLO, but "unsteady", so the knee was
 * 48,000; steps at 80,000 and 96,000 straddled the SLO and the top step fell behind.
 * Now the knee is not below the step that met it, the band's top is at most the peak,
 * and the printed knee at most the measured one.
 */
static void test_demo_9f0d923_busy(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\n"
	              "workloads: [{name: rr, rw: randread, load: {steps: [1000]}}]\n");
	static const double l64[10] = {470, 630, 470, 630, 470, 630, 470, 630, 470, 630};
	static const double l80[10] = {700, 1300, 700, 1300, 700, 1300, 700, 1300, 700, 1300};
	static const double l96[10] = {800, 1400, 800, 1400, 800, 1400, 800, 1400, 800, 1400};
	FLAT(l16, 200);
	FLAT(l48, 400);
	FLAT(l128, 640);
	const struct headline_step s[] = {
	    {16000, 16000, 0, l16, 10}, {48000, 48000, 0, l48, 10},
	    {64000, 64004, 0, l64, 10}, {80000, 80000, 0, l80, 10},
	    {96000, 96000, 0, l96, 10}, {128000, 100500, 27500, l128, 10},
	};
	struct step_point pts[6];
	char text[1024];
	struct judged_curve j;

	(void)state;
	j = headline_judge(c, s, 6, pts, text, sizeof(text));
	assert_int_equal(verdict_judge(c, &pts[2]), VERDICT_MET);
	assert_true(pts[2].metric_hi_ns < 1e6);
	assert_int_equal(verdict_judge(c, &pts[3]), VERDICT_UNDECIDED);
	assert_int_equal(verdict_judge(c, &pts[4]), VERDICT_UNDECIDED);
	assert_int_equal(verdict_judge(c, &pts[5]), VERDICT_NOT_JUDGED);
	assert_true(j.knee.throughput >= 64000);
	assert_true(j.knee.band_hi <= j.peak_tp);
	assert_true(headline_figure(text, "(storage mean): ") <= j.knee.throughput);
	assert_true(headline_figure(text, "95% band ") <= j.knee.band_lo);
	assert_true(strstr(text, "(95% band 64,000-100,500)") != NULL);
	judged_free(&j);
	campaign_free(c);
}

/*
 * 9f0d923's quiet randwrite: a knee of 109,871 that is the peak (109,873: the storage
 * saturated at 281 us mean) read "110000 ops/s, 95% band 100000-130000 ... confirmed".
 * Now it is said at the peak, with the band at the peak, printed as measured.
 */
static void test_knee_at_peak(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\n"
	              "workloads: [{name: rw, rw: randwrite, load: {steps: [1000]}}]\n");
	FLAT(l64, 150);
	FLAT(l110, 281);
	FLAT(l128, 290);
	const struct headline_step s[] = {
	    {64000, 64000, 0, l64, 10},
	    {128000, 109873, 18127, l128, 10},
	    {110000, 109871, 0, l110, 10},
	};
	struct step_point pts[3];
	char text[1024];
	struct judged_curve j;

	(void)state;
	j = headline_judge(c, s, 3, pts, text, sizeof(text));
	assert_int_equal(j.knee.kind, KNEE_AT_PEAK);
	assert_string_equal(j.kind, "at_peak");
	assert_true(j.knee.throughput == 109871);
	assert_true(j.knee.band_lo == 109871 && j.knee.band_hi == 109873);
	assert_non_null(strstr(text, "109,871 ops/s (95% band 109,871-109,873) at the peak"));
	judged_free(&j);
	campaign_free(c);
}

/*
 * 9f0d923's quiet randread at 96,000 ops/s: overloaded, its latency growing through the
 * step to a 15.3 ms mean, its interval was "0-32,653 us" and so it "straddled" the SLO.
 * Behind its rate, with its storage wholly over the SLO all the same, it is violated
 * (its words say both), and the band stops at the highest rate achieved.
 */
static void test_overload_violates(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\n"
	              "workloads: [{name: rr, rw: randread, load: {steps: [1000]}}]\n");
	static const double grows[10] = {1500,  3000,  5500,  8000,  11000,
	                                 14500, 18000, 22000, 26500, 31000};
	FLAT(l88, 600);
	const struct headline_step s[] = {{88000, 88000, 0, l88, 10},
	                                  {96000, 90950, 5050, grows, 10}};
	struct step_point pts[2];
	char text[1024];
	struct judged_curve j;

	(void)state;
	j = headline_judge(c, s, 2, pts, text, sizeof(text));
	assert_true(pts[1].metric_lo_ns > 1e6);
	assert_int_equal(verdict_judge(c, &pts[1]), VERDICT_VIOLATED);
	assert_non_null(strstr(j.v[1].words, "violated; behind ("));
	assert_true(j.knee.band_hi == 90950);
	assert_non_null(strstr(text, "(95% band 88,000-90,950)"));
	judged_free(&j);
	campaign_free(c);
}

/*
 * A storage that stalls now and then: at 44,000 ops/s and above its 250 us would have been
 * over the SLO had the operations that waited for a slot (1,400 us each, the queues full
 * a fifth of the time) waited in it. Queue-bound steps above the highest met one: the knee
 * is a lower bound, and the advice says to raise queue_depth, not that the storage
 * saturated.
 */
static void test_queue_bound_above(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\nqueue_depth: 16\n"
	              "workloads: [{name: rr, rw: randread, load: {steps: [1000]}}]\n");
	FLAT(l, 250);
	const struct headline_step s[] = {{40000, 40000, 0, l, 10, 0},
	                                  {44000, 44000, 0, l, 10, 1400},
	                                  {128000, 127000, 0, l, 10, 11000}};
	struct step_point pts[3];
	char text[1024];
	struct judged_curve j;

	(void)state;
	j = headline_judge(c, s, 3, pts, text, sizeof(text));
	assert_true(verdict_point(&pts[1]) & VERDICT_QUEUE_BOUND);
	assert_int_equal(j.knee.kind, KNEE_ALL_UNDER);
	assert_non_null(strstr(text, "): >= 40,000 ops/s: no step violated the SLO"));
	assert_non_null(strstr(text, "Change: the queues held operations back: raise queue_depth"));
	judged_free(&j);
	campaign_free(c);
}

/*
 * A stall in one interval of a middle step (the sim test's shape): its storage latency
 * straddles the SLO and the slot waits behind the stall could only add to it, so it is
 * undecided, not queue-bound. The steps above meet the SLO: the knee is a lower bound
 * whose band reaches down to the met step under the stall.
 */
static void test_stall_below(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\n"
	              "workloads: [{name: rr, rw: randread, load: {steps: [1000]}}]\n");
	FLAT(l, 240);
	static const double stall[5] = {240, 240, 4000, 240, 240};
	const struct headline_step s[] = {{1000, 1000, 0, l, 10, 0},
	                                  {2000, 2000, 0, stall, 5, 19000},
	                                  {3000, 3000, 0, l, 10, 0},
	                                  {4000, 4000, 0, l, 10, 0}};
	struct step_point pts[4];
	char text[1024];
	struct judged_curve j;

	(void)state;
	j = headline_judge(c, s, 4, pts, text, sizeof(text));
	assert_false(verdict_point(&pts[1]) & VERDICT_QUEUE_BOUND);
	assert_int_equal(verdict_judge(c, &pts[1]), VERDICT_UNDECIDED);
	assert_int_equal(j.knee.kind, KNEE_ALL_UNDER);
	assert_true(fabs(j.knee.band_lo - 1000) < 1e-6);
	assert_non_null(
	    strstr(text, "): >= 4,000 ops/s (a step below it undecided: 95% band from 1,000)"));
	judged_free(&j);
	campaign_free(c);
}

/* Intervals alternating under and over a 1 ms SLO: means 900, 980 and 1,100 us, each undecided. */
static const double und_a[10] = {400, 1400, 400, 1400, 400, 1400, 400, 1400, 400, 1400};
static const double und_b[10] = {480, 1480, 480, 1480, 480, 1480, 480, 1480, 480, 1480};
static const double und_d[10] = {600, 1600, 600, 1600, 600, 1600, 600, 1600, 600, 1600};

/*
 * Undecided steps between the met step and the violation carry the crossing: the knee
 * is where their means cross the SLO (between 3,000 at 980 us and 4,000 at 1,100 us:
 * 3,167), not the chord from the met step to the violation (1,800).
 */
static void test_undecided_carry_crossing(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\n"
	              "workloads: [{name: rr, rw: randread, load: {steps: [1000]}}]\n");
	FLAT(l, 500);
	FLAT(over, 3000);
	const struct headline_step s[] = {{1000, 1000, 0, l, 10},
	                                  {2000, 2000, 0, und_a, 10},
	                                  {3000, 3000, 0, und_b, 10},
	                                  {4000, 4000, 0, und_d, 10},
	                                  {5000, 5000, 0, over, 10}};
	struct step_point pts[5];
	char text[1024];
	struct judged_curve j;

	(void)state;
	j = headline_judge(c, s, 5, pts, text, sizeof(text));
	for (int i = 1; i <= 3; i++)
		assert_int_equal(verdict_judge(c, &pts[i]), VERDICT_UNDECIDED);
	assert_int_equal(verdict_judge(c, &pts[4]), VERDICT_VIOLATED);
	assert_int_equal(j.knee.kind, KNEE_INTERPOLATED);
	assert_true(fabs(j.knee.throughput - (3000 + 1000 * 20.0 / 120.0)) < 1);
	assert_true(j.knee.band_lo <= 1000 && j.knee.band_hi >= 4000);
	assert_non_null(strstr(text, "(interpolated between steps 3 and 4,"));
	judged_free(&j);
	campaign_free(c);
}

/*
 * Undecided steps between the met step and the violation where the one past the
 * crossing achieved less than the one before it (an M/M/64 run: 7,615 ops/s at 8.93 ms,
 * then 7,592 at 10.4 ms, SLO 9 ms): the knee is the highest step under the SLO, not
 * the met step far below (it fell back to 7,171, -4.3% of Erlang C's crossing).
 */
static void test_undecided_crossing_backwards(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\n"
	              "workloads: [{name: rr, rw: randread, load: {steps: [1000]}}]\n");
	FLAT(l, 500);
	FLAT(over, 3000);
	const struct headline_step s[] = {{1000, 1000, 0, l, 10},
	                                  {2000, 2000, 0, und_a, 10},
	                                  {3000, 3040, 0, und_b, 10},
	                                  {3100, 2990, 0, und_d, 10},
	                                  {5000, 5000, 0, over, 10}};
	struct step_point pts[5];
	char text[1024];
	struct judged_curve j;

	(void)state;
	j = headline_judge(c, s, 5, pts, text, sizeof(text));
	for (int i = 1; i <= 3; i++)
		assert_int_equal(verdict_judge(c, &pts[i]), VERDICT_UNDECIDED);
	assert_int_equal(j.knee.kind, KNEE_AT_STEP);
	/* what it sustained, never more than it was offered (3,040 is count noise) */
	assert_true(fabs(j.knee.throughput - 3000) < 1);
	assert_true(j.knee.band_lo <= 1000 && j.knee.band_hi >= 3000);
	/* the words name the step whose figure it is, not the met step under it */
	assert_non_null(strstr(text, "3,000 ops/s"));
	assert_non_null(strstr(text, "(measured at step 3,"));
	judged_free(&j);
	campaign_free(c);
}

/* Every step met the SLO: a lower bound, printed as one, never rounded up. */
static void test_lower_bound(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\n"
	              "workloads: [{name: rr, rw: randread, load: {steps: [1000]}}]\n");
	FLAT(l, 300);
	const struct headline_step s[] = {{8000, 8000, 0, l, 10}, {16000, 15999, 0, l, 10}};
	struct step_point pts[2];
	char text[1024];
	struct judged_curve j;

	(void)state;
	j = headline_judge(c, s, 2, pts, text, sizeof(text));
	assert_int_equal(j.knee.kind, KNEE_ALL_UNDER);
	assert_non_null(strstr(text, "): >= 15,999 ops/s: no step violated the SLO"));
	judged_free(&j);
	campaign_free(c);
}

/*
 * The answer at a glance, on 9f0d923's busy demo: a headline of at most 100 characters
 * that names whose metric ("storage mean"), the knee as three figures and its band,
 * the peak and the limit's word; the run's step table of 9 columns, each step's
 * verdict one word and the not-judged top step's reasons a numbered note under it.
 */
static void test_glance(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\n"
	              "workloads: [{name: randread-8k, rw: randread, load: {steps: [1000]}}]\n");
	static const double l64[10] = {470, 630, 470, 630, 470, 630, 470, 630, 470, 630};
	static const double l80[10] = {700, 1300, 700, 1300, 700, 1300, 700, 1300, 700, 1300};
	FLAT(l16, 200);
	FLAT(l128, 640);
	const struct headline_step s[] = {
	    {16000, 16000, 0, l16, 10},
	    {64000, 64004, 0, l64, 10},
	    {80000, 80000, 0, l80, 10},
	    {128000, 100500, 27500, l128, 10},
	};
	struct step_point pts[4];
	char text[1024], head[GLANCE_HEAD_MAX + 1], *table = NULL, *line, *save;
	size_t len = 0, rows = 0, notes = 0;
	struct judged_curve j;
	FILE *f;

	(void)state;
	j = headline_judge(c, s, 4, pts, text, sizeof(text));
	glance_headline(&j, head, sizeof(head));
	print_message("%s\n", head);
	assert_true(strlen(head) <= GLANCE_HEAD_MAX);
	assert_string_equal(head, "randread-8k  64.0k ops/s @ 1.00ms storage mean [64.0k-100.5k]  "
	                          "peak 100.5k  storage");
	f = open_memstream(&table, &len);
	assert_non_null(f);
	glance_steps(f, &j);
	fclose(f);
	print_message("%s", table);
	for (line = strtok_r(table, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t bars = 0;

		for (const char *p = line; *p; p++)
			bars += *p == '|';
		if (line[0] == '|') {
			assert_int_equal(bars, GLANCE_COLS + 1);
			rows++;
		} else {
			assert_true(strncmp(line, "[1] step 4: ", 12) == 0 || line[0] == ' ');
			assert_true(strlen(line) <= GLANCE_HEAD_MAX);
			notes += line[0] == '[';
		}
	}
	assert_int_equal(rows, 2 + 4);
	assert_int_equal(notes, 1);
	free(table);
	judged_free(&j);
	campaign_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_demo_98d45fe_randread),
	    cmocka_unit_test(test_glance),
	    cmocka_unit_test(test_demo_9f0d923_busy),
	    cmocka_unit_test(test_knee_at_peak),
	    cmocka_unit_test(test_lower_bound),
	    cmocka_unit_test(test_overload_violates),
	    cmocka_unit_test(test_queue_bound_above),
	    cmocka_unit_test(test_stall_below),
	    cmocka_unit_test(test_undecided_carry_crossing),
	    cmocka_unit_test(test_undecided_crossing_backwards),
	};

	return cmocka_run_group_tests_name("headline", tests, NULL, NULL);
}
