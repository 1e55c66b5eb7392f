/* SPDX-License-Identifier: MIT */
/* Unit tests for the log-linear histogram: bin geometry, quantiles, merge, wire form. */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hist.h"
#include "iocurve.pb-c.h"
#include "xalloc.h"

/* Values from 2^42 on are clamped into the last bin. */
#define HIST_TEST_CLAMP (UINT64_C(1) << (HIST_MAX_MSB + 1))

/* A struct hist is ~36 KiB: keep them off the stack and zeroed like a fresh one. */
static struct hist *hist_test_new(void)
{
	struct hist *h = xmalloc(sizeof(*h));

	hist_reset(h);
	return h;
}

/* xorshift64*: deterministic data that does not depend on the libc's rand(). */
static uint64_t hist_test_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

/* Exponential with the given mean, at least 1 ns: latency-shaped data with a long tail. */
static uint64_t hist_test_exp(uint64_t *s, double mean)
{
	double u = ((double)(hist_test_rand(s) >> 11) + 0.5) / 9007199254740992.0;

	return 1 + (uint64_t)(-mean * log(u));
}

static int hist_test_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Exact quantile of sorted data, with the rank from integers (q = num/den
 * percent) so the reference does not share hist_quantile's float handling.
 */
static uint64_t hist_test_exact(const uint64_t *sorted, uint64_t n, uint64_t num, uint64_t den)
{
	uint64_t rank = (num * n + den * 100 - 1) / (den * 100);

	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

static void hist_test_check_quantiles(const struct hist *h, uint64_t *vals, uint64_t n)
{
	static const uint64_t qs[][2] = {{1, 1},      {10, 1},       {25, 1}, {50, 1},
	                                 {75, 1},     {90, 1},       {99, 1}, {999, 10},
	                                 {9999, 100}, {99999, 1000}, {100, 1}};
	size_t i;

	qsort(vals, n, sizeof(*vals), hist_test_cmp);
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		double q = (double)qs[i][0] / (double)qs[i][1];
		uint64_t want = hist_test_exact(vals, n, qs[i][0], qs[i][1]);
		uint64_t got = hist_quantile(h, q);
		double err = fabs((double)got - (double)want) / (double)want;

		if (err > 0.01)
			fail_msg("p%g: histogram says %" PRIu64 ", exact is %" PRIu64
			         " (%.3f%% off)",
			         q, got, want, err * 100);
	}
}

/* Below 2 * HIST_SUB_COUNT every nanosecond has its own bin. */
static void test_hist_small_values_exact(void **state)
{
	uint64_t v;

	(void)state;
	for (v = 0; v < 2 * HIST_SUB_COUNT; v++) {
		assert_int_equal(hist_index(v), v);
		assert_int_equal(hist_bin_low((unsigned)v), v);
		assert_int_equal(hist_bin_mid((unsigned)v), v);
	}
}

/* bin_low inverts index: strictly increasing, each bin's low edge maps back to it. */
static void test_hist_bin_low_inverts_index(void **state)
{
	unsigned i;

	(void)state;
	for (i = 0; i < HIST_BINS; i++) {
		uint64_t low = hist_bin_low(i);

		assert_int_equal(hist_index(low), i);
		if (i + 1 < HIST_BINS) {
			uint64_t next = hist_bin_low(i + 1);

			assert_true(next > low);
			assert_int_equal(hist_index(next - 1), i);
			/* The width bound the header promises: at most 1/128 of the value. */
			if (i >= HIST_SUB_COUNT)
				assert_true((next - low) * HIST_SUB_COUNT <= low);
			assert_in_range(hist_bin_mid(i), low, next - 1);
		}
	}
	assert_int_equal(hist_bin_low(HIST_BINS - 1), UINT64_C(255) << (HIST_MAX_MSB - 7));
	/* Out-of-range indexes clamp like values do. */
	assert_int_equal(hist_bin_low(HIST_BINS + 5), hist_bin_low(HIST_BINS - 1));
}

/* A value's bin holds it, and its low edge is within 1/128 of it. */
static void hist_test_check_value(uint64_t v)
{
	unsigned idx = hist_index(v);
	uint64_t low = hist_bin_low(idx);

	assert_true(idx < HIST_BINS);
	assert_true(low <= v);
	if (v < HIST_TEST_CLAMP) {
		assert_true(v == low || (v - low) * HIST_SUB_COUNT < v);
		if (idx + 1 < HIST_BINS)
			assert_true(v < hist_bin_low(idx + 1));
	}
}

