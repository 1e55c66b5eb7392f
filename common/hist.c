/* SPDX-License-Identifier: MIT */
/* Log-linear latency histogram: bin geometry, merge, quantiles and the sparse wire form. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "iocurve.pb-c.h"
#include "xalloc.h"

void hist_reset(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	/* UINT64_MAX so the first recorded value always becomes the minimum. */
	h->min = UINT64_MAX;
}

void hist_clear(struct hist *h)
{
	if (h->count > 0 && h->min <= h->max) {
		unsigned lo = hist_index(h->min), hi = hist_index(h->max);

		memset(&h->bins[lo], 0, (size_t)(hi - lo + 1) * sizeof(h->bins[0]));
	}
	h->count = 0;
	h->sum = 0;
	h->min = UINT64_MAX;
	h->max = 0;
}

void hist_copy_used(struct hist *dst, const struct hist *src)
{
	hist_clear(dst);
	if (src->count > 0 && src->min <= src->max) {
		unsigned lo = hist_index(src->min), hi = hist_index(src->max);

		memcpy(&dst->bins[lo], &src->bins[lo],
		       (size_t)(hi - lo + 1) * sizeof(dst->bins[0]));
	}
	dst->count = src->count;
	dst->sum = src->sum;
	dst->min = src->min;
	dst->max = src->max;
}

/*
 * Width of bin idx as a power-of-two shift; bins below 2 * HIST_SUB_COUNT are
 * one nanosecond wide. Callers pass an index already clamped to the table.
 */
static unsigned hist_bin_shift(unsigned idx)
{
	if (idx < 2 * HIST_SUB_COUNT)
		return 0;
	return idx / HIST_SUB_COUNT - 1;
}

/* The inverse of hist_index: out-of-range indexes clamp to the last bin, as values do. */
uint64_t hist_bin_low(unsigned idx)
{
	unsigned shift;

	if (idx >= HIST_BINS)
		idx = HIST_BINS - 1;
	if (idx < HIST_SUB_COUNT)
		return idx;
	shift = hist_bin_shift(idx);
	return (uint64_t)(HIST_SUB_COUNT + idx % HIST_SUB_COUNT) << shift;
}

/*
 * Centre of the bin's continuous range [low, low + width): halving the worst
 * case relative error of reporting the low edge.
 */
uint64_t hist_bin_mid(unsigned idx)
{
	if (idx >= HIST_BINS)
		idx = HIST_BINS - 1;
	return hist_bin_low(idx) + ((UINT64_C(1) << hist_bin_shift(idx)) >> 1);
}

void hist_span(const struct hist *h, unsigned *lo, unsigned *hi)
{
	*lo = 0;
	*hi = 0;
	if (h->count > 0 && h->min <= h->max) {
		*lo = hist_index(h->min);
		*hi = hist_index(h->max) + 1;
	}
}

/*
 * Halves h's bins (a non-empty bin keeps at least 1, so min's and max's stay
 * non-empty) and sets count to their total and sum to the same mean: sum x the new
 * count / the old one, rounded down, which keeps sum / count in [min, max].
 */
static void hist_halve(struct hist *h)
{
	unsigned i, lo, hi;
	uint64_t count = 0;

	hist_span(h, &lo, &hi);
	for (i = lo; i < hi; i++) {
		h->bins[i] = h->bins[i] / 2 + h->bins[i] % 2;
		count += h->bins[i];
	}
	h->sum = (uint64_t)((unsigned __int128)h->sum * count / h->count);
	h->count = count;
}

/*
 * A merge past HIST_COUNT_MAX or HIST_SUM_MAX keeps the distribution and gives up the
 * count: the bins are halved until count and sum fit (or every bin is down to 1), so
 * quantiles, the mean, min and max stay what the values say and the bins still add up
 * to count; the count is then a lower bound. Capping count, sum and each bin apart, as
 * before, left bins adding up to more than count (refused when read back) and a mean
 * outside [min, max] (a saturated sum over many values read as a mean below min).
 */
