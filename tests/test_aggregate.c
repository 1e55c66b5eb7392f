/* SPDX-License-Identifier: MIT */
/* Merging agents' interval records into a step: agent indexes stay put across agg_point. */
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "aggregate.h"
#include "curve.h"
#include "iocurve.pb-c.h"
#include "testlib.h"
#include "verdict.h"

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
 * One merged second of interval `interval` from a lone agent: `ops` operations at
 * lat_us each, the backlog `missed` at its end; a warm-up one when warmup.
 */
static void aggregate_iv(struct agg_step *st, uint32_t interval, uint64_t ops, double lat_us,
                         uint64_t missed, bool warmup)
{
	struct agg_record *rec = calloc(1, sizeof(*rec));
	const struct agg_record *merged;
	struct error err;

	assert_non_null(rec);
	record_reset(&rec->rec);
	rec->duration_ns = 1000000000;
	rec->agents = 1;
	rec->workers = 1;
	rec->warmup = warmup;
	rec->rec.ops = ops;
	rec->rec.missed = missed;
	for (uint64_t k = 0; k < ops; k++)
		hist_record(&rec->rec.latency, (uint64_t)(lat_us * 1e3));
	assert_true(agg_add_record(st, 0, interval, rec, &merged, &err) >= 0);
	free(rec);
}

/*
 * Due is the window's: a backlog of 500 built in the warm-up and held level
 * through the window is not due in it. The window completed every operation that
 * fell due in it (1000 a second), so it is not behind; counting the warm-up's
 * backlog made it "behind (91% of due)".
 */
static void test_due_in_window(void **state)
{
	const char *names[1] = {"a"};
	struct campaign *c = testlib_campaign_ok(TEST_HEAD "workloads: [{name: a, load: "
	                                                   "{steps: [1000]}}]\n");
	struct agg_step *st = agg_step_new(1, names, 7);
	struct step_point *pt = calloc(1, sizeof(*pt));

	(void)state;
	assert_non_null(pt);
	aggregate_iv(st, 0, 800, 100, 200, true);
	aggregate_iv(st, 1, 700, 100, 500, true);
	for (uint32_t i = 2; i < 7; i++)
		aggregate_iv(st, i, 1000, 100, 500, false);
	agg_set_window(st, 2, 7);
	agg_point(st, 0, 1000, c, pt);
	assert_int_equal(pt->ops, 5000);
	assert_int_equal(pt->missed, 500);
	assert_int_equal(pt->missed_before, 500);
	assert_true(verdict_due(pt) == 5000);
	assert_true(verdict_achieved_pct(pt) == 100);
	assert_false(verdict_point(pt) & VERDICT_BEHIND);

	/* a backlog that grows in the window from 500 to 1500 is due in it: 83% */
	agg_step_free(st);
	st = agg_step_new(1, names, 7);
	aggregate_iv(st, 0, 800, 100, 200, true);
	aggregate_iv(st, 1, 700, 100, 500, true);
	for (uint32_t i = 2; i < 7; i++)
		aggregate_iv(st, i, 1000, 100, 500 + 200 * (i - 1), false);
	agg_set_window(st, 2, 7);
	agg_point(st, 0, 1000, c, pt);
	assert_true(verdict_due(pt) == 6000);
	assert_true(verdict_point(pt) & VERDICT_BEHIND);
	free(pt);
	agg_step_free(st);
	campaign_free(c);
}

/* The step judged with a window starting at `from` of intervals whose metric is lat_us[i]. */
static bool aggregate_trends(const double *lat_us, uint32_t n)
{
	const char *names[1] = {"a"};
	struct agg_step *st = agg_step_new(1, names, n);
	bool trends;

	for (uint32_t i = 0; i < n; i++)
		aggregate_iv(st, i, 1000, lat_us[i], 0, false);
	trends = agg_window_trends(st, 0, n, SLO_MEAN);
	agg_step_free(st);
	return trends;
}

/*
 * A trend is a drift at the window's start (the warm-up may take it); a spike,
 * at the start or in the middle, is not: it stays in the window.
 */