static void test_hist_index_round_trip(void **state)
{
	uint64_t v, s = 42;
	unsigned msb, i;

	(void)state;
	for (v = 0; v < (1u << 20); v++)
		hist_test_check_value(v);
	for (msb = 20; msb < 64; msb++) {
		uint64_t p = UINT64_C(1) << msb;

		hist_test_check_value(p - 1);
		hist_test_check_value(p);
		hist_test_check_value(p + 1);
		for (i = 0; i < 2000; i++)
			hist_test_check_value(p + (hist_test_rand(&s) & (p - 1)));
	}
	hist_test_check_value(UINT64_MAX);
}

/* Past 2^42 - 1 everything lands in the last bin; max stays exact. */
static void test_hist_clamp_huge(void **state)
{
	struct hist *h = hist_test_new();
	uint64_t big = UINT64_C(1) << 60;

	(void)state;
	assert_int_equal(hist_index(HIST_TEST_CLAMP - 1), HIST_BINS - 1);
	assert_int_equal(hist_index(HIST_TEST_CLAMP), HIST_BINS - 1);
	assert_int_equal(hist_index(UINT64_MAX), HIST_BINS - 1);
	assert_int_equal(hist_index(hist_bin_low(HIST_BINS - 1) - 1), HIST_BINS - 2);

	hist_record(h, 1000);
	hist_record(h, HIST_TEST_CLAMP);
	hist_record(h, big);
	assert_int_equal(h->bins[HIST_BINS - 1], 2);
	assert_int_equal(h->bins[hist_index(1000)], 1);
	assert_int_equal(h->count, 3);
	assert_int_equal(h->max, big);
	assert_int_equal(h->min, 1000);
	assert_int_equal(h->sum, 1000 + HIST_TEST_CLAMP + big);
	/* The last bin's midpoint is far below big; p100 reports the bin, clamped to [min, max]. */
	assert_int_equal(hist_quantile(h, 100), hist_bin_mid(HIST_BINS - 1));
	free(h);

	/* When every value is past the table, clamping to min keeps the answer honest. */
	h = hist_test_new();
	hist_record(h, big);
	assert_int_equal(hist_quantile(h, 50), big);
	free(h);
}

static void test_hist_empty(void **state)
{
	struct hist *h = hist_test_new();

	(void)state;
	assert_int_equal(h->min, UINT64_MAX);
	assert_int_equal(h->count, 0);
	assert_int_equal(hist_quantile(h, 50), 0);
	assert_int_equal(hist_quantile(h, 100), 0);
	assert_true(hist_mean(h) == 0.0);
	free(h);
}

static void test_hist_mean_exact(void **state)
{
	struct hist *h = hist_test_new();
	uint64_t v;

	(void)state;
	hist_record(h, 1);
	hist_record(h, 2);
	hist_record(h, 3);
	hist_record(h, 10);
	/* Exact, not from bin midpoints: (1 + 2 + 3 + 10) / 4. */
	assert_true(hist_mean(h) == 4.0);

	hist_reset(h);
	for (v = 1000; v < 1000 + 1000; v++)
		hist_record(h, v * 1013);
	assert_true(hist_mean(h) == 1499.5 * 1013);
	free(h);
}

/* One value: every quantile is that value, exactly, thanks to the min/max clamp. */
static void test_hist_single_value(void **state)
{
	struct hist *h = hist_test_new();

	(void)state;
	hist_record(h, 123457);
	assert_int_equal(hist_quantile(h, 0), 123457);
	assert_int_equal(hist_quantile(h, 50), 123457);
	assert_int_equal(hist_quantile(h, 100), 123457);
	free(h);
}

/* Quantile ranks: ceil(q/100 * count), q = 0 gives the smallest and 99.9 is not one rank late. */
static void test_hist_quantile_rank(void **state)
{
	struct hist *h = hist_test_new();
	uint64_t v;

	(void)state;
	for (v = 1; v <= 1000; v++)
		hist_record(h, v);
	for (v = 1001; v <= 2000; v++)
		hist_record(h, 5000); /* far from 1000 so an off-by-one rank is visible */
	assert_int_equal(hist_quantile(h, 0), 1);
	assert_int_equal(hist_quantile(h, 0.05), 1);
	assert_int_equal(hist_quantile(h, 10), 200);
	assert_int_equal(hist_quantile(h, 50), hist_bin_mid(hist_index(1000)));
	assert_int_equal(hist_quantile(h, 50.05), 5000);
	assert_int_equal(hist_quantile(h, 100), 5000);
	assert_int_equal(hist_quantile(h, 250), 5000);
	assert_int_equal(hist_quantile(h, -3), 1);
	free(h);

	/* 99.9% of 1000 is rank 999 even though 99.9/100 * 1000 is not exactly 999 in binary. */
	h = hist_test_new();
	for (v = 1; v <= 999; v++)
		hist_record(h, 7);
	hist_record(h, 1000000);
	assert_int_equal(hist_quantile(h, 99.9), 7);
	assert_int_equal(hist_quantile(h, 99.91), 1000000);
	free(h);
}

