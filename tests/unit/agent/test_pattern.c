/* SPDX-License-Identifier: MIT */
/* Unit tests for access patterns: sequential wrap, random distributions, read mixes, arrivals. */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "pattern.h"
#include "xalloc.h"

#define KiB UINT64_C(1024)
#define MiB (KiB * KiB)
#define GiB (MiB * KiB)

/* A random-read config over [off, off + len) with 4 KiB blocks; tests change what they need. */
static struct pattern_config pattern_test_cfg(enum rw_mode rw, uint64_t off, uint64_t len)
{
	return (struct pattern_config){
	    .rw = rw,
	    .read_pct = 100,
	    .block_size = 4096,
	    .region_offset = off,
	    .region_len = len,
	    .dist = PATTERN_UNIFORM,
	    .zipf_theta = 1.0,
	    .hot_set_pct = 10,
	    .hot_ops_pct = 90,
	    .seed = 42,
	};
}

static void pattern_test_init(struct pattern *p, const struct pattern_config *c)
{
	struct error err = {{0}};

	if (pattern_init(p, c, &err) != 0)
		fail_msg("pattern_init: %s", err.msg);
}

/* Every op lies in the region, aligned; returns the slot index. */
static uint64_t pattern_test_slot(const struct pattern_config *c, uint32_t align,
                                  const struct pattern_op *op)
{
	assert_true(op->offset >= c->region_offset);
	assert_true(op->offset + c->block_size <= c->region_offset + c->region_len);
	assert_int_equal(op->offset % align, 0);
	return (op->offset - c->region_offset) / align;
}

/* A region that is not a multiple of block_size: consecutive, wraps to the start, never crosses. */
static void test_sequential_wrap(void **state)
{
	const uint32_t bs = 64 * 1024;
	enum rw_mode modes[] = {RW_READ, RW_WRITE, RW_RW};

	(void)state;
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct pattern_config c =
		    pattern_test_cfg(modes[m], 3 * GiB, 10 * (uint64_t)bs + 3072);
		struct pattern p;
		struct pattern_op op;

		c.block_size = bs;
		c.align = 4096; /* smaller than the block: sequential still steps by block_size */
		c.read_pct = 50;
		pattern_test_init(&p, &c);
		for (uint64_t i = 0; i < 45; i++) {
			pattern_next(&p, &op);
			assert_int_equal(op.offset, c.region_offset + (i % 10) * bs);
			pattern_test_slot(&c, c.align, &op);
			if (modes[m] == RW_READ)
				assert_false(op.write);
			if (modes[m] == RW_WRITE)
				assert_true(op.write);
		}
	}
}

/* An exact multiple: the last block ends at the region's end, then the stream wraps. */
static void test_sequential_exact(void **state)
{
	struct pattern_config c = pattern_test_cfg(RW_READ, 0, 8 * 4096);
	struct pattern p;
	struct pattern_op op;

	(void)state;
	pattern_test_init(&p, &c);
	for (uint64_t i = 0; i < 17; i++) {
		pattern_next(&p, &op);
		assert_int_equal(op.offset, (i % 8) * 4096);
	}
	/* A region of exactly one block: always offset 0 of it. */
	c = pattern_test_cfg(RW_WRITE, 8192, 4096 + 511);
	pattern_test_init(&p, &c);
	for (int i = 0; i < 5; i++) {
		pattern_next(&p, &op);
		assert_int_equal(op.offset, 8192);
		assert_true(op.write);
	}
}

/* Two workers with adjacent regions never touch each other's bytes, whatever the pattern. */
static void test_regions_disjoint(void **state)
{
	const uint64_t len = 1000 * 4096 + 2048;
	enum rw_mode modes[] = {RW_READ, RW_RANDREAD, RW_RANDWRITE, RW_RANDRW};
	enum pattern_dist dists[] = {PATTERN_UNIFORM, PATTERN_ZIPF, PATTERN_HOTSPOT};

	(void)state;
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		for (size_t d = 0; d < sizeof(dists) / sizeof(dists[0]); d++) {
			/* Worker 1 starts where worker 0's region ends, rounded up to align. */
			struct pattern_config c0 = pattern_test_cfg(modes[m], 0, len);
			struct pattern_config c1 = pattern_test_cfg(modes[m], 1001 * 4096, len);
			struct pattern p0, p1;
			uint64_t max0 = 0, min1 = UINT64_MAX;
			struct pattern_op op;

			c0.dist = c1.dist = dists[d];
			c1.seed = 43;
			pattern_test_init(&p0, &c0);
			pattern_test_init(&p1, &c1);
			for (int i = 0; i < 20000; i++) {
				pattern_next(&p0, &op);
				pattern_test_slot(&c0, 4096, &op);
				if (op.offset + c0.block_size > max0)
					max0 = op.offset + c0.block_size;
				pattern_next(&p1, &op);
				pattern_test_slot(&c1, 4096, &op);
				if (op.offset < min1)
					min1 = op.offset;
			}
			assert_true(max0 <= len);
			assert_true(max0 <= min1);
		}
	}
}

