/* SPDX-License-Identifier: MIT */
/* What the histogram's unit tests share: fresh histograms, deterministic data, equality. */
#ifndef IOCURVE_HIST_TEST_H
#define IOCURVE_HIST_TEST_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hist.h"
#include "iocurve.pb-c.h"
#include "xalloc.h"

/* A struct hist is ~36 KiB: keep them off the stack and zeroed like a fresh one. */
static inline struct hist *hist_test_new(void)
{
	struct hist *h = xmalloc(sizeof(*h));

	hist_reset(h);
	return h;
}

/* xorshift64*: deterministic data that does not depend on the libc's rand(). */
static inline uint64_t hist_test_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

/* Exponential with the given mean, at least 1 ns: latency-shaped data with a long tail. */
static inline uint64_t hist_test_exp(uint64_t *s, double mean)
{
	double u = ((double)(hist_test_rand(s) >> 11) + 0.5) / 9007199254740992.0;

	return 1 + (uint64_t)(-mean * log(u));
}

/* Two histograms alike in every field and bin. */
static inline void hist_test_assert_same(const struct hist *a, const struct hist *b)
{
	assert_int_equal(a->count, b->count);
	assert_int_equal(a->sum, b->sum);
	assert_int_equal(a->min, b->min);
	assert_int_equal(a->max, b->max);
	assert_memory_equal(a->bins, b->bins, sizeof(a->bins));
}

/* Encode, pack to bytes, unpack, decode: nothing changes. */
static inline void hist_test_round_trip(const struct hist *h)
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

#endif
