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
#include "figs.h"
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
	for (uint64_t k = 0; k < ops; k++) {
		hist_record(&rec->rec.latency, lat_ns);
		hist_record(&rec->rec.service, lat_ns);
	}
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
	for (uint64_t k = 0; k < ops; k++) {
		hist_record(&rec->rec.latency, (uint64_t)(lat_us * 1e3));
		hist_record(&rec->rec.service, (uint64_t)(lat_us * 1e3));
	}
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

/* The point of n measured seconds of 1000 ops at lat_us[i] each, judged on a 1 ms mean. */
static enum verdict_slo aggregate_judge(const double *lat_us, uint32_t n, struct step_point *pt)
{
	const char *names[1] = {"a"};
	struct campaign *c = testlib_campaign_ok(TEST_HEAD "workloads: [{name: a, load: "
	                                                   "{steps: [1000]}}]\n");
	struct agg_step *st = agg_step_new(1, names, n);
	enum verdict_slo v;

	for (uint32_t i = 0; i < n; i++)
		aggregate_iv(st, i, 1000, lat_us[i], 0, false);
	agg_set_window(st, 0, n);
	agg_point(st, 0, 1000, c, pt);
	v = verdict_judge(c, pt);
	agg_step_free(st);
	campaign_free(c);
	return v;
}

/*
 * One verdict from the step's own interval, every interval after the warm-up in it.
 * A latency that grows through an overloaded step (1 ms to 28 ms, mean 8.9 ms) is
 * violated: its interval on a log scale stays over the SLO (a normal one reached 0).
 * The demo's randread step at 56,000 ops/s of 0.2.0 (a 4.5 ms stall among intervals of
 * 400-1,350 us) keeps all ten in its mean (1,135.6 us) and is not met; before, a trend
 * rule cut five of them and published 561 us. A flat step under the SLO is met, a
 * spike does not decide anything by itself: it widens the interval.
 */