/*
 * 10^6 draws of every distribution stay aligned and inside a region that is
 * not a multiple of align, at an offset, including align smaller and larger
 * than the block, zipf at theta < 1, == 1 and > 1, and a 2^40-slot region.
 */
static void test_random_in_region(void **state)
{
	struct {
		enum pattern_dist dist;
		double theta;
		uint32_t bs, align;
		uint64_t len;
	} cases[] = {
	    {PATTERN_UNIFORM, 0, 4096, 0, 777 * MiB + 1536},
	    {PATTERN_UNIFORM, 0, 65536, 4096, 10 * MiB + 1000},
	    {PATTERN_UNIFORM, 0, 4096, 65536, 10 * MiB + 512},
	    {PATTERN_ZIPF, 0.5, 4096, 0, 3 * GiB + 4095},
	    {PATTERN_ZIPF, 0.99, 8192, 512, 1 * GiB + 100},
	    {PATTERN_ZIPF, 1.0, 4096, 0, 100 * MiB},
	    {PATTERN_ZIPF, 1.2, 4096, 0, 17 * 4096},
	    {PATTERN_ZIPF, 0.99, 512, 512, (UINT64_C(1) << 49) + 511},
	    {PATTERN_UNIFORM, 0, 512, 512, (UINT64_C(1) << 49) + 511},
	    {PATTERN_HOTSPOT, 0, 4096, 0, 999 * MiB + 2048},
	    {PATTERN_HOTSPOT, 0, 4096, 0, 4096}, /* one slot: no cold set */
	    {PATTERN_HOTSPOT, 0, 16384, 4096, 33 * MiB},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pattern_config c = pattern_test_cfg(RW_RANDRW, 5 * 65536, cases[i].len);
		uint32_t align = cases[i].align ? cases[i].align : cases[i].bs;
		uint64_t nslots = (c.region_len - cases[i].bs) / align + 1;
		uint64_t maxslot = 0;
		struct pattern p;
		struct pattern_op op;

		c.dist = cases[i].dist;
		c.zipf_theta = cases[i].theta;
		c.block_size = cases[i].bs;
		c.align = cases[i].align;
		c.read_pct = 50;
		pattern_test_init(&p, &c);
		assert_int_equal(p.nslots, nslots);
		for (int k = 0; k < 1000000; k++) {
			uint64_t s;

			pattern_next(&p, &op);
			s = pattern_test_slot(&c, align, &op);
			if (s > maxslot)
				maxslot = s;
		}
		/* Uniform over a small region reaches its last slot: the bound is not one short. */
		if (c.dist != PATTERN_ZIPF && nslots < 100000)
			assert_int_equal(maxslot, nslots - 1);
	}
}

/* Chi-square over 1000 slots: neither lumpy nor suspiciously even. */
static void test_uniform_buckets(void **state)
{
	const uint64_t n = 1000, draws = 1000000;
	struct pattern_config c = pattern_test_cfg(RW_RANDREAD, 0, n * 4096 + 4095);
	uint32_t *count = xcalloc(n, sizeof(*count));
	double exp_count = (double)draws / (double)n, chi2 = 0;
	struct pattern p;
	struct pattern_op op;

	(void)state;
	pattern_test_init(&p, &c);
	for (uint64_t k = 0; k < draws; k++) {
		pattern_next(&p, &op);
		assert_false(op.write);
		count[pattern_test_slot(&c, 4096, &op)]++;
	}
	for (uint64_t i = 0; i < n; i++) {
		double d = count[i] - exp_count;

		chi2 += d * d / exp_count;
		/* sd is ~31.6: 20% off is over 6 sd. */
		assert_true(fabs(d) < 0.2 * exp_count);
	}
	/* 999 degrees of freedom: mean 999, sd ~44.7; allow 6 sd either side. */
	print_message("uniform chi2 over %" PRIu64 " buckets: %.1f\n", n, chi2);
	assert_true(chi2 > 999 - 6 * 44.7 && chi2 < 999 + 6 * 44.7);
	free(count);
}

