/* SPDX-License-Identifier: MIT */
/* Unit tests for written data: zlib-measured compressibility, dedupe fraction, uniqueness, speed.
 */
#include <inttypes.h>
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <zlib.h>

#include "datagen.h"
#include "xalloc.h"

#define DATAGEN_TEST_CHUNK 4096u
#define DATAGEN_TEST_UNIT  65536u /* the larger compression unit, and the staging buffer */
/* Chunks hashed per run: 20,000 puts one binomial sigma near 0.35 points. */
#define DATAGEN_TEST_CHUNKS 20000u
/* 64KiB zlib samples per run, spread over it: 512KiB, compressed whole and per 4KiB. */
#define DATAGEN_TEST_SAMPLES 8u

/* 128 bits of a chunk and its length: equal chunks hash equal; a false match is ~2^-100. */
struct datagen_test_hash {
	uint64_t a, b;
};

/* What one run measured. */
struct datagen_test_result {
	uint64_t units;              /* dedupe units hashed */
	uint64_t copies;             /* units equal to an earlier one */
	double pct_4k, pct_64k;      /* zlib output / input, percent, per 4KiB and per 64KiB */
	struct datagen_test_hash *h; /* the units' hashes, sorted, if kept */
};

static uint64_t datagen_test_fmix(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

/* Two independent multiply-rotate lanes over 8-byte words, finalized together. */
static struct datagen_test_hash datagen_test_hash(const unsigned char *p, size_t len)
{
	uint64_t a = UINT64_C(0x243f6a8885a308d3) ^ len, b = UINT64_C(0x13198a2e03707344) + len;
	struct datagen_test_hash h;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, sizeof(w));
		a = (a ^ w) * UINT64_C(0x9e3779b97f4a7c15);
		a = (a << 31) | (a >> 33);
		b = (b + w) * UINT64_C(0xc2b2ae3d27d4eb4f);
		b ^= b >> 29;
	}
	h.a = datagen_test_fmix(a ^ datagen_test_fmix(b));
	h.b = datagen_test_fmix(b + h.a);
	return h;
}

static int datagen_test_hash_cmp(const void *x, const void *y)
{
	const struct datagen_test_hash *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return 0;
}

/* Sort hashes in place and count the ones equal to an earlier one. */
static uint64_t datagen_test_copies(struct datagen_test_hash *h, uint64_t n)
{
	uint64_t copies = 0;

	qsort(h, n, sizeof(*h), datagen_test_hash_cmp);
	for (uint64_t i = 1; i < n; i++)
		copies += datagen_test_hash_cmp(&h[i - 1], &h[i]) == 0;
	return copies;
}

/* zlib output bytes for len bytes compressed in units of unit bytes. */
static uint64_t datagen_test_zlib(const unsigned char *p, size_t len, size_t unit, int level)
{
	static unsigned char out[DATAGEN_TEST_UNIT + 1024];
	uint64_t total = 0;

	for (size_t off = 0; off < len; off += unit) {
		uLongf n = sizeof(out);

		assert_int_equal(compress2(out, &n, p + off, unit, level), Z_OK);
		total += n;
	}
	return total;
}

/*
 * Fill blocks until DATAGEN_TEST_CHUNKS dedupe units (4KiB, or the block if
 * smaller) have been hashed. The stream of blocks is also cut into 64KiB
 * units, and DATAGEN_TEST_SAMPLES of them spread over the run are compressed
 * whole and as 4KiB pieces: copies of earlier chunks are in the sample, so
 * it shows whether they change the ratio.
 */
static void datagen_test_run(const struct datagen_config *cfg, int level, bool keep,
                             struct datagen_test_result *r)
{
	uint32_t unit = cfg->block_size < DATAGEN_TEST_CHUNK ? cfg->block_size : DATAGEN_TEST_CHUNK;
	uint32_t per_block = (cfg->block_size + unit - 1) / unit;
	uint64_t nblocks = (DATAGEN_TEST_CHUNKS + per_block - 1) / per_block;
	uint64_t stream = nblocks * cfg->block_size, stride, staged = 0, nunit = 0, in = 0;
	uint64_t out4 = 0, out64 = 0;
	unsigned char *blk = xmalloc(cfg->block_size), *stage = xmalloc(DATAGEN_TEST_UNIT);
	struct datagen *d = datagen_new(cfg);