static void test_hist_quantiles_uniform(void **state)
{
	const uint64_t n = 1000000;
	uint64_t *vals = xcalloc(n, sizeof(*vals));
	struct hist *h = hist_test_new();
	uint64_t i;

	(void)state;
	/* Recorded in a scrambled order: the histogram must not care. */
	for (i = 0; i < n; i++) {
		vals[i] = (i * 7919) % n + 1;
		hist_record(h, vals[i]);
	}
	assert_int_equal(h->min, 1);
	assert_int_equal(h->max, n);
	assert_true(hist_mean(h) == (double)(n + 1) / 2);
	hist_test_check_quantiles(h, vals, n);
	free(vals);
	free(h);
}

static void test_hist_quantiles_exponential(void **state)
{
	const uint64_t n = 300000;
	uint64_t *vals = xcalloc(n, sizeof(*vals));
	struct hist *h = hist_test_new();
	uint64_t i, s = 0x9e3779b97f4a7c15u;

	(void)state;
	for (i = 0; i < n; i++) {
		/* Mostly ~200 us with a 2% tail around 20 ms: a device with occasional stalls. */
		vals[i] = hist_test_exp(&s, hist_test_rand(&s) % 50 ? 200000.0 : 20000000.0);
		hist_record(h, vals[i]);
	}
	hist_test_check_quantiles(h, vals, n);
	free(vals);
	free(h);
}

static void hist_test_assert_same(const struct hist *a, const struct hist *b)
{
	assert_int_equal(a->count, b->count);
	assert_int_equal(a->sum, b->sum);
	assert_int_equal(a->min, b->min);
	assert_int_equal(a->max, b->max);
	assert_memory_equal(a->bins, b->bins, sizeof(a->bins));
}

static void test_hist_merge_equals_concatenation(void **state)
{
	struct hist *a = hist_test_new(), *b = hist_test_new(), *all = hist_test_new();
	struct hist *empty = hist_test_new(), *copy = hist_test_new();
	uint64_t i, v, s = 7;

	(void)state;
	for (i = 0; i < 100000; i++) {
		v = hist_test_exp(&s, 50000.0);
		hist_record(a, v);
		hist_record(all, v);
	}
	for (i = 0; i < 50000; i++) {
		v = 3 + hist_test_rand(&s) % 10000000;
		hist_record(b, v);
		hist_record(all, v);
	}
	hist_record(b, UINT64_C(1) << 50); /* a clamped value too */
	hist_record(all, UINT64_C(1) << 50);

	hist_merge(a, b);
	hist_test_assert_same(a, all);

	/* Empty is the identity both ways; min stays UINT64_MAX only when both are empty. */
	memcpy(copy, all, sizeof(*copy));
	hist_merge(copy, empty);
	hist_test_assert_same(copy, all);
	hist_merge(empty, all);
	hist_test_assert_same(empty, all);
	hist_reset(copy);
	hist_reset(b);
	hist_merge(copy, b);
	assert_int_equal(copy->min, UINT64_MAX);
	assert_int_equal(copy->count, 0);

	free(a);
	free(b);
	free(all);
	free(empty);
	free(copy);
}

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

