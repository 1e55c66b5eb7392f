/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for capabilities: the table agrees with the protocol, two peers agree,
 * and a report is cut to what they agreed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "caps.h"

/*
 * Every Capability of the protocol is one bit with a row in caps_known (its name in
 * logs and what goes without it), and this build has every one it knows: a bit
 * added to the proto without its row, or its row without CAPS_OURS, fails here.
 */
static void test_caps_table(void **state)
{
	const ProtobufCEnumDescriptor *d = &iocurve__capability__descriptor;
	uint64_t all = 0;

	for (unsigned i = 0; i < d->n_values; i++) {
		uint64_t bit = (uint64_t)d->values[i].value;
		size_t k;

		if (bit == 0)
			continue;
		assert_int_equal(bit & (bit - 1), 0); /* one bit */
		for (k = 0; k < caps_nknown && caps_known[k].bit != bit; k++)
			;
		if (k == caps_nknown)
			fail_msg("capability %s has no row in caps_known", d->values[i].name);
		assert_true(strlen(caps_known[k].name) > 0);
		assert_true(strlen(caps_known[k].without) > 0);
		all |= bit;
	}
	assert_int_equal(caps_nknown, __builtin_popcountll(all));
	assert_int_equal(CAPS_OURS, all);
	assert_true(CAPS_PROTOCOL_MIN >= 2);
	assert_true(CAPS_PROTOCOL_MIN <= IOCURVE__PROTOCOL_VERSION__PROTOCOL_VERSION_CURRENT);
}

/* A session uses what both sides have; a peer of 0.1.0 sends none. */
static void test_caps_agree(void **state)
{
	uint64_t wakes = IOCURVE__CAPABILITY__CAPABILITY_WAKES;

	assert_int_equal(caps_agree(CAPS_OURS, CAPS_OURS, "agent a (0.2.0)"), CAPS_OURS);
	assert_int_equal(caps_agree(CAPS_OURS, 0, "agent b (0.1.0)"), 0);
	/* Bits this build does not know (a newer peer's) are not used. */
	assert_int_equal(caps_agree(CAPS_OURS, CAPS_OURS | (1ull << 63), "agent c (9.0)"),
	                 CAPS_OURS);
	assert_int_equal(caps_agree(wakes, CAPS_OURS, "coordinator"), wakes);
}

/*
 * Without 'kinds' a report goes without latency per kind and its reads' bytes, in a
 * copy: the report itself keeps its parts for whoever frees it. With 'kinds', or
 * with nothing to cut, it is the report itself.
 */
static void test_caps_report(void **state)
{
	Iocurve__Histogram rd = IOCURVE__HISTOGRAM__INIT, wr = IOCURVE__HISTOGRAM__INIT;
	Iocurve__IntervalReport r = IOCURVE__INTERVAL_REPORT__INIT, scratch;
	const Iocurve__IntervalReport *got;

	r.ops = 10;
	r.reads = 7;
	r.bytes = 40960;
	r.read_bytes = 28672;
	r.read_latency = &rd;
	r.write_latency = &wr;
	assert_ptr_equal(caps_report(&r, CAPS_OURS, &scratch), &r);
	got =
	    caps_report(&r, CAPS_OURS & ~(uint64_t)IOCURVE__CAPABILITY__CAPABILITY_KINDS, &scratch);
	assert_ptr_equal(got, &scratch);
	assert_null(got->read_latency);
	assert_null(got->write_latency);
	assert_int_equal(got->read_bytes, 0);
	assert_int_equal(got->ops, 10);
	assert_int_equal(got->reads, 7);
	assert_int_equal(got->bytes, 40960);
	assert_ptr_equal(r.read_latency, &rd);
	assert_ptr_equal(r.write_latency, &wr);
	assert_int_equal(r.read_bytes, 28672);
	/* Read bytes alone stay, for record_check to refuse. */
	r.read_latency = r.write_latency = NULL;
	assert_ptr_equal(caps_report(&r, 0, &scratch), &r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_caps_table),
	    cmocka_unit_test(test_caps_agree),
	    cmocka_unit_test(test_caps_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