	assert_non_null(d);
	memset(r, 0, sizeof(*r));
	r->h = xcalloc(nblocks * per_block, sizeof(*r->h));
	stride = stream / DATAGEN_TEST_UNIT / DATAGEN_TEST_SAMPLES;
	if (stride == 0)
		stride = 1;
	for (uint64_t i = 0; i < nblocks; i++) {
		datagen_fill(d, blk);
		for (uint32_t off = 0; off < cfg->block_size; off += unit) {
			uint32_t len = cfg->block_size - off < unit ? cfg->block_size - off : unit;

			r->h[r->units++] = datagen_test_hash(blk + off, len);
		}
		for (uint32_t off = 0; off < cfg->block_size;) {
			uint32_t n = DATAGEN_TEST_UNIT - staged;

			if (n > cfg->block_size - off)
				n = cfg->block_size - off;
			memcpy(stage + staged, blk + off, n);
			staged += n;
			off += n;
			if (staged < DATAGEN_TEST_UNIT)
				continue;
			staged = 0;
			if (nunit++ % stride != 0)
				continue;
			in += DATAGEN_TEST_UNIT;
			out64 +=
			    datagen_test_zlib(stage, DATAGEN_TEST_UNIT, DATAGEN_TEST_UNIT, level);
			out4 +=
			    datagen_test_zlib(stage, DATAGEN_TEST_UNIT, DATAGEN_TEST_CHUNK, level);
		}
	}
	assert_true(in > 0);
	r->pct_4k = 100.0 * (double)out4 / (double)in;
	r->pct_64k = 100.0 * (double)out64 / (double)in;
	r->copies = datagen_test_copies(r->h, r->units);
	if (!keep) {
		free(r->h);
		r->h = NULL;
	}
	datagen_free(d);
	free(stage);
	free(blk);
}

/* Measured ratios are within 5 points of the request: compressed size, copy fraction. */
static void datagen_test_check(const struct datagen_config *cfg,
                               const struct datagen_test_result *r, int level)
{
	double want = 100.0 - cfg->compress_pct;
	double copy_pct = 100.0 * (double)r->copies / (double)r->units;

	print_message("  bs %7" PRIu32 " compress %3" PRIu32 " dedupe %3" PRIu32 " zlib-%d:"
	              " out/in 4KiB %6.2f%% 64KiB %6.2f%% (want %5.1f%%), copies %6.2f%%\n",
	              cfg->block_size, cfg->compress_pct, cfg->dedupe_pct, level, r->pct_4k,
	              r->pct_64k, want, copy_pct);
	assert_true(r->pct_4k > want - 5.0 && r->pct_4k < want + 5.0);
	assert_true(r->pct_64k > want - 5.0 && r->pct_64k < want + 5.0);
	if (cfg->dedupe_pct == 0)
		assert_int_equal(r->copies, 0);
	else
		assert_true(copy_pct > cfg->dedupe_pct - 5.0 && copy_pct < cfg->dedupe_pct + 5.0);
}

/*
 * Every requested (compress, dedupe) pair measures as requested with zlib
 * level 6. Copies must also leave the ratio alone, more tightly than the
 * 5-point window: a copy of a chunk in the same 64KiB would compress to a
 * few bytes, and 80% copies picked that carelessly move the ratio by ~4
 * points.
 */
static void datagen_test_grid(void **state)
{
	static const uint32_t compress[] = {0, 25, 50, 75, 90};
	static const uint32_t dedupe[] = {0, 25, 50, 80};

	(void)state;
	for (size_t i = 0; i < sizeof(compress) / sizeof(compress[0]); i++) {
		struct datagen_test_result none;

		for (size_t j = 0; j < sizeof(dedupe) / sizeof(dedupe[0]); j++) {
			struct datagen_config cfg = {.compress_pct = compress[i],
			                             .dedupe_pct = dedupe[j],
			                             .block_size = 65536,
			                             .seed = 1000 + i * 10 + j};
			struct datagen_test_result r;

			datagen_test_run(&cfg, 6, false, &r);
			datagen_test_check(&cfg, &r, 6);
			if (j == 0)
				none = r;
			assert_true(r.pct_4k > none.pct_4k - 0.5 && r.pct_4k < none.pct_4k + 0.5);
			assert_true(r.pct_64k > none.pct_64k - 0.5 &&
			            r.pct_64k < none.pct_64k + 0.5);
		}
	}
}

