/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for mixes: the interleave gives each part exactly its share, a mix goes
 * through Prepare and back whole, and the agent's reading refuses each field out of
 * its bounds by name; a record's parts merge and encode with it.
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

#include "mix.h"
#include "record.h"

/* Over every 100 picks of shares 70/20/10 each part comes up exactly its share. */
static void test_mix_pick_exact(void **state)
{
	const uint32_t w[] = {70, 20, 10};
	int32_t credit[3] = {0};
	unsigned got[3] = {0}, run = 0, longest = 0, last = 9;

	(void)state;
	for (int k = 0; k < 1000; k++) {
		unsigned i = mix_pick(credit, w, 3);

		got[i]++;
		run = i == last ? run + 1 : 1;
		last = i;
		if (run > longest)
			longest = run;
		if (k % 100 == 99) {
			assert_int_equal(got[0], 70 * (k + 1) / 100);
			assert_int_equal(got[1], 20 * (k + 1) / 100);
			assert_int_equal(got[2], 10 * (k + 1) / 100);
		}
	}
	/* spread, not in blocks: the 70% part never runs more than 3 in a row */
	assert_true(longest <= 3);
}

static struct mix mix_oltp(void)
{
	struct mix m = {.nparts = 2};

	snprintf(m.parts[0].name, MIX_NAME_MAX, "reads");
	m.parts[0].share = 70;
	m.parts[0].rw = RW_RANDREAD;
	m.parts[0].block_size = 16384;
	m.parts[0].sizes = (struct mix_sizes){2, {{8192, 50}, {16384, 50}}};
	snprintf(m.parts[1].name, MIX_NAME_MAX, "log");
	m.parts[1].share = 30;
	m.parts[1].rw = RW_WRITE;
	m.parts[1].block_size = 65536;
	return m;
}

static void test_mix_wire(void **state)
{
	struct mix m = mix_oltp(), back;
	struct mix_wire *w = calloc(1, sizeof(*w));
	Iocurve__Prepare p = IOCURVE__PREPARE__INIT;
	struct error err;

	(void)state;
	mix_to_prepare(&m, w, &p);
	p.block_size = 65536;
	assert_int_equal(mix_from_prepare(&p, &back, &err), 0);
	assert_int_equal(back.nparts, 2);
	assert_string_equal(back.parts[1].name, "log");
	assert_int_equal(back.parts[0].sizes.n, 2);
	assert_int_equal(back.parts[0].sizes.s[1].bytes, 16384);
	assert_int_equal(back.parts[1].rw, RW_WRITE);
	assert_true(fabs(mix_mean_bytes(&back, 65536) - (0.7 * 12288 + 0.3 * 65536)) < 1e-6);
	/* each field out of its bounds, named */
	p.block_size = 16384;
	assert_int_equal(mix_from_prepare(&p, &back, &err), -1);
	assert_string_equal(err.msg, "Prepare field block_size 16384 is not the largest block of "
	                             "the mix (65536)");
	p.block_size = 65536;
	w->parts[1].share = 40;
	assert_int_equal(mix_from_prepare(&p, &back, &err), -1);
	assert_string_equal(err.msg, "Prepare field mix: its parts' shares add up to 110, not 100");
	w->parts[1].share = 30;
	w->sizes[0][0].pct = 40;
	assert_int_equal(mix_from_prepare(&p, &back, &err), -1);
	assert_string_equal(err.msg,
	                    "Prepare field mix[0].sizes: its shares add up to 90, not 100");
	w->sizes[0][0].pct = 50;
	w->parts[1].name = "log";
	w->parts[0].name = "log";
	assert_int_equal(mix_from_prepare(&p, &back, &err), -1);
	assert_string_equal(err.msg, "Prepare field mix[1].name 'log' names an earlier part too");
	w->parts[0].name = "reads";
	w->parts[1].block_size = 1000;
	assert_int_equal(mix_from_prepare(&p, &back, &err), -1);
	assert_string_equal(err.msg, "Prepare field mix[1].block_size 1000 is out of its bounds "
	                             "(512..16777216, a multiple of 512)");
	free(w);
}