/* rw and randrw read read_pct% of the time, within 2 points; pure modes never mix. */
static void test_read_mix(void **state)
{
	const uint32_t pcts[] = {75, 30, 0, 100, 50, 1};
	const enum rw_mode modes[] = {RW_RW, RW_RANDRW};

	(void)state;
	for (size_t m = 0; m < 2; m++) {
		for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
			struct pattern_config c = pattern_test_cfg(modes[m], 0, 64 * MiB);
			struct pattern p;
			struct pattern_op op;
			uint64_t reads = 0;
			const int n = 100000;
			double got;

			c.read_pct = pcts[i];
			c.seed = 1000 + i;
			pattern_test_init(&p, &c);
			for (int k = 0; k < n; k++) {
				pattern_next(&p, &op);
				reads += !op.write;
			}
			got = 100.0 * (double)reads / n;
			if (pcts[i] == 0 || pcts[i] == 100)
				assert_true(got == pcts[i]);
			else
				assert_true(fabs(got - pcts[i]) <= 2.0);
		}
	}
	for (int rw = RW_READ; rw <= RW_RANDWRITE; rw++) {
		struct pattern_config c = pattern_test_cfg((enum rw_mode)rw, 0, 64 * MiB);
		struct pattern p;
		struct pattern_op op;

		c.read_pct = 50; /* ignored by the pure modes */
		pattern_test_init(&p, &c);
		for (int k = 0; k < 1000; k++) {
			pattern_next(&p, &op);
			assert_int_equal(op.write, rw_is_write((enum rw_mode)rw));
		}
	}
}

static int pattern_test_cmp_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* sum_{k=1..n} k^-theta, summed from the small terms up. */
static double pattern_test_harmonic(uint64_t n, double theta)
{
	double s = 0;

	for (uint64_t k = n; k >= 1; k--)
		s += pow((double)k, -theta);
	return s;
}

/*
 * Zipf share of the hottest 1% of slots against the analytic H(N/100)/H(N).
 * The hot set is found from one run and measured on an independent second
 * run, so picking the luckiest slots does not inflate the share.
 */
static void pattern_test_zipf_share(double theta)
{
	const uint64_t n = 1000000, draws = 1000000, top = n / 100;
	struct pattern_config c = pattern_test_cfg(RW_RANDREAD, 0, n * 4096);
	uint32_t *count = xcalloc(n, sizeof(*count));
	uint32_t *sorted = xcalloc(n, sizeof(*sorted));
	uint32_t cut;
	uint64_t above = 0, hits = 0, hot = 0;
	double analytic, share;
	struct pattern p;
	struct pattern_op op;

	c.dist = PATTERN_ZIPF;
	c.zipf_theta = theta;
	pattern_test_init(&p, &c);
	for (uint64_t k = 0; k < draws; k++) {
		pattern_next(&p, &op);
		count[pattern_test_slot(&c, 4096, &op)]++;
	}
	memcpy(sorted, count, n * sizeof(*count));
	qsort(sorted, n, sizeof(*sorted), pattern_test_cmp_desc);
	cut = sorted[top - 1];
	for (uint64_t i = 0; i < n; i++)
		above += count[i] > cut;
	/* Ties at the cut: take just enough of them to make exactly 1% of the slots. */
	for (uint64_t i = 0, need = top - above; i < n; i++) {
		if (count[i] > cut || (count[i] == cut && need > 0 && need--))
			count[i] = 1;
		else
			count[i] = 0;
	}
	for (uint64_t i = 0; i < n; i++)
		hot += count[i];
	assert_int_equal(hot, top);

	c.seed = 4242;
	pattern_test_init(&p, &c);
	for (uint64_t k = 0; k < draws; k++) {
		pattern_next(&p, &op);
		hits += count[pattern_test_slot(&c, 4096, &op)];
	}
	analytic = pattern_test_harmonic(top, theta) / pattern_test_harmonic(n, theta);
	share = (double)hits / (double)draws;
	print_message("zipf %.2f: hottest 1%% of %" PRIu64 " slots get %.2f%% (analytic %.2f%%)\n",
	              theta, n, 100 * share, 100 * analytic);
	assert_true(fabs(share - analytic) < 0.03);
	free(sorted);
	free(count);
}