static void test_window_trends(void **state)
{
	const double settling[] = {400, 300, 220, 160, 130, 110, 100, 100, 100, 100};
	const double rising[] = {100, 150, 220, 300, 380, 450, 500, 520, 530, 530};
	const double spike_first[] = {1000, 150, 120, 110, 100, 100, 100, 100, 100, 100};
	const double spike_mid[] = {100, 100, 100, 100, 5000, 300, 100, 100, 100, 100};
	const double flat[] = {100, 101, 102, 100, 101, 102, 100, 101, 102, 100};
	/* a client's hiccup at the start, then a stall: the stall sways the halves */
	const double hiccup_stall[] = {270, 204, 106, 133, 129, 178000, 167, 120, 108, 106};

	(void)state;
	assert_true(aggregate_trends(settling, 10));
	assert_true(aggregate_trends(rising, 10));
	assert_false(aggregate_trends(spike_first, 10));
	assert_false(aggregate_trends(spike_mid, 10));
	assert_false(aggregate_trends(flat, 10));
	assert_false(aggregate_trends(hiccup_stall, 10));
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

/*
 * A failure without an errno (a short read, a file deleted) keeps its path, offset
 * and cause: record_error, the merge, the wire and the step point all carry them,
 * and the words name the cause and the file. They dropped both when errno was 0.
 */
static void test_record_error_cause(void **state)
{
	const char *names[2] = {"zeta", "alpha"};
	struct campaign *c = testlib_campaign_ok(TEST_HEAD "workloads: [{name: a, load: "
	                                                   "{steps: [1000]}}]\n");
	struct agg_step *st = agg_step_new(2, names, 1);
	struct step_point *pt = calloc(1, sizeof(*pt));
	struct agg_record *rec = calloc(2, sizeof(*rec));
	Iocurve__IntervalReport wire = IOCURVE__INTERVAL_REPORT__INIT;
	const struct step_point *first;
	const struct agg_record *m;
	struct record r, back;
	struct error err;
	char words[256];

	(void)state;
	assert_non_null(pt);
	assert_non_null(rec);
	record_reset(&r);
	record_error(&r, 0, 40960, "/t/w0.dat", "short read: file truncated to 4096 bytes");
	record_error(&r, 5, 8192, "/t/w1.dat", NULL); /* the first failure stays */
	assert_int_equal(r.errors, 2);
	assert_int_equal(r.err_errno, 0);
	assert_int_equal(r.err_offset, 40960);
	assert_string_equal(r.err_path, "/t/w0.dat");
	assert_string_equal(r.err_cause, "short read: file truncated to 4096 bytes");
	assert_true(record_err_kept(&r));

	/* errno 0 and no cause: still kept, in words that say what little is known. */
	record_reset(&back);
	record_error(&back, 0, 512, "/t/w2.dat", NULL);
	assert_string_equal(back.err_path, "/t/w2.dat");
	assert_int_equal(back.err_offset, 512);
	assert_string_equal(back.err_cause, "short transfer");
	/* An errno without a cause: the errno's name, as before. */
	record_reset(&back);
	record_error(&back, 5, 0, "/dev/x", NULL);
	record_err_words(back.err_errno, back.err_cause, words, sizeof(words));
	assert_string_equal(words, "EIO");
	record_err_words(5, "file deleted", words, sizeof(words));
	assert_string_equal(words, "file deleted (EIO)");

	/* Merging keeps the first kept failure, errno or not. */
	record_reset(&back);
	record_merge(&back, &r);
	assert_string_equal(back.err_cause, r.err_cause);
	assert_int_equal(back.err_offset, 40960);

	/* The wire (IntervalReport.err_cause) both ways. */
	r.ops = 0;
	record_encode(&r, &wire);
	assert_string_equal(wire.err_cause, "short read: file truncated to 4096 bytes");
	assert_int_equal(record_decode(&back, &wire, &err), 0);
	record_encoded_free(&wire);
	assert_string_equal(back.err_cause, r.err_cause);
	assert_string_equal(back.err_path, "/t/w0.dat");
	assert_int_equal(back.err_offset, 40960);

	/* Into the step: agent zeta's failure, named with its agent, file and cause. */
	for (int a = 0; a < 2; a++) {
		record_reset(&rec[a].rec);
		rec[a].duration_ns = 1000000000;
		rec[a].agents = 1;
		rec[a].workers = 1;
		rec[a].rec.ops = 10;
		for (int k = 0; k < 10; k++)
			hist_record(&rec[a].rec.latency, 100000);
	}
	record_error(&rec[0].rec, 0, 4096, "/t/local-0-w0.dat", "file deleted");
	assert_true(agg_add_record(st, 1, 0, &rec[1], &m, &err) >= 0);
	assert_true(agg_add_record(st, 0, 0, &rec[0], &m, &err) >= 0);
	m = agg_merged(st, 0);
	assert_string_equal(m->err_agent, "zeta");
	assert_string_equal(m->rec.err_cause, "file deleted");
	agg_point(st, 0, 1000, c, pt);
	assert_int_equal(pt->errors, 1);
	assert_string_equal(pt->err_cause, "file deleted");
	assert_string_equal(pt->err_agent, "zeta");
	assert_int_equal(pt->err_offset, 4096);
	assert_int_equal(curve_errors(pt, 1, &first), 1);
	assert_ptr_equal(first, pt);
	curve_error_words(first, 1, words, sizeof(words));
	assert_string_equal(words, "file deleted on /t/local-0-w0.dat");
	free(rec);
	free(pt);
	agg_step_free(st);
	campaign_free(c);
}

/*
 * An agent's host CPU share is checked as it arrives: out of [0, 100] refused with
 * the field and value (1e308 once made serve abort deriving the step), a little
 * over 100 from an older agent's /proc/stat jitter read as 100.
 */
static void test_report_cpu_share(void **state)
{
	static const struct {
		double in, out; /* out < 0: refused */
	} cases[] = {{0, 0},    {42.5, 42.5}, {100, 100},  {103, 100},
	             {106, -1}, {-1, -1},     {1e308, -1}, {-1e308, -1}};
	Iocurve__IntervalReport wire = IOCURVE__INTERVAL_REPORT__INIT;
	struct agg_record *rec = calloc(1, sizeof(*rec));
	struct record r;
	struct error err;
	char want[64];

	(void)state;
	assert_non_null(rec);
	record_reset(&r);
	record_encode(&r, &wire);
	wire.duration_ns = 1000000000;
	wire.interval = 4;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		wire.host_cpu_pct = cases[i].in;
		if (cases[i].out >= 0) {
			assert_int_equal(agg_record_from_report(rec, &wire, &err), 0);
			assert_true(rec->host_cpu_pct == cases[i].out);
			continue;
		}
		assert_int_equal(agg_record_from_report(rec, &wire, &err), -1);
		snprintf(want, sizeof(want), "interval 4: host_cpu_pct %g is outside [0, 100]",
		         cases[i].in);
		assert_string_equal(err.msg, want);
	}
	wire.host_cpu_pct = NAN;
	assert_int_equal(agg_record_from_report(rec, &wire, &err), -1);
	assert_string_equal(err.msg, "interval 4: host_cpu_pct nan is outside [0, 100]");
	record_encoded_free(&wire);
	free(rec);
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
 * One measured second of a lone agent whose client reports its health: 1000 ops at
 * lat_ns, service svc_ns; per op, issue lateness late_ns and slot wait slot_ns; the
 * ops the client delayed over 100 us and over 1 ms, its longest lag, host steal.
 */
struct aggregate_hv {
	uint64_t lat_ns, svc_ns, late_ns, slot_ns, late_100us, late_1ms, lag_max_ns, steal_ppm;
};

/* The point of five such seconds. */
static void aggregate_health_step(const struct campaign *c, const struct aggregate_hv *hv,
                                  struct step_point *pt)
{
	struct agg_step *st = agg_step_new(1, (const char *const[]){"a"}, 5);
	struct agg_record *rec = calloc(1, sizeof(*rec));
	const struct agg_record *merged;
	struct error err;

	assert_non_null(rec);
	for (uint32_t i = 0; i < 5; i++) {
		record_reset(&rec->rec);
		rec->duration_ns = 1000000000;
		rec->agents = rec->workers = 1;
		rec->rec.ops = 1000;
		rec->rec.lag_sum_ns = 1000 * (hv[i].late_ns + hv[i].slot_ns);
		rec->rec.lag_max_ns = hv[i].lag_max_ns;
		rec->rec.health_n = 1;
		rec->rec.issue_late_ns = 1000 * hv[i].late_ns;
		rec->rec.slot_wait_ns = 1000 * hv[i].slot_ns;
		rec->rec.late_10us = hv[i].late_1ms;
		rec->rec.late_100us = hv[i].late_100us;
		rec->rec.late_1ms = hv[i].late_1ms;
		rec->rec.steal_ppm = hv[i].steal_ppm;
		for (uint64_t k = 0; k < 1000; k++) {
			hist_record(&rec->rec.latency, hv[i].lat_ns);
			hist_record(&rec->rec.service, hv[i].svc_ns);
		}
		assert_true(agg_add_record(st, 0, i, rec, &merged, &err) >= 0);
	}
	agg_point(st, 0, 1000, c, pt);
	free(rec);
	agg_step_free(st);
}

/* Five measured seconds of 1000 ops each at 100 us, with the client's delays given per op. */
static void aggregate_point_health(const struct campaign *c, uint64_t late_ns, uint64_t slot_ns,
                                   uint64_t late_100us, uint64_t steal_ppm, struct step_point *pt)
{
	struct aggregate_hv hv[5];

	for (int i = 0; i < 5; i++)
		hv[i] = (struct aggregate_hv){.lat_ns = 100000 + late_ns + slot_ns,
		                              .svc_ns = 100000,
		                              .late_ns = late_ns,
		                              .slot_ns = slot_ns,
		                              .late_100us = late_100us,
		                              .steal_ppm = steal_ppm};
	aggregate_health_step(c, hv, pt);
}

/*
 * The disturbed-client rule (1 ms SLO): the client's own delay over 10% of it on
 * average, or a p99 SLO's tail (over 0.5% of ops delayed over 100 us), or steal over
 * 10%; slot waits (the queue depth's) never count; lag_share stays within [0, 1].
 */
static void test_point_client_health(void **state)
{
	struct campaign *mean = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\nworkloads: [{name: a, load: {steps: [1000]}}]\n");
	struct campaign *p99 =
	    testlib_campaign_ok(TEST_HEAD "slo: {latency: 1ms, metric: p99}\n"
	                                  "workloads: [{name: a, load: {steps: [1000]}}]\n");
	struct step_point *pt = calloc(1, sizeof(*pt));

	(void)state;
	aggregate_point_health(mean, 20000, 0, 0, 0, pt);
	assert_true(pt->health_known);
	assert_false(pt->client_bound);
	assert_true(fabs(pt->issue_late_ns - 20000) < 1e-6);
	assert_true(pt->lag_share >= 0 && pt->lag_share <= 1);
	aggregate_point_health(mean, 120000, 0, 0, 0, pt);
	assert_true(pt->client_bound);
	/* a queue-depth-bound step: long slot waits, the client on time */
	aggregate_point_health(mean, 5000, 5000000, 0, 0, pt);
	assert_false(pt->client_bound);
	assert_true(pt->lag_share > 0.9 && pt->lag_share <= 1);
	/* the tail: 0.4% of ops late is within half the p99's 1%, 0.6% is not */
	aggregate_point_health(p99, 20000, 0, 4, 0, pt);
	assert_false(pt->client_bound);
	assert_true(pt->late_over_ns == 100000 && fabs(pt->late_pct - 0.4) < 1e-9);
	aggregate_point_health(p99, 20000, 0, 6, 0, pt);
	assert_true(pt->client_bound);
	aggregate_point_health(mean, 20000, 0, 0, 150000, pt);
	assert_true(pt->client_bound && fabs(pt->steal_pct - 15) < 1e-9);
	free(pt);
	campaign_free(mean);
	campaign_free(p99);
}

/*
 * Five measured seconds from a lone agent: interval i at lat_us[i], stalls[i] ops
 * delayed by the client over 1 ms (longest lag 2 ms), and slot_us of slot wait per
 * op in every interval without a stall.
 */
static void aggregate_stalls(const struct campaign *c, const double *lat_us, const uint64_t *stalls,
                             uint64_t slot_us, struct step_point *pt)
{
	struct aggregate_hv hv[5];

	for (int i = 0; i < 5; i++)
		hv[i] = (struct aggregate_hv){.lat_ns = (uint64_t)(lat_us[i] * 1e3),
		                              .svc_ns = (uint64_t)(lat_us[i] * 1e3),
		                              .late_ns = 5000 + stalls[i] * 2000,
		                              .slot_ns = stalls[i] ? 0 : slot_us * 1000,
		                              .late_100us = stalls[i],
		                              .late_1ms = stalls[i],
		                              .lag_max_ns = stalls[i] ? 2000000 : 5000};
	aggregate_health_step(c, hv, pt);
}

/*
 * A stalled client issues what fell due in one burst, and a device with little
 * spare capacity queues it into the next interval: a window unsteady only through
 * the intervals with a client stall (over 1 ms, the 1 ms SLO's decade) and the one
 * after each is the client's (client-bound, retried), not the device's. The same
 * spike with no stall is the device's; so is one two intervals after the stall; so
 * is any when the queues waited for slots where the client did not stall; and so is
 * a service time beyond the stall's lag (2 ms) plus the usual (the device stalled).
 */
static void test_point_client_stalls(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\nworkloads: [{name: a, load: {steps: [1000]}}]\n");
	struct step_point *pt = calloc(1, sizeof(*pt));
	const double spike[5] = {200, 600, 450, 200, 200};
	const uint64_t stall1[5] = {0, 40, 0, 0, 0}, none[5] = {0}, early[5] = {40, 0, 0, 0, 0};
	char words[256];

	(void)state;
	aggregate_stalls(c, spike, stall1, 0, pt);
	assert_false(pt->steady);
	assert_int_equal(pt->client_stalls, 1);
	assert_true(pt->client_bound && pt->stall_unsteady);
	verdict_words(pt, verdict_point(pt), words, sizeof(words));
	assert_string_equal(words, "unsteady, client-bound (client stalls over 1000us in 1 of 5 "
	                           "intervals made it unsteady)");
	assert_false(verdict_violates(c, pt));
	aggregate_stalls(c, spike, none, 0, pt);
	assert_false(pt->steady);
	assert_false(pt->client_bound);
	assert_int_equal(pt->client_stalls, 0);
	aggregate_stalls(c, spike, early, 0, pt);
	assert_false(pt->client_bound);
	assert_int_equal(pt->client_stalls, 1);
	aggregate_stalls(c, spike, stall1, 50, pt);
	assert_false(pt->client_bound);
	/* the device stalled 10 ms in the interval the client stalled 2 ms: its own */
	aggregate_stalls(c, (const double[5]){200, 10000, 200, 200, 200}, stall1, 0, pt);
	assert_false(pt->steady);
	assert_false(pt->client_bound);
	free(pt);
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
	    cmocka_unit_test(test_report_cpu_share),
	    cmocka_unit_test(test_point_client_health),
	    cmocka_unit_test(test_point_client_stalls),
	    cmocka_unit_test(test_point_keeps_agent_index),
	    cmocka_unit_test(test_point_then_drop),
	    cmocka_unit_test(test_record_error_cause),
	    cmocka_unit_test(test_due_in_window),
	    cmocka_unit_test(test_window_trends),
	    cmocka_unit_test(test_metric_ci),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