/* Encode, pack to bytes, unpack, decode: nothing changes. */
static void hist_test_round_trip(const struct hist *h)
{
	struct hist *back = hist_test_new();
	Iocurve__Histogram m, *un;
	struct error err = {{0}};
	uint8_t *buf;
	size_t len;

	hist_encode(h, &m);
	len = iocurve__histogram__get_packed_size(&m);
	buf = xmalloc(len);
	assert_int_equal(iocurve__histogram__pack(&m, buf), len);
	hist_encoded_free(&m);
	un = iocurve__histogram__unpack(NULL, len, buf);
	assert_non_null(un);
	if (hist_decode(back, un, &err) != 0)
		fail_msg("decode of our own encoding failed: %s", err.msg);
	hist_test_assert_same(back, h);
	iocurve__histogram__free_unpacked(un, NULL);
	free(buf);
	free(back);
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

/*
 * Bounds that JSON carries back: one read of 2^63 ns passed the old checks (its mean
 * between min and max), was written as an unsigned decimal jansson cannot read, and
 * left the campaign failed and its results unreadable. Refused where it enters now,
 * on the wire (hist_decode) and in memory (hist_check).
 */
static void test_hist_bounds(void **state)
{
	struct hist *h = hist_test_new();
	struct error err = {{0}};
	Iocurve__Histogram m;

	(void)state;
	h->count = 1;
	h->sum = h->min = h->max = UINT64_C(1) << 63;
	h->bins[HIST_BINS - 1] = 1;
	assert_int_equal(hist_check("latency", h, &err), -1);
	assert_non_null(strstr(err.msg, "latency count 1, min 9223372036854775808"));
	assert_non_null(strstr(err.msg, "past its bound"));
	hist_encode(h, &m);
	assert_int_equal(hist_decode(h, &m, &err), -1);
	assert_non_null(strstr(err.msg, "past its bound"));
	hist_encoded_free(&m);
	/* at the bounds: accepted, and the wire gives it back */
	h->sum = h->min = h->max = HIST_VALUE_MAX;
	assert_int_equal(hist_check("latency", h, &err), 0);
	hist_test_round_trip(h);
	/* a sum past 2^62 is refused even when its mean would fit */
	h->count = 1u << 12;
	h->bins[HIST_BINS - 1] = h->count;
	h->sum = HIST_SUM_MAX + h->count;
	assert_int_equal(hist_check("service", h, &err), -1);
	assert_non_null(strstr(err.msg, "service count 4096"));
	free(h);
}

/* Everything a reader of h relies on: checked, bins adding up to count, read back. */
static void hist_test_readable(const struct hist *h)
{
	struct error err = {{0}};
	uint64_t total = 0;

	if (hist_check("merged", h, &err) != 0)
		fail_msg("the merge is refused: %s", err.msg);
	for (unsigned i = 0; i < HIST_BINS; i++)
		total += h->bins[i];
	assert_int_equal(total, h->count);
	hist_test_round_trip(h);
}

/*
 * Merging past the bounds keeps the distribution and gives up count: two histograms of
 * 2^20 values of 2^42 ns (each at the largest sum) merge into 2^20 values of 2^42, not
 * a sum stopped at 2^62 over 2^21 values (mean 2^41, half of min, which hist_check let
 * through as "saturated" and every figure read as the fleet's mean). Counts past 2^53:
 * bins capped apart added up to twice count and the mean (3) passed max (2).
 */
static void test_hist_merge_saturates(void **state)
{
	struct hist *a = hist_test_new(), *b = hist_test_new();
	struct error err = {{0}};

	(void)state;
	a->count = UINT64_C(1) << 20;
	a->min = a->max = UINT64_C(1) << 42;
	a->sum = HIST_SUM_MAX; /* 2^20 values of 2^42 */
	a->bins[hist_index(a->min)] = a->count;
	*b = *a;
	assert_int_equal(hist_check("a", a, &err), 0);
	hist_merge(a, b);
	assert_true(a->sum <= HIST_SUM_MAX);
	assert_true(a->sum / a->count >= a->min);
	assert_true(hist_mean(a) == (double)(UINT64_C(1) << 42));
	hist_test_readable(a);
	/* a wrapped-looking sum stays refused: "sum 999, mean 500, min 1000" */
	a->sum = 999;
	a->count = 2;
	a->min = 1000;
	a->max = 1000;
	assert_int_equal(hist_check("latency", a, &err), -1);
	assert_non_null(strstr(err.msg, "latency sum_ns 999 is not 2 values in [1000, 1000]"));
	/* and so does a sum at 2^62 whose mean is below min (no "saturated" exception) */
	a->count = UINT64_C(1) << 21;
	a->sum = HIST_SUM_MAX;
	a->min = a->max = UINT64_C(1) << 42;
	assert_int_equal(hist_check("latency", a, &err), -1);
	/* counts past 2^53: half of each bin, the quantiles and the mean as they were */
	memset(a, 0, sizeof(*a));
	a->bins[1] = a->bins[2] = UINT64_C(1) << 52;
	a->count = HIST_COUNT_MAX;
	a->min = 1;
	a->max = 2;
	a->sum = 3 * (UINT64_C(1) << 52);
	*b = *a;
	assert_int_equal(hist_check("a", a, &err), 0);
	hist_merge(a, b);
	assert_true(a->count <= HIST_COUNT_MAX);
	assert_int_equal(a->bins[1], a->bins[2]);
	assert_int_equal(hist_quantile(a, 50), 1);
	assert_int_equal(hist_quantile(a, 51), 2);
	assert_true(hist_mean(a) == 1.5);
	hist_test_readable(a);
	/* sums near UINT64_MAX from an unchecked side: never wrapped, the mean within */
	memset(b, 0, sizeof(*b));
	b->count = b->bins[hist_index(5)] = 3;
	b->min = b->max = 5;
	b->sum = UINT64_MAX - 2;
	hist_merge(a, b);
	assert_true(a->sum <= HIST_SUM_MAX);
	assert_true(a->sum / a->count >= a->min && a->sum / a->count <= a->max);
	free(a);
	free(b);
}

/*
 * hist_copy_used: a slot that held another interval's histogram (other bins, wider and
 * narrower) ends byte for byte the source, and an empty source empties it.
 */
static void test_hist_copy_used(void **state)
{
	static struct hist src, dst, empty;
	const uint64_t old[] = {10, 900, 52000, 7000000000ull}, now[] = {30000, 31000, 45000};

	(void)state;
	hist_reset(&src);
	hist_reset(&dst);
	hist_reset(&empty);
	for (size_t i = 0; i < sizeof(old) / sizeof(old[0]); i++)
		hist_record(&dst, old[i]);
	for (size_t i = 0; i < sizeof(now) / sizeof(now[0]); i++)
		hist_record(&src, now[i]);
	hist_copy_used(&dst, &src);
	assert_memory_equal(&dst, &src, sizeof(dst));
	hist_copy_used(&dst, &empty);
	assert_memory_equal(&dst, &empty, sizeof(dst));
	/* a zeroed histogram (a fresh shared slot) takes a copy too */
	memset(&dst, 0, sizeof(dst));
	hist_copy_used(&dst, &src);
	assert_memory_equal(&dst, &src, sizeof(dst));
}

/*
 * Emptied by the bins it used (hist_clear) and decoded into again, a histogram is
 * what a fresh one would be, byte for byte: nothing of what it held before stays.
 */
static void test_hist_clear_and_decode_again(void **state)
{
	static struct hist used, fresh, other;
	const uint64_t wide[] = {0, 127, 128, 900, 52000, 7000000000ull, HIST_VALUE_MAX};
	Iocurve__Histogram m;
	struct error err = {{0}};

	(void)state;
	hist_reset(&used);
	hist_reset(&fresh);
	hist_reset(&other);
	for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++)
		hist_record(&used, wide[i]);
	hist_clear(&used);
	assert_memory_equal(&used, &fresh, sizeof(used));

	/* a report of wide values, then one of a few: the second's bins only */
	for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++)
		hist_record(&other, wide[i]);
	hist_encode(&other, &m);
	assert_int_equal(hist_decode(&used, &m, &err), 0);
	hist_encoded_free(&m);
	hist_reset(&other);
	hist_record(&other, 30000);
	hist_record(&other, 31000);
	hist_encode(&other, &m);
	assert_int_equal(hist_decode(&used, &m, &err), 0);
	assert_int_equal(hist_decode(&fresh, &m, &err), 0);
	hist_encoded_free(&m);
	assert_memory_equal(&used, &fresh, sizeof(used));
	assert_memory_equal(&used, &other, sizeof(used));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hist_small_values_exact),
	    cmocka_unit_test(test_hist_copy_used),
	    cmocka_unit_test(test_hist_clear_and_decode_again),
	    cmocka_unit_test(test_hist_bin_low_inverts_index),
	    cmocka_unit_test(test_hist_index_round_trip),
	    cmocka_unit_test(test_hist_clamp_huge),
	    cmocka_unit_test(test_hist_empty),
	    cmocka_unit_test(test_hist_mean_exact),
	    cmocka_unit_test(test_hist_single_value),
	    cmocka_unit_test(test_hist_quantile_rank),
	    cmocka_unit_test(test_hist_quantiles_uniform),
	    cmocka_unit_test(test_hist_quantiles_exponential),
	    cmocka_unit_test(test_hist_merge_equals_concatenation),
	    cmocka_unit_test(test_hist_encode_layout),
	    cmocka_unit_test(test_hist_reads_packed_repeated),
	    cmocka_unit_test(test_hist_round_trip),
	    cmocka_unit_test(test_hist_round_trip_empty_min),
	    cmocka_unit_test(test_hist_decode_rejects),
	    cmocka_unit_test(test_hist_decode_accepts_fixture),
	    cmocka_unit_test(test_hist_bounds),
	    cmocka_unit_test(test_hist_merge_saturates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
