/* SPDX-License-Identifier: MIT */
/* Log-linear (HDR-style) latency histogram: record, merge, quantiles, wire form. */
#ifndef IOCURVE_HIST_H
#define IOCURVE_HIST_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/*
 * Values are nanoseconds. Values below HIST_SUB_COUNT have a bin each; above,
 * every power of two is split into HIST_SUB_COUNT linear sub-buckets, so a bin
 * is at most 1/128 of its value wide (< 0.8% relative error, ~0.4% at the bin
 * midpoint used for quantiles). Values past the last bin are counted in it;
 * min, max, count and sum are exact, so the mean is exact.
 *
 * One worker owns one histogram while recording (no locks, no atomics), and
 * publishes it whole; merging is adding counts.
 */
#define HIST_SUB_BITS  7
#define HIST_SUB_COUNT (1u << HIST_SUB_BITS)
/* Highest power of two with its own sub-buckets: 2^41 ns ~ 36 minutes. */
#define HIST_MAX_MSB 41
#define HIST_BINS    (HIST_SUB_COUNT * (HIST_MAX_MSB - HIST_SUB_BITS + 2))
/*
 * What a histogram may hold, checked wherever one enters (hist_decode, hist_check):
 * a value (min, max) and a count under 2^53, exact in a double and in every JSON
 * reader; a sum at most 2^62 ns (146 years of latency), under the 2^63 - 1 that
 * JSON integers and jansson carry. hist_merge stays within them (below), never
 * wrapping.
 */
#define HIST_VALUE_MAX (UINT64_C(1) << 53)
#define HIST_COUNT_MAX (UINT64_C(1) << 53)
#define HIST_SUM_MAX   (UINT64_C(1) << 62)

struct hist {
	uint64_t count;
	uint64_t sum;
	uint64_t min; /* UINT64_MAX when empty */
	uint64_t max;
	uint64_t bins[HIST_BINS];
};

/* Bin index of a value: a clz and a few shifts, no branches beyond the small-value test. */
static inline unsigned hist_index(uint64_t v)
{
	unsigned msb, shift;

	if (v < HIST_SUB_COUNT)
		return (unsigned)v;
	msb = 63u - (unsigned)__builtin_clzll(v);
	if (msb > HIST_MAX_MSB)
		return HIST_BINS - 1;
	shift = msb - HIST_SUB_BITS;
	return (shift + 1u) * HIST_SUB_COUNT + (unsigned)((v >> shift) - HIST_SUB_COUNT);
}

/* The hot-path record: an index computation and a few adds. */
static inline void hist_record(struct hist *h, uint64_t v)
{
	h->bins[hist_index(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/* Fresh memory (malloc'd, on the stack) as an empty histogram: all ~37 KB written. */
void hist_reset(struct hist *h);
/*
 * A histogram made before, empty again, writing only the bins it used. Like
 * hist_copy_used, it needs h to hold no count outside its [min, max] bins: what
 * hist_reset, hist_record, hist_merge and hist_decode keep; a zeroed hist is such a one.
 * A report's few hundred bins in use cost that many, not 4,608.
 */
void hist_clear(struct hist *h);
/*
 * dst becomes a copy of src, writing only the bins either of them uses: both must hold
 * no count outside their [min, max] bins (as for hist_clear). A 37 KB histogram of a
 * few hundred bins in use costs that many.
 */
void hist_copy_used(struct hist *dst, const struct hist *src);
/* Lowest value that falls in bin idx, and the bin's representative (midpoint). */
uint64_t hist_bin_low(unsigned idx);
uint64_t hist_bin_mid(unsigned idx);
/*
 * The bins [*lo, *hi) that can be non-empty: min's to max's (none when empty).
 * Every way a histogram is made (hist_record, hist_merge, hist_decode's checks)
 * keeps the bins outside empty, so loops over bins need only these.
 */
void hist_span(const struct hist *h, unsigned *lo, unsigned *hi);
/*
 * Adds src to dst. Past HIST_COUNT_MAX or HIST_SUM_MAX the bins are halved until
 * they fit: the distribution (quantiles, mean, min, max) is kept, the count becomes
 * a lower bound; the bins always add up to count and sum / count is in [min, max].
 */
void hist_merge(struct hist *dst, const struct hist *src);
/*
 * count, min and max within their bounds, sum too, and the mean between min and
 * max (sum / count in [min, max]). name starts the error.
 */
int hist_check(const char *name, const struct hist *h, struct error *err);
/* Mean in ns (exact, from sum/count); 0 when empty. */
double hist_mean(const struct hist *h);
/*
 * Value at quantile q in [0, 100] (e.g. 99.9): the midpoint of the bin holding
 * the ceil(q/100 * count)-th smallest value, clamped to [min, max]; 0 when empty.
 */
uint64_t hist_quantile(const struct hist *h, double q);

/*
 * Wire form (proto Histogram): only non-empty bins, as (gap, count) pairs, each
 * number a varint, one after the other in the bytes of bins.
 * hist_encode fills *out and allocates out->bins (free with hist_encoded_free).
 * hist_decode validates everything it reads (sub-bucket bits, varints within the
 * bytes, an even number of them, indexes in range, no zero-count pairs, counts that add up to
 * count, min and max in the first and last non-empty bins, all-zero fields
 * when empty); on a malformed message it fills err, returns -1 and leaves *h
 * untouched. The wire min is 0 when count is 0 (UINT64_MAX in memory). *h is a
 * histogram made before (hist_reset, or zeroed), emptied by hist_clear: decoding
 * writes the bins the message and *h held, not the whole table.
 */
/* protobuf-c >= 1.4 names the struct Iocurve__Histogram (no leading underscore). */
struct Iocurve__Histogram;
/* The most bytes one number takes as a varint. */
#define HIST_VARINT_MAX 10
/* v as a varint at out (room for HIST_VARINT_MAX); its length. */
size_t hist_varint_put(uint8_t *out, uint64_t v);
/* n numbers (pairs, as the wire has them) as varints at out (room for n x HIST_VARINT_MAX). */
size_t hist_pairs_put(uint8_t *out, const uint64_t *pairs, size_t n);
void hist_encode(const struct hist *h, struct Iocurve__Histogram *out);
void hist_encoded_free(struct Iocurve__Histogram *out);
int hist_decode(struct hist *h, const struct Iocurve__Histogram *in, struct error *err);

#endif