/* A fast compressor finds the same: the data does not rely on level 6's harder search. */
static void datagen_test_zlib_fast(void **state)
{
	static const uint32_t compress[] = {0, 25, 50, 75, 90};

	(void)state;
	for (size_t i = 0; i < sizeof(compress) / sizeof(compress[0]); i++) {
		struct datagen_config cfg = {
		    .compress_pct = compress[i], .dedupe_pct = 50, .block_size = 65536, .seed = 7};
		struct datagen_test_result r;

		datagen_test_run(&cfg, 1, false, &r);
		datagen_test_check(&cfg, &r, 1);
	}
}

/* The default for writes: every 4KiB chunk differs from every other and none compresses. */
static void datagen_test_default_unique(void **state)
{
	struct datagen_config cfg = {.block_size = 4096, .seed = 42};
	struct datagen_test_result r;

	(void)state;
	datagen_test_run(&cfg, 6, false, &r);
	datagen_test_check(&cfg, &r, 6);
	assert_int_equal(r.units, DATAGEN_TEST_CHUNKS);
	assert_int_equal(r.copies, 0);
	assert_true(r.pct_4k > 99.0 && r.pct_64k > 99.0);
}

/*
 * Workers get different seeds and must never write a chunk another worker
 * wrote, copies included; one bit of difference in the seed is enough.
 */
static void datagen_test_seeds(void **state)
{
	static const uint64_t seeds[][2] = {{1, 2}, {0, 1}, {UINT64_C(1) << 63, 0}};
	struct datagen_test_hash *all;

	(void)state;
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		struct datagen_test_result r[2];
		uint64_t n = 0;

		for (int k = 0; k < 2; k++) {
			struct datagen_config cfg = {.compress_pct = 50,
			                             .dedupe_pct = 50,
			                             .block_size = 8192,
			                             .seed = seeds[i][k]};

			datagen_test_run(&cfg, 6, true, &r[k]);
		}
		/* Each stream's distinct chunks, then one copy count over both. */
		all = xcalloc(2 * DATAGEN_TEST_CHUNKS, sizeof(*all));
		for (int k = 0; k < 2; k++)
			for (uint64_t j = 0; j < r[k].units; j++)
				if (j == 0 ||
				    datagen_test_hash_cmp(&r[k].h[j - 1], &r[k].h[j]) != 0)
					all[n++] = r[k].h[j];
		assert_int_equal(datagen_test_copies(all, n), 0);
		free(all);
		free(r[0].h);
		free(r[1].h);
	}
}

/* A chunk is a function of (seed, sequence): the same seed replays the same stream. */
static void datagen_test_same_seed(void **state)
{
	struct datagen_config cfg = {
	    .compress_pct = 25, .dedupe_pct = 25, .block_size = 65536, .seed = 9};
	struct datagen *a = datagen_new(&cfg), *b = datagen_new(&cfg);
	unsigned char *pa = xmalloc(cfg.block_size), *pb = xmalloc(cfg.block_size);

	(void)state;

	for (int i = 0; i < 64; i++) {
		datagen_fill(a, pa);
		datagen_fill(b, pb);
		assert_memory_equal(pa, pb, cfg.block_size);
	}
	datagen_free(a);
	datagen_free(b);
	free(pa);
	free(pb);
}

/*
 * Sizes from one sector to 1MiB. Below 4KiB the dedupe unit is the block
 * itself; 6KiB ends in a partial chunk, so only its uniqueness and ratio are
 * checked. Guard bytes after the block catch a fill that writes too far.
 */
static void datagen_test_block_sizes(void **state)
{
	static const uint32_t sizes[] = {512, 4096, 8192, 65536, 1048576, 6144};

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct datagen_config cfg = {
		    .compress_pct = 50, .dedupe_pct = 50, .block_size = sizes[i], .seed = 5 + i};
		/* Unique chunks only; 6KiB also checks its partial chunk's ratio. */
		struct datagen_config plain = {.compress_pct = sizes[i] == 6144 ? 75 : 0,
		                               .block_size = sizes[i],
		                               .seed = 50 + i};
		struct datagen_test_result r;
		unsigned char *p = xmalloc(sizes[i] + 64);
		struct datagen *d = datagen_new(&cfg);

		memset(p + sizes[i], 0xa5, 64);
		for (int k = 0; k < 8; k++)
			datagen_fill(d, p);
		for (int k = 0; k < 64; k++)
			assert_int_equal(p[sizes[i] + k], 0xa5);
		datagen_free(d);
		free(p);

		datagen_test_run(&plain, 6, false, &r);
		datagen_test_check(&plain, &r, 6);
		if (sizes[i] % DATAGEN_TEST_CHUNK == 0 || sizes[i] < DATAGEN_TEST_CHUNK) {
			datagen_test_run(&cfg, 6, false, &r);
			datagen_test_check(&cfg, &r, 6);
		}
	}
}