void hist_merge(struct hist *dst, const struct hist *src)
{
	unsigned i, lo, hi;
	uint64_t cmin, cmax;
	unsigned __int128 sum;

	if (src->count == 0)
		return;
	hist_span(src, &lo, &hi);
	/* Each side within its bounds (hist_check): these sums cannot wrap. */
	for (i = lo; i < hi; i++)
		dst->bins[i] += src->bins[i];
	dst->count += src->count;
	if (__builtin_add_overflow(dst->sum, src->sum, &dst->sum))
		dst->sum = UINT64_MAX; /* not from checked sides; clamped below */
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	while (dst->count > HIST_COUNT_MAX || dst->sum > HIST_SUM_MAX) {
		uint64_t before = dst->count;

		hist_halve(dst);
		if (dst->count == before)
			break;
	}
	/*
	 * Every bin at 1 and the sum still past its bound (a few thousand values near
	 * HIST_VALUE_MAX): the sum stops at the bound, a lower bound of the mean. The mean
	 * is then kept within [min, max] (rounding in the halving cannot take it out).
	 */
	cmin = dst->min;
	cmax = dst->max;
	sum = dst->sum;
	if (sum > HIST_SUM_MAX)
		sum = HIST_SUM_MAX;
	if (sum > (unsigned __int128)dst->count * cmax)
		sum = (unsigned __int128)dst->count * cmax;
	if (sum < (unsigned __int128)dst->count * cmin)
		sum = (unsigned __int128)dst->count * cmin;
	dst->sum = (uint64_t)sum;
}

/*
 * hist_check on the four fields alone: hist_decode checks a message's before it
 * touches any histogram, with no 36 KiB table of bins to carry them in.
 */
static int hist_check_fields(const char *name, uint64_t count, uint64_t sum, uint64_t min,
                             uint64_t max, struct error *err)
{
	if (count == 0)
		return 0;
	if (min > max) {
		error_set(err, "%s min %" PRIu64 " is more than max %" PRIu64, name, min, max);
		return -1;
	}
	if (count > HIST_COUNT_MAX || max > HIST_VALUE_MAX || sum > HIST_SUM_MAX) {
		error_set(err,
		          "%s count %" PRIu64 ", min %" PRIu64 ", max %" PRIu64 " or sum %" PRIu64
		          " past its bound (count and values at most 2^53, sum at most 2^62 ns)",
		          name, count, min, max, sum);
		return -1;
	}
	if (sum / count >= min && sum / count <= max)
		return 0;
	error_set(err,
	          "%s sum_ns %" PRIu64 " is not %" PRIu64 " values in [%" PRIu64 ", %" PRIu64 "]",
	          name, sum, count, min, max);
	return -1;
}

int hist_check(const char *name, const struct hist *h, struct error *err)
{
	return hist_check_fields(name, h->count, h->sum, h->min, h->max, err);
}

double hist_mean(const struct hist *h)
{
	if (h->count == 0)
		return 0.0;
	return (double)h->sum / (double)h->count;
}

/*
 * 1-based rank of the value at quantile q. Percentiles written in decimal
 * (99.9) are not exact in binary, so q/100 * count can land a hair above an
 * integer and ceil would step one rank too far; a relative slack of 1e-9
 * absorbs that without changing any rank a real quantile asks for.
 */