static void test_zipf_share(void **state)
{
	(void)state;
	pattern_test_zipf_share(0.99);
	pattern_test_zipf_share(1.0);
	pattern_test_zipf_share(1.2);
}

/* Rank 1 lands on the same slot for every seed: workers sharing a region share a hot block.
 */
static void test_zipf_hot_spread(void **state)
{
	const uint64_t n = 100000;
	struct pattern_config c = pattern_test_cfg(RW_RANDREAD, 0, n * 4096);
	uint32_t *count = xcalloc(n, sizeof(*count));
	uint64_t best[2] = {0, 0}, lo = n, hi = 0;
	struct pattern p;
	struct pattern_op op;

	(void)state;
	c.dist = PATTERN_ZIPF;
	c.zipf_theta = 1.2;
	for (int run = 0; run < 2; run++) {
		memset(count, 0, n * sizeof(*count));
		c.seed = 7 + (uint64_t)run * 1000;
		pattern_test_init(&p, &c);
		for (int k = 0; k < 200000; k++) {
			pattern_next(&p, &op);
			count[pattern_test_slot(&c, 4096, &op)]++;
		}
		for (uint64_t i = 0; i < n; i++) {
			if (count[i] > count[best[run]])
				best[run] = i;
			/* The 80 or so hottest slots are spread over the region, not
			 * bunched at its start. */
			if (count[i] > 200) {
				lo = i < lo ? i : lo;
				hi = i > hi ? i : hi;
			}
		}
	}
	assert_int_equal(best[0], best[1]);
	assert_true(hi - lo > n / 2);
	free(count);
}

/*
 * The rank scramble is a bijection: for every region size from 1 to 300 slots
 * (primes, powers of two, and all between) and a few larger ones, hotspot and
 * flat zipf reach every slot.
 */
static void test_scramble_covers(void **state)
{
	const uint64_t big[] = {4096, 4099, 65536, 65537, 100003};
	uint32_t *seen = xcalloc(100003, sizeof(*seen));

	(void)state;
	for (uint64_t i = 0; i < 300 + sizeof(big) / sizeof(big[0]); i++) {
		uint64_t n = i < 300 ? i + 1 : big[i - 300];

		for (int d = 0; d < 2; d++) {
			struct pattern_config c = pattern_test_cfg(RW_RANDREAD, 0, n * 4096);
			struct pattern p;
			struct pattern_op op;
			uint64_t missing = n;

			c.dist = d ? PATTERN_ZIPF : PATTERN_HOTSPOT;
			c.zipf_theta = 0.05;
			c.hot_set_pct = 50;
			c.hot_ops_pct = 50;
			memset(seen, 0, n * sizeof(*seen));
			pattern_test_init(&p, &c);
			/* 30 draws per slot leave a slot unseen with odds e^-30 or so. */
			for (uint64_t k = 0; k < 30 * n && missing > 0; k++) {
				uint64_t s;

				pattern_next(&p, &op);
				s = pattern_test_slot(&c, 4096, &op);
				missing -= seen[s] == 0;
				seen[s] = 1;
			}
			if (missing != 0)
				fail_msg("%s over %" PRIu64 " slots: %" PRIu64 " never drawn",
				         d ? "zipf" : "hotspot", n, missing);
		}
	}
	free(seen);
}

/* hotspot 10/90: exactly 10% of the slots are hot, and they get 90% +- 2 points of the ops.
 */
