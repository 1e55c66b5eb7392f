/* SPDX-License-Identifier: MIT */
/* Read and write apart in interval records: merge, checks, the wire, and a step's point. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "aggregate.h"
#include "iocurve.pb-c.h"
#include "record.h"
#include "testlib.h"

/* A worker's interval of reads (1 ms each) and writes (3 ms each), 4KiB blocks. */
static struct record *kinds_record(uint64_t reads, uint64_t writes)
{
	struct record *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	record_reset(r);
	for (uint64_t i = 0; i < reads + writes; i++) {
		bool w = i >= reads;
		uint64_t lat = w ? 3000000 : 1000000;

		r->ops++;
		r->bytes += 4096;
		hist_record(&r->latency, lat);
		if (w) {
			hist_record(&r->write_latency, lat);
		} else {
			r->reads++;
			r->read_bytes += 4096;
			hist_record(&r->read_latency, lat);
		}
	}
	return r;
}

static void expect_refused(const struct record *r, const char *msg)
{
	struct error err;

	assert_int_equal(record_check(r, &err), -1);
	assert_string_equal(err.msg, msg);
}

/* Merging adds the kinds as it adds the totals; an agent without them leaves them unknown. */
static void test_merge(void **state)
{
	struct record *a = kinds_record(7, 3), *b = kinds_record(14, 6), *old = kinds_record(5, 5);
	struct error err;

	(void)state;
	assert_true(record_kinds_known(a));
	record_merge(a, b);
	assert_int_equal(record_check(a, &err), 0);
	assert_int_equal(a->reads, 21);
	assert_int_equal(a->read_bytes, 21 * 4096);
	assert_int_equal(a->read_latency.count, 21);
	assert_int_equal(a->write_latency.count, 9);
	assert_int_equal(a->write_latency.sum, 9 * 3000000ull);
	assert_int_equal(hist_quantile(&a->write_latency, 99) / 1000, 3000000 / 1000);
	assert_true(record_kinds_known(a));
	/* An agent of an older release: reads counted, kinds not measured. */
	record_drop_kinds(old);
	assert_int_equal(record_check(old, &err), 0);
	assert_false(record_kinds_known(old));
	record_merge(a, old);
	assert_int_equal(record_check(a, &err), 0);
	assert_false(record_kinds_known(a));
	/* A record of no operations has them, trivially. */
	record_reset(old);
	assert_true(record_kinds_known(old));
	free(a);
	free(b);
	free(old);
}

/* Each breach of the kinds named with its counters. */
static void test_check(void **state)
{
	struct record *r = kinds_record(7, 3);
	struct error err;

	(void)state;
	r->read_bytes = r->bytes + 1;
	expect_refused(r, "read_bytes 40961 is more than bytes 40960");
	/* a file workload's reads (stat) move nothing: fewer bytes than reads is no breach */
	r->read_bytes = 3;
	assert_int_equal(record_check(r, &err), 0);
	r->read_bytes = 7 * 4096;
	r->reads = 6;
	expect_refused(r, "read_latency count 7 is more than reads 6");
	r->reads = 8;
	expect_refused(r, "write_latency count 3 is more than the writes (ops - reads) 2");
	r->reads = 7;
	assert_int_equal(record_check(r, &err), 0);
	r->read_latency.sum = 1;
	expect_refused(r, "read_latency sum_ns 1 is not 7 values in [1000000, 1000000]");
	free(r);
	/* read bytes with no read measured apart */
	r = kinds_record(4, 4);
	record_drop_kinds(r);
	r->read_bytes = 4096;
	expect_refused(r, "read_bytes 4096 without a read measured apart (read_latency empty)");
	free(r);
}

