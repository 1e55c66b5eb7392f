/* SPDX-License-Identifier: MIT */
/* Unit tests for the histogram's wire form: the (gap, count) varints, both ways, and refusals. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hist.h"
#include "hist_test.h"
#include "iocurve.pb-c.h"
#include "xalloc.h"

/* The sparse form by hand: (gap, count) for non-empty bins, first gap is the index. */
static void test_hist_encode_layout(void **state)
{
	struct hist *h = hist_test_new();
	Iocurve__Histogram m;

	(void)state;
	hist_record(h, 5);
	hist_record(h, 5);
	hist_record(h, 7);
	hist_record(h, 300); /* index 256 + 150 - 128 = 278 */
	assert_int_equal(hist_index(300), 278);
	hist_encode(h, &m);
	assert_int_equal(m.sub_bucket_bits, HIST_SUB_BITS);
	assert_int_equal(m.count, 4);
	assert_int_equal(m.sum, 317);
	assert_int_equal(m.min, 5);
	assert_int_equal(m.max, 300);
	/* 5, 2, 1, 1, 270, 1 as varints: 270 takes two bytes, low seven bits first. */
	assert_int_equal(m.bins.len, 7);
	assert_memory_equal(m.bins.data, ((uint8_t[]){5, 2, 1, 1, 0x8e, 0x02, 1}), 7);
	hist_encoded_free(&m);
	assert_null(m.bins.data);
	assert_int_equal(m.bins.len, 0);
	free(h);
}

/*
 * A Histogram as agents up to 0.2.0 packed it, by hand: bins as `repeated uint64`,
 * packed (field 6, length-delimited, varints), is what bytes bins reads.
 */
static void test_hist_reads_packed_repeated(void **state)
{
	/* sub_bucket_bits 7, count 4, sum 317, min 5, max 300, bins {5, 2, 1, 1, 270, 1} */
	const uint8_t old[] = {0x08, 7,    0x10, 4, 0x18, 0xbd, 0x02, 0x20, 5,    0x28, 0xac,
	                       0x02, 0x32, 7,    5, 2,    1,    1,    0x8e, 0x02, 1};
	struct hist *h = hist_test_new(), *want = hist_test_new();
	Iocurve__Histogram *un, m;
	struct error err = {{0}};
	uint8_t buf[64];

	(void)state;
	un = iocurve__histogram__unpack(NULL, sizeof(old), old);
	assert_non_null(un);
	if (hist_decode(h, un, &err) != 0)
		fail_msg("the packed form is refused: %s", err.msg);
	hist_record(want, 5);
	hist_record(want, 5);
	hist_record(want, 7);
	hist_record(want, 300);
	hist_test_assert_same(h, want);
	/* and ours packs to the very same bytes */
	hist_encode(want, &m);
	assert_int_equal(iocurve__histogram__get_packed_size(&m), sizeof(old));
	iocurve__histogram__pack(&m, buf);
	assert_memory_equal(buf, old, sizeof(old));
	hist_encoded_free(&m);
	iocurve__histogram__free_unpacked(un, NULL);
	free(h);
	free(want);
}

static void test_hist_round_trip(void **state)
{
	struct hist *h = hist_test_new();
	uint64_t i, s = 99;

	(void)state;
	hist_test_round_trip(h); /* empty */
	hist_record(h, 0);
	hist_test_round_trip(h);
	for (i = 0; i < 20000; i++)
		hist_record(h, hist_test_exp(&s, 1e6));
	hist_record(h, HIST_VALUE_MAX); /* the largest value carried: clamped into the last bin */
	hist_test_round_trip(h);
	free(h);
}

/* Empty: min goes out as 0 (not UINT64_MAX) and comes back as UINT64_MAX. */
static void test_hist_round_trip_empty_min(void **state)
{
	struct hist *h = hist_test_new(), *back = hist_test_new();
	Iocurve__Histogram m;
	struct error err = {{0}};

	(void)state;
	hist_encode(h, &m);
	assert_int_equal(m.min, 0);
	assert_int_equal(m.bins.len, 0);
	back->min = 17;
	assert_int_equal(hist_decode(back, &m, &err), 0);
	assert_int_equal(back->min, UINT64_MAX);
	assert_int_equal(back->count, 0);
	hist_encoded_free(&m);
	free(h);
	free(back);
}

/*
 * Decode a hand-built message that must be rejected: check the message names
 * the problem, and that the caller's histogram was left exactly as it was.
 */
static void hist_test_reject_wire(uint32_t bits, uint64_t count, uint64_t min, uint64_t max,
                                  const uint8_t *wire, size_t len, const char *want)
{
	Iocurve__Histogram m = IOCURVE__HISTOGRAM__INIT;
	struct hist *h = hist_test_new(), *before = hist_test_new();
	struct error err = {{0}};

	hist_record(h, 12345);
	memcpy(before, h, sizeof(*h));
	m.sub_bucket_bits = bits;
	m.count = count;
	m.sum = 0;
	m.min = min;
	m.max = max;
	m.bins.data = (uint8_t *)wire;
	m.bins.len = len;
	assert_int_equal(hist_decode(h, &m, &err), -1);
	if (strstr(err.msg, want) == NULL)
		fail_msg("error \"%s\" does not mention \"%s\"", err.msg, want);
	assert_memory_equal(h, before, sizeof(*h));
	free(h);
	free(before);
}

