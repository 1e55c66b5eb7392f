/* SPDX-License-Identifier: MIT */
/* Unit tests for the log-linear histogram: bin geometry, quantiles, merge (wire form:
 * test_hist_wire.c). */
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
#include "hist_test.h"
#include "iocurve.pb-c.h"
#include "xalloc.h"

/* Values from 2^42 on are clamped into the last bin. */
#define HIST_TEST_CLAMP (UINT64_C(1) << (HIST_MAX_MSB + 1))

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
	    cmocka_unit_test(test_hist_bounds),
	    cmocka_unit_test(test_hist_merge_saturates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