/* Out-of-range configurations are refused rather than silently adjusted. */
static void datagen_test_config(void **state)
{
	static const struct datagen_config bad[] = {
	    {.block_size = 0},
	    {.block_size = 1000},
	    {.block_size = (16u << 20) + 512},
	    {.compress_pct = 101, .block_size = 4096},
	    {.dedupe_pct = 101, .block_size = 4096},
	};
	struct datagen_config big = {
	    .compress_pct = 100, .dedupe_pct = 100, .block_size = 16u << 20};
	struct datagen *d;
	unsigned char *p;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_null(datagen_new(&bad[i]));
	d = datagen_new(&big);
	assert_non_null(d);
	p = xmalloc(big.block_size);
	datagen_fill(d, p);
	datagen_fill(d, p);
	datagen_free(d);
	free(p);
}

static double datagen_test_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds for one pass of fn over bytes in blocks of size: the best of 5, as the host is shared. */
static double datagen_test_time(struct datagen *d, unsigned char *dst, const unsigned char *src,
                                uint32_t size, size_t bytes)
{
	double best = 1e9;

	for (int rep = 0; rep < 5; rep++) {
		double t0 = datagen_test_now(), t;

		for (size_t k = 0; k < bytes / size; k++) {
			if (d != NULL)
				datagen_fill(d, dst);
			else
				memcpy(dst, src + (k * size) % (256u * 1024), size);
			/* Keep the compiler from dropping stores nobody reads. */
			__asm__ volatile("" : : "r"(dst) : "memory");
		}
		t = datagen_test_now() - t0;
		if (t < best)
			best = t;
	}
	return best;
}

/*
 * datagen_fill runs once per write: it must not allocate (the heap's use is
 * the same before and after many fills), and it should cost about a memcpy
 * of the block. The rates are printed, not asserted: they depend on the host.
 */
static void datagen_test_speed(void **state)
{
	static const uint32_t sizes[] = {8192, 65536};
	static const uint32_t mix[][2] = {{0, 0}, {50, 50}, {90, 80}};
	const size_t bytes = 64u << 20;
	unsigned char *src = xmalloc(256u * 1024), *dst = xmalloc(65536);

	(void)state;
	memset(src, 0x5a, 256u * 1024);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		double t = datagen_test_time(NULL, dst, src, sizes[i], bytes);

		print_message("  memcpy       %6" PRIu32
		              "B blocks:                     %8.0f MB/s\n",
		              sizes[i], (double)bytes / t / 1e6);
		for (size_t m = 0; m < sizeof(mix) / sizeof(mix[0]); m++) {
			struct datagen_config cfg = {.compress_pct = mix[m][0],
			                             .dedupe_pct = mix[m][1],
			                             .block_size = sizes[i],
			                             .seed = 3};
			struct datagen *d = datagen_new(&cfg);
			struct mallinfo2 before, after;

			datagen_fill(d, dst);
			before = mallinfo2();
			t = datagen_test_time(d, dst, src, sizes[i], bytes);
			after = mallinfo2();
			assert_int_equal(before.uordblks, after.uordblks);
			assert_int_equal(before.hblkhd, after.hblkhd);
			print_message("  datagen_fill %6" PRIu32 "B blocks, compress %2" PRIu32
			              " dedupe %2" PRIu32 ": %8.0f MB/s\n",
			              sizes[i], mix[m][0], mix[m][1], (double)bytes / t / 1e6);
			datagen_free(d);
		}
	}
	free(src);
	free(dst);
}

/*
 * datagen_check knows a chunk of any datagen's (any seed, any block size up to
 * and over 4KiB, copies included) from its first sector, for the layout's
 * read-back: every chunk head passes; a sector inside a chunk, zeros (a hole)
 * and other bytes fail; and a check for another compress_pct fails.
 */