/* The same with the pairs as numbers, put on the wire as varints. */
static void hist_test_reject(uint32_t bits, uint64_t count, uint64_t min, uint64_t max,
                             const uint64_t *bins, size_t n_bins, const char *want)
{
	uint8_t wire[16 * HIST_VARINT_MAX];

	assert_true(n_bins <= 16);
	hist_test_reject_wire(bits, count, min, max, wire,
	                      n_bins ? hist_pairs_put(wire, bins, n_bins) : 0, want);
}

static void test_hist_decode_rejects(void **state)
{
	const uint64_t ok[] = {5, 2, 1, 1};
	const uint64_t odd[] = {5, 2, 1};
	const uint64_t far[] = {HIST_BINS, 1};
	const uint64_t huge_gap[] = {UINT64_MAX, 1};
	/* Index HIST_BINS - 1 is fine; a second pair with gap 0 is one past it. */
	const uint64_t one_past[] = {HIST_BINS - 1, 1, 0, 1};
	/* next + gap wraps around 2^64 back to a small index if added unchecked. */
	const uint64_t wrap[] = {10, 1, UINT64_MAX - 10, 1};
	const uint64_t overflow[] = {1, UINT64_MAX, 0, 2};
	const uint64_t zero[] = {5, 0, 1, 3};

	(void)state;
	hist_test_reject(5, 3, 5, 7, ok, 4, "sub_bucket_bits is 5, expected 7");
	hist_test_reject(0, 3, 5, 7, ok, 4, "sub_bucket_bits is 0");
	hist_test_reject(7, 2, 5, 5, odd, 3, "even");
	hist_test_reject(7, 1, 0, 0, far, 2, "past the last bin");
	hist_test_reject(7, 1, 0, 0, huge_gap, 2, "past the last bin");
	hist_test_reject(7, 2, 0, 0, one_past, 4, "bin pair 1");
	hist_test_reject(7, 2, 0, 0, wrap, 4, "past the last bin");
	hist_test_reject(7, 1, 1, 2, overflow, 4, "overflow");
	hist_test_reject(7, 4, 5, 7, ok, 4, "add up to 3 but count is 4");
	hist_test_reject(7, 0, 0, 0, ok, 4, "add up to 3 but count is 0");
	hist_test_reject(7, 3, 5, 7, zero, 4, "count 0");
	hist_test_reject(7, 3, 5, 7, NULL, 0, "add up to 0 but count is 3");
	/* Counts add up but min and max lie about where the values are. */
	hist_test_reject(7, 3, 4, 7, ok, 4, "disagree");
	hist_test_reject(7, 3, 5, 9000, ok, 4, "disagree");
	hist_test_reject(7, 3, 7, 5, ok, 4, "disagree");
	hist_test_reject(7, 0, 3, 0, NULL, 0, "empty");
	/* Numbers that are not varints within the bytes: cut short, or longer than ten bytes. */
	hist_test_reject_wire(7, 2, 5, 5, (const uint8_t[]){5, 0x82}, 2,
	                      "bin pair 0: its count is not a varint (from byte 1 of 2)");
	hist_test_reject_wire(7, 2, 5, 5, (const uint8_t[]){0x85}, 1,
	                      "bin pair 0: its gap is not a varint");
	hist_test_reject_wire(
	    7, 2, 5, 5,
	    (const uint8_t[]){0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 2},
	    12, "bin pair 0: its gap is not a varint");
	/* Ten bytes whose last carries more than the 64th bit. */
	hist_test_reject_wire(
	    7, 2, 5, 5,
	    (const uint8_t[]){0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 2}, 11,
	    "bin pair 0: its gap is not a varint");
	hist_test_reject_wire(7, 2, 5, 5, NULL, 3, "bins claims 3 bytes but holds none");
}

/* The fixture the rejections start from is valid, so each rejection is down to its one flaw. */
static void test_hist_decode_accepts_fixture(void **state)
{
	const uint64_t ok[] = {5, 2, 1, 1};
	uint8_t wire[4 * HIST_VARINT_MAX];
	Iocurve__Histogram m = IOCURVE__HISTOGRAM__INIT;
	struct hist *h = hist_test_new();
	struct error err = {{0}};

	(void)state;
	m.sub_bucket_bits = HIST_SUB_BITS;
	m.count = 3;
	m.sum = 17;
	m.min = 5;
	m.max = 7;
	m.bins.data = wire;
	m.bins.len = hist_pairs_put(wire, ok, 4);
	if (hist_decode(h, &m, &err) != 0)
		fail_msg("valid message rejected: %s", err.msg);
	assert_int_equal(h->bins[5], 2);
	assert_int_equal(h->bins[7], 1);
	assert_int_equal(h->count, 3);
	assert_int_equal(hist_quantile(h, 100), 7);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hist_encode_layout),
	    cmocka_unit_test(test_hist_reads_packed_repeated),
	    cmocka_unit_test(test_hist_round_trip),
	    cmocka_unit_test(test_hist_round_trip_empty_min),
	    cmocka_unit_test(test_hist_decode_rejects),
	    cmocka_unit_test(test_hist_decode_accepts_fixture),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