static void test_hotspot(void **state)
{
	const uint64_t n = 10000, draws = 1000000;
	struct pattern_config c = pattern_test_cfg(RW_RANDWRITE, 64 * MiB, n * 4096 + 1024);
	uint32_t *count = xcalloc(n, sizeof(*count));
	uint64_t hot = 0, hot_hits = 0;
	struct pattern p;
	struct pattern_op op;

	(void)state;
	c.dist = PATTERN_HOTSPOT;
	pattern_test_init(&p, &c);
	assert_int_equal(p.hot_slots, n / 10);
	for (uint64_t k = 0; k < draws; k++) {
		pattern_next(&p, &op);
		assert_true(op.write);
		count[pattern_test_slot(&c, 4096, &op)]++;
	}
	/* A hot slot expects 900 hits, a cold one 11: 300 separates them by many sd. */
	for (uint64_t i = 0; i < n; i++) {
		if (count[i] > 300) {
			hot++;
			hot_hits += count[i];
		} else {
			assert_true(count[i] > 0);
		}
	}
	print_message("hotspot 10/90: %" PRIu64 " hot slots get %.2f%%\n", hot,
	              100.0 * (double)hot_hits / (double)draws);
	assert_int_equal(hot, n / 10);
	assert_true(fabs((double)hot_hits / (double)draws - 0.90) <= 0.02);
	free(count);
}

/* Uniform arrivals: operation k at start + k * 1e9 / rate, to the ns, out to k = 10^7. */
static void test_arrivals_uniform(void **state)
{
	const uint64_t rates[] = {3000, 7, 1000000};
	const uint64_t start = UINT64_C(987654321012345);

	(void)state;
	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		struct arrivals a;

		arrivals_init(&a, ARRIVALS_UNIFORM, (double)rates[r], start, 1);
		for (uint64_t k = 0; k <= 10000000; k++) {
			uint64_t got = arrivals_next(&a);
			/* Integer reference: k * 1e9 fits in 64 bits for k <= 10^7. */
			uint64_t want = start + k * UINT64_C(1000000000) / rates[r];
			uint64_t diff = got > want ? got - want : want - got;

			if (diff > 1)
				fail_msg("rate %" PRIu64 " k %" PRIu64 ": got %" PRIu64
				         " want %" PRIu64,
				         rates[r], k, got, want);
		}
	}
}

/* Poisson arrivals: mean gap 1/rate within 1%, coefficient of variation 1 within 3%. */
static void test_arrivals_poisson(void **state)
{
	const double rate = 100000, mean_want = 1e9 / rate;
	const int n = 1000000;
	struct arrivals a;
	uint64_t prev, start = 5 * UINT64_C(1000000000);
	double sum = 0, sum2 = 0, mean, sd;

	(void)state;
	arrivals_init(&a, ARRIVALS_POISSON, rate, start, 99);
	prev = arrivals_next(&a);
	assert_int_equal(prev, start);
	for (int k = 0; k < n; k++) {
		uint64_t t = arrivals_next(&a);
		double gap;

		assert_true(t >= prev);
		gap = (double)(t - prev);
		sum += gap;
		sum2 += gap * gap;
		prev = t;
	}
	mean = sum / n;
	sd = sqrt(sum2 / n - mean * mean);
	print_message("poisson: mean gap %.1f ns (want %.1f), cv %.4f\n", mean, mean_want,
	              sd / mean);
	assert_true(fabs(mean / mean_want - 1) < 0.01);
	assert_true(sd / mean > 0.97 && sd / mean < 1.03);
}

/* No pacing: rate 0 puts every arrival at start. */
static void test_arrivals_unpaced(void **state)
{
	struct arrivals a;

	(void)state;
	arrivals_init(&a, ARRIVALS_UNIFORM, 0, 1234, 1);
	for (int k = 0; k < 10; k++)
		assert_int_equal(arrivals_next(&a), 1234);
}

static void pattern_test_reject(const struct pattern_config *c, const char *want)
{
	struct pattern p;
	struct error err = {{0}};

	assert_int_equal(pattern_init(&p, c, &err), -1);
	if (strstr(err.msg, want) == NULL)
		fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
}