static void datagen_test_check_chunks(void **state)
{
	static const uint32_t pcts[] = {0, 30, 50, 90, 100};
	static const uint32_t sizes[] = {512, 1536, 2048, 4096, 6144, 65536};
	unsigned char *buf = xmalloc(65536), zeros[512] = {0}, junk[512];

	(void)state;
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)(i * 131 + 7);
	for (size_t p = 0; p < sizeof(pcts) / sizeof(pcts[0]); p++) {
		assert_false(datagen_check(zeros, sizeof(zeros), pcts[p]));
		assert_false(datagen_check(junk, sizeof(junk), pcts[p]));
		for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			struct datagen_config cfg = {.compress_pct = pcts[p],
			                             .dedupe_pct = 50,
			                             .block_size = sizes[z],
			                             .seed = 77 + z};
			struct datagen *d = datagen_new(&cfg);
			uint32_t chunk = sizes[z] < 4096 ? sizes[z] : 4096;

			assert_non_null(d);
			for (int k = 0; k < 40; k++) {
				datagen_fill(d, buf);
				for (uint32_t off = 0; off < sizes[z]; off += chunk) {
					uint32_t n = sizes[z] - off < 512 ? sizes[z] - off : 512;

					assert_true(datagen_check(buf + off, n, pcts[p]));
					/* Inside a chunk: no stamp there (for 100%: zeros). */
					if (chunk > 512 && off + 512 < sizes[z])
						assert_false(
						    datagen_check(buf + off + 512, 512, pcts[p]));
				}
				/* The compress setting is part of what the layout wrote. */
				if (pcts[p] != 0 && pcts[p] != 100)
					assert_false(
					    datagen_check(buf, 512, pcts[p] == 30 ? 90 : 0));
			}
			datagen_free(d);
		}
	}
	free(buf);
}

/*
 * A clone's seed is a function of its name alone, pinned (the same image on every
 * host and release: agents of two builds lay out the same bytes); other names give
 * other seeds. Two datagens of the seed fill the same bytes, with dedupe copies and
 * compressible runs alike, and their chunks give the seed back to the layout's check.
 */
static void datagen_test_clone_seed(void **state)
{
	static const char *const names[] = {"golden", "golden2", "Golden", "g", "a.b_c-d", ""};
	unsigned char *a = xmalloc(1 << 20), *b = xmalloc(1 << 20);
	uint64_t want = datagen_clone_seed("golden"), got = 0;

	(void)state;
	assert_true(want == UINT64_C(0x637f53da0b35eaee));
	assert_true(datagen_clone_seed("golden") == want);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_true(datagen_clone_seed(names[i]) != 0);
		for (size_t j = 0; j < i; j++)
			assert_true(datagen_clone_seed(names[i]) != datagen_clone_seed(names[j]));
	}
	for (uint32_t pct = 0; pct <= 50; pct += 50) {
		struct datagen_config cfg = {
		    .compress_pct = pct, .dedupe_pct = 30, .block_size = 1 << 20, .seed = want};
		struct datagen *x = datagen_new(&cfg), *y = datagen_new(&cfg);

		for (int k = 0; k < 4; k++) {
			datagen_fill(x, a);
			datagen_fill(y, b);
			assert_memory_equal(a, b, 1 << 20);
		}
		for (uint32_t off = 0; off < 1 << 20; off += 4096) {
			assert_true(datagen_check_seed(a + off, 512, pct, &got));
			assert_true(got == want);
		}
		/* Another clone's chunks name their own seed. */
		cfg.seed = datagen_clone_seed("other");
		datagen_free(x);
		x = datagen_new(&cfg);
		datagen_fill(x, a);
		assert_true(datagen_check_seed(a, 512, pct, &got));
		assert_true(got == cfg.seed);
		assert_memory_not_equal(a, b, 4096);
		datagen_free(x);
		datagen_free(y);
	}
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(datagen_test_default_unique),
	    cmocka_unit_test(datagen_test_grid),
	    cmocka_unit_test(datagen_test_zlib_fast),
	    cmocka_unit_test(datagen_test_seeds),
	    cmocka_unit_test(datagen_test_same_seed),
	    cmocka_unit_test(datagen_test_block_sizes),
	    cmocka_unit_test(datagen_test_config),
	    cmocka_unit_test(datagen_test_check_chunks),
	    cmocka_unit_test(datagen_test_clone_seed),
	    cmocka_unit_test(datagen_test_speed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