static uint64_t hist_rank(uint64_t count, double q)
{
	double x, r;

	if (!(q > 0.0)) /* also catches NaN */
		return 1;
	if (q >= 100.0)
		return count;
	x = q / 100.0 * (double)count;
	r = floor(x);
	if (x - r > x * 1e-9)
		r += 1.0;
	if (r < 1.0)
		return 1;
	if (r >= (double)count)
		return count;
	return (uint64_t)r;
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen = 0, v;
	unsigned i, lo, hi;

	if (h->count == 0)
		return 0;
	rank = hist_rank(h->count, q);
	hist_span(h, &lo, &hi);
	for (i = lo; i < hi; i++) {
		seen += h->bins[i];
		if (seen >= rank)
			break;
	}
	/* Bins that disagree with count (never from record/merge) fall back to max. */
	v = i < hi ? hist_bin_mid(i) : h->max;
	/* The extreme bins are wide; min and max are exact, so never report past them. */
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

size_t hist_varint_put(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

size_t hist_pairs_put(uint8_t *out, const uint64_t *pairs, size_t n)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += hist_varint_put(out + len, pairs[i]);
	return len;
}

void hist_encode(const struct hist *h, struct Iocurve__Histogram *out)
{
	size_t used = 0, n = 0;
	unsigned i, prev = 0;
	bool first = true;

	iocurve__histogram__init(out);
	out->sub_bucket_bits = HIST_SUB_BITS;
	out->count = h->count;
	out->sum = h->sum;
	/* An empty histogram's UINT64_MAX min would cost ten bytes on the wire for nothing. */
	out->min = h->count ? h->min : 0;
	out->max = h->max;

	for (i = 0; i < HIST_BINS; i++)
		if (h->bins[i])
			used++;
	if (used == 0)
		return;
	out->bins.data = xmalloc(2 * used * HIST_VARINT_MAX);
	for (i = 0; i < HIST_BINS; i++) {
		if (!h->bins[i])
			continue;
		n += hist_varint_put(out->bins.data + n, first ? i : i - prev - 1);
		n += hist_varint_put(out->bins.data + n, h->bins[i]);
		prev = i;
		first = false;
	}
	out->bins.len = n;
}

void hist_encoded_free(struct Iocurve__Histogram *out)
{
	free(out->bins.data);
	out->bins.data = NULL;
	out->bins.len = 0;
}

/* The end of in's bins: no bins (NULL, 0) end where they start, without NULL + 0. */
static const uint8_t *hist_bins_end(const struct Iocurve__Histogram *in)
{
	return in->bins.data != NULL ? in->bins.data + in->bins.len : NULL;
}

/*
 * The varint at *p, before end, with *p moved past it; false when it runs off the end
 * or over 64 bits. Most bins' gaps and counts take one byte: that case first.
 */
static inline bool hist_varint_get(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;
	uint64_t x = 0;

	if (q < end && *q < 0x80) {
		*v = *q;
		*p = q + 1;
		return true;
	}
	for (unsigned shift = 0; q < end && shift < 64; shift += 7) {
		uint8_t b = *q++;

		if (shift == 63 && b > 1)
			return false;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (b < 0x80) {
			*v = x;
			*p = q;
			return true;
		}
	}
	return false;
}

static int hist_varint_error(const struct Iocurve__Histogram *in, const uint8_t *at, size_t p,
                             const char *what, struct error *err)
{
	error_set(err, "histogram: bin pair %zu: its %s is not a varint (from byte %zu of %zu)", p,
	          what, (size_t)(at - in->bins.data), in->bins.len);
	return -1;
}

/* The bins a message holds, checked, kept until the histogram may be touched. */
_Static_assert(HIST_BINS <= UINT16_MAX + 1u, "a bin's index fits 16 bits");
struct hist_pairs {
	size_t n;
	uint16_t idx[HIST_BINS];
	uint64_t count[HIST_BINS];
};

/*
 * Walk the (gap, count) pairs without trusting them: every number is read within
 * the bytes, every index checked against the table before use and the running total
 * against overflow, so a hostile peer can produce an error message but never a wild
 * read or write. On success, out holds the non-empty bins, by rising index: one pass
 * over the bytes, the histogram filled from out once everything is checked.
 */
static int hist_decode_check_bins(const struct Iocurve__Histogram *in, struct hist_pairs *out,
                                  struct error *err)
{
	const uint8_t *at = in->bins.data, *end = hist_bins_end(in);
	uint64_t next = 0, total = 0, gap, c;
	size_t p;

	if (in->bins.len > 0 && in->bins.data == NULL) {
		error_set(err, "histogram: bins claims %zu bytes but holds none", in->bins.len);
		return -1;
	}
	for (p = 0; at < end; p++) {
		if (!hist_varint_get(&at, end, &gap))
			return hist_varint_error(in, at, p, "gap", err);
		if (at == end) {
			error_set(
			    err,
			    "histogram: bins end inside pair %zu, expected (gap, count) pairs "
			    "(an even number of entries)",
			    p);
			return -1;
		}
		if (!hist_varint_get(&at, end, &c))
			return hist_varint_error(in, at, p, "count", err);
		/* next <= HIST_BINS here, so the subtraction cannot wrap. */
		if (next >= HIST_BINS || gap >= HIST_BINS - next) {
			error_set(err,
			          "histogram: bin pair %zu (gap %" PRIu64
			          ") puts its index past the "
			          "last bin (%u)",
			          p, gap, HIST_BINS - 1);
			return -1;
		}
		if (c == 0) {
			error_set(err,
			          "histogram: bin pair %zu (index %" PRIu64 ") has count 0; only "
			          "non-empty bins belong on the wire",
			          p, next + gap);
			return -1;
		}
		/* p < HIST_BINS: every pair's index is above the last's and below HIST_BINS */
		out->idx[p] = (uint16_t)(next + gap);
		out->count[p] = c;
		next += gap + 1;
		if (__builtin_add_overflow(total, c, &total)) {
			error_set(err, "histogram: bin counts overflow 64 bits at bin pair %zu", p);
			return -1;
		}
	}
	if (total != in->count) {
		error_set(err, "histogram: bin counts add up to %" PRIu64 " but count is %" PRIu64,
		          total, in->count);
		return -1;
	}
	out->n = p;
	return 0;
}

int hist_decode(struct hist *h, const struct Iocurve__Histogram *in, struct error *err)
{
	struct hist_pairs pairs;
	unsigned first, last;

	if (in->sub_bucket_bits != HIST_SUB_BITS) {
		error_set(err,
		          "histogram: sub_bucket_bits is %" PRIu32 ", expected %u (the peer was "
		          "built with a different histogram layout)",
		          in->sub_bucket_bits, HIST_SUB_BITS);
		return -1;
	}
	if (hist_decode_check_bins(in, &pairs, err) < 0)
		return -1;
	first = pairs.n ? pairs.idx[0] : 0;
	last = pairs.n ? pairs.idx[pairs.n - 1] : 0;
	if (in->count == 0) {
		if (in->sum != 0 || in->min != 0 || in->max != 0) {
			error_set(err,
			          "histogram: empty (count 0) but sum %" PRIu64 ", min %" PRIu64
			          ", max %" PRIu64 " are not all 0",
			          in->sum, in->min, in->max);
			return -1;
		}
	} else if (in->min > in->max || hist_index(in->min) != first ||
	           hist_index(in->max) != last) {
		/* Quantiles clamp to min and max, so they must agree with the bins. */
		error_set(err,
		          "histogram: min %" PRIu64 " and max %" PRIu64
		          " disagree with the non-empty bins (%u..%u)",
		          in->min, in->max, first, last);
		return -1;
	}

	if (hist_check_fields("histogram:", in->count, in->sum, in->min, in->max, err) < 0)
		return -1;
	/* Only now touch h, so a rejected message leaves the caller's histogram intact. */
	hist_clear(h);
	h->count = in->count;
	h->sum = in->sum;
	h->min = in->count ? in->min : UINT64_MAX;
	h->max = in->max;
	for (size_t i = 0; i < pairs.n; i++)
		h->bins[pairs.idx[i]] = pairs.count[i];
	return 0;
}