/* A record's parts go over the wire and merge; a part that does not add up is refused. */
static void test_record_parts(void **state)
{
	struct record *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	Iocurve__IntervalReport r = IOCURVE__INTERVAL_REPORT__INIT;
	struct error err;

	(void)state;
	record_init(a);
	record_init(b);
	record_parts_use(a, 2);
	for (int i = 0; i < 3; i++) {
		int k = i < 2 ? 0 : 1;

		a->ops++;
		a->reads += k == 0;
		a->bytes += k == 0 ? 8192 : 65536;
		a->read_bytes += k == 0 ? 8192 : 0;
		hist_record(&a->latency, 1000);
		hist_record(k == 0 ? &a->read_latency : &a->write_latency, 1000);
		a->parts[k].ops++;
		a->parts[k].reads += k == 0;
		a->parts[k].bytes += k == 0 ? 8192 : 65536;
		hist_record(&a->parts[k].latency, 1000 + 100 * (uint64_t)k);
	}
	assert_int_equal(record_check_parts(a, &err), 0);
	record_encode(a, &r);
	assert_int_equal(r.n_parts, 2);
	assert_int_equal(record_decode(b, &r, &err), 0);
	assert_int_equal(b->nparts, 2);
	assert_int_equal(b->parts[1].bytes, 65536);
	assert_int_equal(b->parts[1].latency.max, 1100);
	record_merge(b, a);
	assert_int_equal(b->parts[0].ops, 4);
	assert_int_equal(b->parts[0].latency.count, 4);
	assert_int_equal(record_check_parts(b, &err), 0);
	r.parts[1]->ops = 2;
	assert_int_equal(record_decode(b, &r, &err), -1);
	r.parts[1]->ops = 1;
	record_encoded_free(&r);
	/* a part's errors and storage latencies travel, within the record's */
	a->errors = 2;
	a->parts[1].errors = 2;
	hist_record(&a->parts[1].service, 700);
	assert_int_equal(record_check_parts(a, &err), 0);
	record_encode(a, &r);
	assert_int_equal(record_decode(b, &r, &err), 0);
	assert_int_equal(b->parts[1].errors, 2);
	assert_int_equal(b->parts[1].service.count, 1);
	assert_int_equal(b->parts[0].service.count, 0);
	r.parts[1]->errors = 3;
	assert_int_equal(record_decode(b, &r, &err), -1);
	assert_non_null(strstr(err.msg, "part 1: errors 3 (of the record's 2)"));
	r.parts[1]->errors = 2;
	r.parts[1]->service->count = 5;
	assert_int_equal(record_decode(b, &r, &err), -1);
	record_encoded_free(&r);
	record_release(a);
	record_release(b);
	free(a);
	free(b);
}

/*
 * A record's parts are its own allocation, made only for a mix: a plain record carries
 * a pointer, not eight histograms; a copy has its own parts (changing one leaves the
 * other alone, and both free without a double free); a merge into a record without
 * parts makes them; a reset frees them.
 */
static void test_record_parts_owned(void **state)
{
	struct record *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));

	(void)state;
	/* the parts member is a pointer and a count, not eight histograms (~37 KB each) inline */
	assert_true(sizeof(struct record) - offsetof(struct record, nparts) < sizeof(struct hist));
	record_init(a);
	record_init(b);
	assert_null(a->parts);
	record_parts_use(a, 3);
	assert_non_null(a->parts);
	assert_int_equal(a->nparts, 3);
	a->parts[2].ops = 7;
	hist_record(&a->parts[2].latency, 5000);
	/* never fewer parts than it has: a merge of a record of 2 keeps the third */
	record_parts_use(a, 2);
	assert_int_equal(a->nparts, 3);
	assert_int_equal(a->parts[2].ops, 7);

	record_copy(b, a);
	assert_int_equal(b->nparts, 3);
	assert_ptr_not_equal(b->parts, a->parts);
	assert_int_equal(b->parts[2].latency.max, 5000);
	b->parts[2].ops = 9;
	assert_int_equal(a->parts[2].ops, 7);

	/*
	 * Emptied, b keeps its parts' memory for its next use, each part empty (its bins
	 * too: only those in use were written); merged into, dst's own parts, summed.
	 */
	record_reset(b);
	assert_non_null(b->parts);
	assert_int_equal(b->nparts, 0);
	assert_int_equal(b->parts_cap, 3);
	assert_int_equal(b->parts[2].ops, 0);
	assert_int_equal(b->parts[2].latency.count, 0);
	assert_int_equal(b->parts[2].latency.bins[hist_index(5000)], 0);
	record_merge(b, a);
	record_merge(b, a);
	assert_ptr_not_equal(b->parts, a->parts);
	assert_int_equal(b->parts[2].ops, 14);
	assert_int_equal(b->parts[2].latency.count, 2);
	assert_int_equal(a->parts[2].ops, 7);

	/* a copy of a plain record drops dst's parts */
	record_reset(a);
	record_copy(b, a);
	assert_null(b->parts);
	assert_int_equal(b->nparts, 0);
	record_release(a);
	record_release(b);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mix_pick_exact),
	    cmocka_unit_test(test_mix_wire),
	    cmocka_unit_test(test_record_parts),
	    cmocka_unit_test(test_record_parts_owned),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