static void test_window_verdict(void **state)
{
	const double stall[10] = {558, 1354, 4541, 1062, 1035, 577, 581, 569, 681, 398};
	const double flat[10] = {500, 510, 490, 505, 495, 500, 510, 490, 505, 495};
	const double hiccup[10] = {300, 300, 300, 2000, 300, 300, 300, 300, 300, 300};
	const double spike[10] = {300, 300, 300, 5000, 300, 300, 300, 300, 300, 300};
	double grows[10];
	struct step_point *pt = calloc(1, sizeof(*pt));

	(void)state;
	assert_non_null(pt);
	for (int i = 0; i < 10; i++)
		grows[i] = 1000 * pow(1.45, i);
	assert_int_equal(aggregate_judge(grows, 10, pt), VERDICT_VIOLATED);
	assert_true(pt->metric_lo_ns > 1e6 && pt->metric_lo_ns >= pt->svc_p50_ns / 10);
	assert_int_equal(aggregate_judge(stall, 10, pt), VERDICT_UNDECIDED);
	assert_true(fabs(pt->svc_mean_ns - 1135600) < 0.01 * 1135600);
	assert_int_equal(pt->intervals, 10);
	assert_int_equal(aggregate_judge(flat, 10, pt), VERDICT_MET);
	/*
	 * A spike decides nothing by itself, it widens the interval: a 2 ms hiccup leaves a
	 * 470 us mean met (its interval reaches 723 us); a 5 ms one a 770 us mean undecided.
	 */
	assert_int_equal(aggregate_judge(hiccup, 10, pt), VERDICT_MET);
	assert_true(pt->metric_hi_ns > 600000 && pt->metric_hi_ns < 1000000);
	assert_int_equal(aggregate_judge(spike, 10, pt), VERDICT_UNDECIDED);
	assert_true(pt->metric_lo_ns >= 300000);
	free(pt);
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
	record_init(&r);
	record_error(&r, 0, 40960, "/t/w0.dat", "short read: file truncated to 4096 bytes");
	record_error(&r, 5, 8192, "/t/w1.dat", NULL); /* the first failure stays */
	assert_int_equal(r.errors, 2);
	assert_int_equal(r.err_errno, 0);
	assert_int_equal(r.err_offset, 40960);
	assert_string_equal(r.err_path, "/t/w0.dat");
	assert_string_equal(r.err_cause, "short read: file truncated to 4096 bytes");
	assert_true(record_err_kept(&r));

	/* errno 0 and no cause: still kept, in words that say what little is known. */
	record_init(&back);
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
	record_init(&r);
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
	uint64_t lat_ns, svc_ns, late_ns, slot_ns, reap_ns, late_100us, late_1ms, lag_max_ns,
	    steal_ppm, qd_full_ns;
	double host_pct;
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
		rec->host_cpu_pct = hv[i].host_pct;
		rec->rec.ops = 1000;
		rec->rec.lag_sum_ns = 1000 * (hv[i].late_ns + hv[i].slot_ns);
		rec->rec.lag_max_ns = hv[i].lag_max_ns;
		rec->rec.health_n = 1;
		rec->rec.issue_late_ns = 1000 * hv[i].late_ns;
		rec->rec.slot_wait_ns = 1000 * hv[i].slot_ns;
		rec->rec.reap_delay_ns = 1000 * hv[i].reap_ns;
		rec->rec.qd_full_ns = hv[i].qd_full_ns;
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

/*
 * Five measured seconds of 1000 ops each: service svc_ns (reaped reap_ns after the
 * storage completed them), and per op issue lateness late_ns and slot wait slot_ns.
 */
static void aggregate_point_health(const struct campaign *c, uint64_t svc_ns, uint64_t late_ns,
                                   uint64_t slot_ns, uint64_t reap_ns, struct step_point *pt)
{
	struct aggregate_hv hv[5];

	for (int i = 0; i < 5; i++)
		hv[i] = (struct aggregate_hv){.lat_ns = svc_ns + late_ns + slot_ns,
		                              .svc_ns = svc_ns,
		                              .late_ns = late_ns,
		                              .slot_ns = slot_ns,
		                              .reap_ns = reap_ns,
		                              .qd_full_ns = slot_ns > 0 ? 200000000 : 0};
	aggregate_health_step(c, hv, pt);
}

/*
 * The storage's latency is the SLO's; the client is blamed only where its part can have
 * moved the verdict (1 ms SLO). Issue lateness is not in the storage's latency: 120 us
 * of it leaves a 100 us step met and not client-bound (the old rule: 10% of the SLO).
 * Reap delay is: 1,050 us of service with 100 us of it reaped late is undecided or
 * violated only through the client (client-bound); 1.5 ms with the same 100 us is the
 * storage's. The queues are blamed the same way: queue-bound where the slot waits can
 * have hidden a violation.
 */
static void test_point_client_health(void **state)
{
	struct campaign *mean = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\nworkloads: [{name: a, load: {steps: [1000]}}]\n");
	struct campaign *due = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms, from: due}\nworkloads: [{name: a, load: {steps: "
	              "[1000]}}]\n");
	struct step_point *pt = calloc(1, sizeof(*pt));
	char words[512];

	(void)state;
	aggregate_point_health(mean, 100000, 120000, 0, 0, pt);
	assert_true(pt->client.known);
	assert_false(pt->client.bound);
	assert_true(fabs(pt->client.issue_late_ns - 120000) < 1e-6);
	assert_int_equal(verdict_judge(mean, pt), VERDICT_MET);
	assert_true(pt->client.lag_share >= 0 && pt->client.lag_share <= 1);
	aggregate_point_health(mean, 1050000, 5000, 0, 100000, pt);
	assert_true(pt->client.bound);
	assert_true(fabs(pt->client.slo_ns - 100000) < 1e-6);
	verdict_words(pt, verdict_point(pt), words, sizeof(words));
	assert_non_null(strstr(words, "client-bound (the client's 100us in the metric"));
	assert_int_equal(verdict_judge(mean, pt), VERDICT_NOT_JUDGED);
	aggregate_point_health(mean, 1500000, 5000, 0, 100000, pt);
	assert_false(pt->client.bound);
	assert_int_equal(verdict_judge(mean, pt), VERDICT_VIOLATED);
	/* from the due time: 950 us of service and 120 us of issue lateness */
	aggregate_point_health(due, 950000, 120000, 0, 0, pt);
	assert_true(pt->client.bound);
	aggregate_point_health(mean, 950000, 120000, 0, 0, pt);
	assert_false(pt->client.bound);
	assert_int_equal(verdict_judge(mean, pt), VERDICT_MET);
	/* 1,050 us of service with 120 us of issue lateness on a host with CPU to spare */
	aggregate_point_health(mean, 1050000, 120000, 0, 0, pt);
	assert_false(pt->client.bound);
	/*
	 * Slot waits that could have moved the verdict: 100 us of storage and 950 us of
	 * waiting for a slot would have been over the SLO in a storage with slots enough.
	 */
	aggregate_point_health(mean, 100000, 5000, 950000, 0, pt);
	assert_false(pt->client.bound);
	assert_true(verdict_point(pt) & VERDICT_QUEUE_BOUND);
	assert_true(pt->client.lag_share > 0.8 && pt->client.lag_share <= 1);
	verdict_words(pt, verdict_point(pt), words, sizeof(words));
	assert_non_null(strstr(words, "queue-bound: all "));
	assert_non_null(strstr(words, "slots held 20% of the time, operations waited 950us"));
	assert_non_null(strstr(words, "a worker holds 1 in flight: raise queue_depth above 1"));
	/* 500 us of slot waits on 100 us could not: the queue did not decide, it is met */
	aggregate_point_health(mean, 100000, 5000, 500000, 0, pt);
	assert_false(verdict_point(pt) & VERDICT_QUEUE_BOUND);
	assert_int_equal(verdict_judge(mean, pt), VERDICT_MET);
	/* the storage wholly over the SLO all the same: violated, whatever the queue did */
	aggregate_point_health(mean, 3000000, 5000, 500000, 0, pt);
	assert_false(verdict_point(pt) & VERDICT_QUEUE_BOUND);
	assert_int_equal(verdict_judge(mean, pt), VERDICT_VIOLATED);
	/*
	 * A host with no CPU to spare: the client's part has no bound (its bursts queue in
	 * the storage for longer than its lateness), so a step not met is client-bound,
	 * said so; a met one stays met. At 85% busy the bound holds again.
	 */
	{
		struct aggregate_hv hv[5];

		for (int i = 0; i < 5; i++)
			hv[i] = (struct aggregate_hv){.lat_ns = 2000000,
			                              .svc_ns = 2000000,
			                              .late_ns = 5000,
			                              .host_pct = i < 4 ? 97 : 85};
		aggregate_health_step(mean, hv, pt);
		assert_true(pt->client.host_busy_pct > 94 && pt->client.host_busy_pct < 95);
		assert_true(pt->client.bound);
		verdict_words(pt, verdict_point(pt), words, sizeof(words));
		assert_non_null(strstr(words, "client-bound (its host 95% busy through the step"));
		for (int i = 0; i < 5; i++)
			hv[i].svc_ns = hv[i].lat_ns = 500000;
		aggregate_health_step(mean, hv, pt);
		assert_false(pt->client.bound);
		assert_int_equal(verdict_judge(mean, pt), VERDICT_MET);
		for (int i = 0; i < 5; i++) {
			hv[i].svc_ns = hv[i].lat_ns = 2000000;
			hv[i].host_pct = 85;
		}
		aggregate_health_step(mean, hv, pt);
		assert_false(pt->client.bound);
		assert_int_equal(verdict_judge(mean, pt), VERDICT_VIOLATED);
	}
	free(pt);
	campaign_free(mean);
	campaign_free(due);
}

/*
 * A simulated device stamps its completions: its storage latency holds no reap delay,
 * so 1,050 us with 100 us of reap delay is the device's (violated or undecided, not
 * client-bound), where on a real file the same figures are client-bound.
 */
static void test_point_sim_client(void **state)
{
	struct campaign *sim = testlib_campaign_ok(
	    "campaign: t\nagents: {local: 1}\ntarget: {sim: {servers: 4, service_time: 1ms}}\n"
	    "slo: {latency: 1ms}\nworkloads: [{name: a, load: {steps: [1000]}}]\n");
	struct campaign *file = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\nworkloads: [{name: a, load: {steps: [1000]}}]\n");
	struct step_point *pt = calloc(1, sizeof(*pt));

	(void)state;
	aggregate_point_health(file, 1050000, 5000, 0, 100000, pt);
	agg_point_workload(pt, file, &file->workloads[0]);
	figs_client_workload(pt, file, &file->workloads[0]);
	assert_true(pt->client.bound);
	aggregate_point_health(sim, 1050000, 5000, 0, 100000, pt);
	agg_point_workload(pt, sim, &sim->workloads[0]);
	figs_client_workload(pt, sim, &sim->workloads[0]);
	assert_false(pt->client.bound);
	assert_true(pt->client.slo_ns == 0);
	assert_int_not_equal(verdict_judge(sim, pt), VERDICT_NOT_JUDGED);
	free(pt);
	campaign_free(sim);
	campaign_free(file);
}

/*
 * The metric's 95% interval by batch means on a log scale: ten intervals alternating
 * 100 us and 300 us (mean 200 us, sd of the logs 0.579) give 200 us x exp(+-t(0.975, 9)
 * 0.579 / sqrt(10)) = 132.2-302.6 us; ten equal ones a zero-width interval; one
 * interval none. Twenty
 * intervals with a 10 ms stall in the middle: two-interval batches, and the stall
 * widens the interval past the quiet intervals' 100 us.
 */
static void test_metric_ci(void **state)
{
	const char *names[1] = {"a"};
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\nworkloads: [{name: a, load: {steps: [1000]}}]\n");
	struct campaign *p99 =
	    testlib_campaign_ok(TEST_HEAD "slo: {latency: 1ms, metric: p99}\n"
	                                  "workloads: [{name: a, load: {steps: [1000]}}]\n");
	struct agg_step *st = agg_step_new(1, names, 20);
	struct step_point *pt = calloc(1, sizeof(*pt));
	double lo, hi;

	(void)state;
	assert_non_null(pt);
	for (uint32_t i = 0; i < 10; i++)
		aggregate_add_lat(st, 0, i, 100, 0, i % 2 ? 300000 : 100000);
	agg_set_window(st, 0, 10);
	agg_metric_ci(st, c, &lo, &hi);
	assert_true(fabs(lo - 132177) < 300 && fabs(hi - 302625) < 300);
	agg_point(st, 0, 100, c, pt);
	assert_true(pt->metric_lo_ns == lo && pt->metric_hi_ns == hi);
	agg_set_window(st, 0, 1);
	agg_metric_ci(st, c, &lo, &hi);
	assert_true(lo == 0 && hi == 0);
	agg_step_free(st);

	st = agg_step_new(1, names, 20);
	for (uint32_t i = 0; i < 20; i++)
		aggregate_add_lat(st, 0, i, 100, 0, i == 10 ? 10000000 : 100000);
	agg_set_window(st, 0, 20);
	agg_metric_ci(st, c, &lo, &hi);
	/* the window's mean: (19 x 100 + 10000) / 20 = 595 us, inside a wide interval */
	assert_true(lo < 595000 && hi > 595000 && hi - lo > 500000);
	/* never below the smallest latency measured */
	assert_true(lo >= 100000 * 0.99);
	agg_metric_ci(st, p99, &lo, &hi);
	assert_true(hi >= 9000000); /* the stall is 5% of the operations: p99 is in it */
	agg_step_free(st);

	st = agg_step_new(1, names, 10);
	for (uint32_t i = 0; i < 10; i++)
		aggregate_add_lat(st, 0, i, 100, 0, 100000);
	agg_set_window(st, 0, 10);
	agg_metric_ci(st, c, &lo, &hi);
	assert_true(hi - lo < 1 && fabs(lo - 100000) < 1000);
	free(pt);
	agg_step_free(st);
	campaign_free(c);
	campaign_free(p99);
}

/*
 * A fleet's interval stays a record every reader accepts: two agents' reports of 2^40
 * ops each (each passes record_check) merged into ops stopped at 2^40 with 2^41
 * latencies, a merged line serve wrote and `report` refused ("ops and 0 charged but
 * ... latencies"). The report that would take a sum past its bound is refused,
 * naming the counter, and the fleet's interval is as before it.
 */
static void test_merge_within_bounds(void **state)
{
	static const char *const names[] = {"a0", "a1"};
	struct agg_step *st = agg_step_new(2, names, 1);
	struct agg_record *rec = calloc(1, sizeof(*rec));
	const struct agg_record *m;
	struct error err = {{0}};

	(void)state;
	assert_non_null(rec);
	record_reset(&rec->rec);
	rec->duration_ns = 1000000000;
	rec->agents = 1;
	rec->workers = 1;
	rec->rec.ops = RECORD_COUNT_MAX;
	rec->rec.latency.count = rec->rec.latency.bins[hist_index(1000)] = RECORD_COUNT_MAX;
	rec->rec.latency.min = rec->rec.latency.max = 1000;
	rec->rec.latency.sum = 1000 * RECORD_COUNT_MAX;
	assert_int_equal(record_check(&rec->rec, &err), 0);
	assert_int_equal(agg_add_record(st, 0, 0, rec, &m, &err), 0);
	assert_int_equal(agg_add_record(st, 1, 0, rec, &m, &err), -1);
	assert_non_null(strstr(err.msg, "interval 0: the fleet's ops 1099511627776 would take"));
	/* the agent is lost from here on; what was merged is still a record */
	assert_int_equal(agg_drop_agent(st, 1), 0);
	m = agg_merged(st, 0);
	assert_non_null(m);
	if (record_check(&m->rec, &err) != 0)
		fail_msg("the fleet's interval is refused: %s", err.msg);
	assert_int_equal(m->rec.ops, RECORD_COUNT_MAX);
	free(rec);
	agg_step_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_report_cpu_share), cmocka_unit_test(test_point_client_health),
	    cmocka_unit_test(test_point_sim_client), cmocka_unit_test(test_point_keeps_agent_index),
	    cmocka_unit_test(test_point_then_drop),  cmocka_unit_test(test_record_error_cause),
	    cmocka_unit_test(test_due_in_window),    cmocka_unit_test(test_window_verdict),
	    cmocka_unit_test(test_metric_ci),        cmocka_unit_test(test_merge_within_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