static void test_invalid(void **state)
{
	struct pattern_config base = pattern_test_cfg(RW_RANDREAD, 0, 16 * MiB), c;
	struct pattern p;
	struct error err = {{0}};

	(void)state;
	c = base, c.block_size = 0;
	pattern_test_reject(&c, "block_size 0");
	c = base, c.block_size = 1000;
	pattern_test_reject(&c, "block_size 1000: must be a positive multiple of 512");
	c = base, c.align = 1000;
	pattern_test_reject(&c, "align 1000");
	c = base, c.rw = RW_READ, c.block_size = 6144, c.align = 4096;
	pattern_test_reject(&c, "align 4096: must divide block_size 6144 for sequential read");
	c = base, c.region_offset = 4096 + 512;
	pattern_test_reject(&c, "region_offset 4608: not a multiple of align 4096");
	c = base, c.align = 65536, c.region_offset = 4096;
	pattern_test_reject(&c, "region_offset 4096: not a multiple of align 65536");
	c = base, c.region_len = 4095;
	pattern_test_reject(&c, "region_len 4095: cannot hold one block of 4096 bytes");
	c = base, c.region_offset = UINT64_MAX - 4095, c.align = 512;
	pattern_test_reject(&c, "overflows");
	c = base, c.rw = RW_RANDRW, c.read_pct = 101;
	pattern_test_reject(&c, "read_pct 101");
	c = base, c.rw = (enum rw_mode)9;
	pattern_test_reject(&c, "rw 9: unknown mode");
	c = base, c.dist = PATTERN_ZIPF, c.zipf_theta = 0;
	pattern_test_reject(&c, "zipf_theta 0");
	c = base, c.dist = PATTERN_ZIPF, c.zipf_theta = -1;
	pattern_test_reject(&c, "zipf_theta -1");
	c = base, c.dist = PATTERN_ZIPF, c.zipf_theta = NAN;
	pattern_test_reject(&c, "zipf_theta nan");
	c = base, c.dist = PATTERN_HOTSPOT, c.hot_set_pct = 0;
	pattern_test_reject(&c, "hot_set_pct 0");
	c = base, c.dist = PATTERN_HOTSPOT, c.hot_set_pct = 100;
	pattern_test_reject(&c, "hot_set_pct 100");
	c = base, c.dist = PATTERN_HOTSPOT, c.hot_ops_pct = 100;
	pattern_test_reject(&c, "hot_ops_pct 100");
	c = base, c.dist = PATTERN_HOTSPOT, c.hot_ops_pct = -5;
	pattern_test_reject(&c, "hot_ops_pct -5");
	c = base, c.dist = (enum pattern_dist)7;
	pattern_test_reject(&c, "dist 7");

	/* Sequential modes ignore the distribution's fields. */
	c = base, c.rw = RW_READ, c.dist = PATTERN_ZIPF, c.zipf_theta = 0;
	assert_int_equal(pattern_init(&p, &c, &err), 0);
}

static double pattern_test_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Not a pass/fail: ns per pattern_next on this machine, for the lead to quote. */
static void test_speed(void **state)
{
	const char *names[] = {"randrw uniform", "randrw zipf .99", "randrw hot 10/90",
	                       "rw (sequential)"};
	const enum pattern_dist dists[] = {PATTERN_UNIFORM, PATTERN_ZIPF, PATTERN_HOTSPOT,
	                                   PATTERN_UNIFORM};
	const int n = 10000000;

	(void)state;
	for (size_t i = 0; i < sizeof(dists) / sizeof(dists[0]); i++) {
		struct pattern_config c =
		    pattern_test_cfg(i == 3 ? RW_RW : RW_RANDRW, 0, 100 * GiB);
		struct pattern p;
		struct pattern_op op;
		double t0, t1;

		c.dist = dists[i];
		c.zipf_theta = 0.99;
		c.read_pct = 70;
		pattern_test_init(&p, &c);
		t0 = pattern_test_now();
		/* pattern_next lives in another object: the compiler cannot drop the calls. */
		for (int k = 0; k < n; k++)
			pattern_next(&p, &op);
		t1 = pattern_test_now();
		print_message("pattern_next %-16s 70%% reads, 100 GiB, 4 KiB: %.1f ns/op\n",
		              names[i], (t1 - t0) / n);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sequential_wrap),
	    cmocka_unit_test(test_sequential_exact),
	    cmocka_unit_test(test_regions_disjoint),
	    cmocka_unit_test(test_random_in_region),
	    cmocka_unit_test(test_uniform_buckets),
	    cmocka_unit_test(test_read_mix),
	    cmocka_unit_test(test_zipf_share),
	    cmocka_unit_test(test_zipf_hot_spread),
	    cmocka_unit_test(test_scramble_covers),
	    cmocka_unit_test(test_hotspot),
	    cmocka_unit_test(test_arrivals_uniform),
	    cmocka_unit_test(test_arrivals_poisson),
	    cmocka_unit_test(test_arrivals_unpaced),
	    cmocka_unit_test(test_invalid),
	    cmocka_unit_test(test_speed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