/* The wire: sent when measured, checked whole; an agent that sends them has every op. */
static void test_wire(void **state)
{
	Iocurve__IntervalReport wire = IOCURVE__INTERVAL_REPORT__INIT;
	struct record *r = kinds_record(7, 3), *back = calloc(1, sizeof(*back));
	struct error err;

	Iocurve__Histogram *w;

	(void)state;
	assert_non_null(back);
	record_encode(r, &wire);
	assert_non_null(wire.read_latency);
	assert_int_equal(wire.read_bytes, 7 * 4096);
	wire.interval = 2;
	assert_int_equal(record_decode(back, &wire, &err), 0);
	assert_int_equal(back->read_latency.count, 7);
	assert_int_equal(back->write_latency.sum, 3 * 3000000ull);
	/* one histogram, not the other */
	w = wire.write_latency;
	wire.write_latency = NULL;
	assert_int_equal(record_decode(back, &wire, &err), -1);
	assert_string_equal(err.msg,
	                    "interval 2: report with only one of read_latency and write_latency");
	wire.write_latency = w;
	record_encoded_free(&wire);
	/* the histograms sent but short of the ops: refused, not taken as partial */
	r->ops++;
	r->bytes += 4096;
	hist_record(&r->latency, 2000000);
	record_encode(r, &wire);
	wire.interval = 2;
	assert_int_equal(record_decode(back, &wire, &err), -1);
	assert_string_equal(err.msg, "interval 2: read_latency count 7 and write_latency count 3 "
	                             "are not reads 7 and writes (ops - reads) 4");
	record_encoded_free(&wire);
	/* not measured (an older agent's): neither sent, both empty on arrival */
	record_drop_kinds(r);
	record_encode(r, &wire);
	assert_null(wire.read_latency);
	assert_null(wire.write_latency);
	assert_int_equal(record_decode(back, &wire, &err), 0);
	assert_false(record_kinds_known(back));
	record_encoded_free(&wire);
	free(r);
	free(back);
}

/*
 * A step's point: per-kind ops/s, MiB/s and latency over the window, 2 agents merged;
 * with an agent that does not measure the kinds, ops/s only (not measured).
 */
static void test_point(void **state)
{
	const char *names[2] = {"a", "b"};
	struct campaign *c =
	    testlib_campaign_ok(TEST_HEAD "workloads: [{name: a, rw: randrw, "
	                                  "read_pct: 70, load: {steps: [100]}}]\n");
	struct step_point *pt = calloc(1, sizeof(*pt));

	(void)state;
	assert_non_null(pt);
	assert_true(agg_mixed(&c->workloads[0]));
	for (int old = 0; old < 2; old++) {
		struct agg_step *st = agg_step_new(2, names, 2);

		for (uint32_t i = 0; i < 2; i++)
			for (uint32_t a = 0; a < 2; a++) {
				struct agg_record *rec = calloc(1, sizeof(*rec));
				struct record *r = kinds_record(35, 15);
				const struct agg_record *m;
				struct error err;

				assert_non_null(rec);
				record_copy(&rec->rec, r);
				record_release(r);
				free(r);
				if (old && a == 1)
					record_drop_kinds(&rec->rec);
				rec->duration_ns = 1000000000;
				rec->agents = 1;
				rec->workers = 1;
				assert_true(agg_add_record(st, a, i, rec, &m, &err) >= 0);
				free(rec);
			}
		agg_point(st, 0, 100, c, pt);
		assert_int_equal(pt->ops, 200);
		assert_true(pt->kinds.read_ops_s == 70 && pt->kinds.write_ops_s == 30);
		assert_int_equal(pt->kinds.known, !old);
		if (!old) {
			assert_true(fabs(pt->kinds.read_mib_s - 70 * 4096 / 1048576.0) < 1e-9);
			assert_true(fabs(pt->kinds.write_mib_s - 30 * 4096 / 1048576.0) < 1e-9);
			assert_true(pt->kinds.read_mean_ns == 1000000 && pt->kinds.write_mean_ns == 3000000);
			assert_int_equal(pt->kinds.read_p99_ns, 1000000);
			assert_int_equal(pt->kinds.write_pct_ns[0], 3000000); /* p50 */
			assert_int_equal(pt->kinds.write_max_ns, 3000000);
		} else {
			assert_true(pt->kinds.read_mib_s == 0 && pt->kinds.read_mean_ns == 0);
		}
		agg_step_free(st);
	}
	free(pt);
	campaign_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_merge),
	    cmocka_unit_test(test_check),
	    cmocka_unit_test(test_wire),
	    cmocka_unit_test(test_point),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
