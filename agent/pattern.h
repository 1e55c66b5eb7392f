/* SPDX-License-Identifier: MIT */
/* Access patterns: which offset the next operation touches, read or write, and when. */
#ifndef IOCURVE_PATTERN_H
#define IOCURVE_PATTERN_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "rw.h"

enum pattern_dist {
	PATTERN_UNIFORM = 0,
	PATTERN_ZIPF,    /* zipf:THETA over the working set's blocks */
	PATTERN_HOTSPOT, /* hotspot:SET/OPS: OPS% of operations hit SET% of the working set */
};

/*
 * One worker's view of its target. Offsets are byte offsets into the target.
 * The worker touches [region_offset, region_offset + region_len): its own
 * contiguous region (a sequential stream per worker, like fio's
 * offset_increment) or, for random patterns, its share of the working set.
 * All offsets are multiples of align; every operation is block_size long and
 * lies wholly inside the region.
 */
struct pattern_config {
	enum rw_mode rw;   /* read, write, randread, randwrite, rw, randrw */
	uint32_t read_pct; /* rw/randrw: percent of operations that read (0..100) */
	uint32_t block_size;
	uint32_t align; /* 0 means block_size; a multiple of 512 */
	uint64_t region_offset;
	uint64_t region_len;
	enum pattern_dist dist;
	double zipf_theta;  /* > 0, != 1 allowed; typical 0.8..1.2 */
	double hot_set_pct; /* hotspot: size of the hot set, % of the region */
	double hot_ops_pct; /* hotspot: % of operations that go to the hot set */
	uint64_t seed;
};

struct pattern_op {
	uint64_t offset;
	bool write;
};

/*
 * Opaque to callers but sized here so a worker can hold one without allocating.
 * Random patterns map a rank (0 hottest for zipf; hot set first for hotspot)
 * onto a slot with slot = (rank * perm_mul + perm_add) mod nslots, gcd(perm_mul,
 * nslots) = 1, so hot slots are spread over the region. The permutation
 * depends only on nslots, not on the seed: workers sharing a region agree on
 * which blocks are hot.
 */
struct pattern {
	struct pattern_config cfg; /* as given, with align 0 resolved to block_size */
	uint64_t rng;              /* splitmix64 state */
	uint64_t nslots;           /* aligned start positions in the region */
	uint64_t cursor;           /* sequential: byte offset of the next op within the region */
	uint64_t hot_slots;  /* hotspot: max(1, nslots * hot_set_pct / 100), ranks 0..hot_slots-1 */
	uint64_t hot_thresh; /* hotspot: a draw below this goes to the hot set (ops% of 2^64) */
	/* zipf, rejection-inversion sampling (no tables, O(1) per draw) */
	double z_hxm;                /* H(N + 1/2) */
	double z_hx0m;               /* H(3/2) - 1 */
	double z_s;                  /* squeeze: accept rank k at once when k - x <= z_s */
	double z_q;                  /* theta */
	uint64_t perm_mul, perm_add; /* spreads ranks over the region (see above) */
	uint64_t perm_magic;         /* UINT64_MAX / nslots: mod nslots by multiply-high */
};

/*
 * Validate and set up. -1 with err (naming the field and its value) when the
 * region cannot hold one block, sizes are not multiples of 512, etc.
 * Sequential modes (read, write, rw) ignore dist and step by block_size from
 * the region's start, wrapping before an op would cross the region's end;
 * they need align to divide block_size.
 */
int pattern_init(struct pattern *p, const struct pattern_config *cfg, struct error *err);
/* The next operation. Hot path: a few multiplies; no allocation, no syscalls. */
void pattern_next(struct pattern *p, struct pattern_op *op);
/*
 * The next operation of len bytes (at most block_size, a multiple of align): a
 * sequential walk steps by len, not by block_size (a mix's size distribution);
 * random offsets are as pattern_next's, each with room for a whole block_size.
 */
void pattern_next_len(struct pattern *p, struct pattern_op *op, uint32_t len);

enum arrivals_kind {
	ARRIVALS_UNIFORM = 0, /* operation k at start + (k + phase)/rate */
	ARRIVALS_POISSON,     /* exponential gaps with mean 1/rate; the first at start */
};

struct arrivals {
	enum arrivals_kind kind;
	uint64_t start_ns;
	double period_ns;
	uint64_t k;
	double phase; /* uniform: offset of every arrival, in periods, [0, 1) */
	double t;     /* poisson: ns since start of the next arrival */
	uint64_t rng;
};

/* rate in operations per second; rate <= 0 puts every arrival at start_ns (no pacing). */
void arrivals_init(struct arrivals *a, enum arrivals_kind kind, double rate, uint64_t start_ns,
                   uint64_t seed);
/*
 * Uniform arrivals only: shift every arrival by phase (0..1) of a period. A fleet
 * of G workers at one rate, worker g at phase g/G, merges into an even stream.
 */
void arrivals_set_phase(struct arrivals *a, double phase);
/* Intended start of the next operation (absolute ns); never drifts (no accumulated rounding). */
uint64_t arrivals_next(struct arrivals *a);
/*
 * How many of the arrivals not yet returned by arrivals_next fall before t; a
 * stays as it is. Uniform: computed; Poisson: drawn on a copy; unpaced: 0.
 */
uint64_t arrivals_due_before(const struct arrivals *a, uint64_t t);

/* The greatest common divisor of a and b (a when b is 0). */
uint64_t pattern_gcd(uint64_t a, uint64_t b);

#endif
