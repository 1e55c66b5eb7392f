/* SPDX-License-Identifier: MIT */
/* Access patterns: sequential streams, uniform/zipf/hotspot offsets, read/write mixes, arrivals. */
#include <inttypes.h>
#include <math.h>

#include "pattern.h"

/* 0.618...: spreads consecutive ranks as far apart as an affine map can. */
#define PATTERN_GOLDEN UINT64_C(0x9e3779b97f4a7c15)

/*
 * splitmix64: one word of state, one add and two multiplies per draw, and it
 * passes BigCrush, which is all a benchmark's offsets need.
 */
static inline uint64_t pattern_rand(uint64_t *state)
{
	uint64_t z = (*state += PATTERN_GOLDEN);

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* floor(a * b / 2^64): maps a uniform 64-bit draw onto [0, b) without a division. */
static inline uint64_t pattern_mulhi(uint64_t a, uint64_t b)
{
	return (uint64_t)(((unsigned __int128)a * b) >> 64);
}

/* Uniform in [0, 1) with 53 random bits; never 1, so log1p(-u) stays finite. */
static inline double pattern_unit(uint64_t r)
{
	return (double)(r >> 11) * 0x1.0p-53;
}

/* Read or write for a mix: the top 32 bits scaled to 0..99 (bias ~1e-8) against read_pct. */
static inline bool pattern_mix_write(struct pattern *p)
{
	uint64_t r = pattern_rand(&p->rng);

	return (((r >> 32) * 100) >> 32) >= p->cfg.read_pct;
}

/*
 * rank -> slot, a bijection on [0, nslots). perm_mul is small enough that
 * rank * perm_mul + perm_add fits in 64 bits; the mod is a Barrett reduction
 * (the quotient estimate is at most two short), because a 64-bit divide costs
 * more than the rest of pattern_next together.
 */
static inline uint64_t pattern_perm(const struct pattern *p, uint64_t rank)
{
	uint64_t x = rank * p->perm_mul + p->perm_add;
	uint64_t r = x - pattern_mulhi(x, p->perm_magic) * p->nslots;

	/* Selects, not a loop: how many corrections a draw needs is random, so a branch
	 * mispredicts. */
	r -= r >= p->nslots ? p->nslots : 0;
	r -= r >= p->nslots ? p->nslots : 0;
	return r;
}

/*
 * Zipf by rejection-inversion (Hörmann and Derflinger, "Rejection-inversion to
 * generate variates from monotone discrete distributions", 1996). h(x) = x^-q
 * is the unnormalised density; H is its integral, written with expm1/log1p so
 * that q == 1 (where H is log x) needs no special case and q near 1 loses no
 * precision.
 */
static double pattern_zipf_helper1(double x) /* log1p(x) / x */
{
	if (fabs(x) > 1e-8)
		return log1p(x) / x;
	return 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}

static double pattern_zipf_helper2(double x) /* expm1(x) / x */
{
	if (fabs(x) > 1e-8)
		return expm1(x) / x;
	return 1 + x * 0.5 * (1 + x * (1.0 / 3) * (1 + 0.25 * x));
}

static double pattern_zipf_h(double q, double x)
{
	return exp(-q * log(x));
}

/* H(x) = (x^(1-q) - 1) / (1 - q), or log x for q == 1. */
static double pattern_zipf_hint(double q, double x)
{
	double lx = log(x);

	return pattern_zipf_helper2((1 - q) * lx) * lx;
}

static double pattern_zipf_hinv(double q, double y)
{
	double t = y * (1 - q);

	if (t < -1) /* rounding at the very top of the range */
		t = -1;
	return exp(pattern_zipf_helper1(t) * y);
}

static void pattern_zipf_setup(struct pattern *p)
{
	double q = p->cfg.zipf_theta;

	p->z_q = q;
	p->z_hxm = pattern_zipf_hint(q, (double)p->nslots + 0.5);
	p->z_hx0m = pattern_zipf_hint(q, 1.5) - 1;
	p->z_s = 2 - pattern_zipf_hinv(q, pattern_zipf_hint(q, 2.5) - pattern_zipf_h(q, 2));
}

/* A zipf rank in 1..nslots, 1 the most popular. Accepts on the first try almost always. */
static uint64_t pattern_zipf_rank(struct pattern *p)
{
	double q = p->z_q;

	for (;;) {
		double u = p->z_hxm + pattern_unit(pattern_rand(&p->rng)) * (p->z_hx0m - p->z_hxm);
		double x = pattern_zipf_hinv(q, u);
		uint64_t k = x < 1 ? 1 : (uint64_t)(x + 0.5);
		double kd;

		if (k > p->nslots)
			k = p->nslots;
		kd = (double)k;
		if (kd - x <= p->z_s || u >= pattern_zipf_hint(q, kd + 0.5) - pattern_zipf_h(q, kd))
			return k;
	}
}

/* The slot a random operation starts at, by the configured distribution. */
static inline uint64_t pattern_random_slot(struct pattern *p)
{
	uint64_t r, u, base, span;

	switch (p->cfg.dist) {
	case PATTERN_ZIPF:
		return pattern_perm(p, pattern_zipf_rank(p) - 1);
	case PATTERN_HOTSPOT:
		r = pattern_rand(&p->rng);
		u = pattern_rand(&p->rng);
		/*
		 * Hot ranks are [0, hot_slots), cold ones the rest; selects rather
		 * than a branch that mispredicts on every cold draw. A region of one
		 * slot has no cold set: everything is hot.
		 */
		if (r < p->hot_thresh || p->hot_slots == p->nslots) {
			base = 0;
			span = p->hot_slots;
		} else {
			base = p->hot_slots;
			span = p->nslots - p->hot_slots;
		}
		return pattern_perm(p, base + pattern_mulhi(u, span));
	case PATTERN_UNIFORM:
	default:
		return pattern_mulhi(pattern_rand(&p->rng), p->nslots);
	}
}

uint64_t pattern_gcd(uint64_t a, uint64_t b)
{
	while (b != 0) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * The rank scramble. The multiplier is near 0.618 * nslots (consecutive ranks
 * land far apart) but capped so rank * mul < 2^63, and walked down to one
 * coprime with nslots so the map is a bijection (1 always is).
 */
static void pattern_perm_setup(struct pattern *p)
{
	uint64_t n = p->nslots;
	uint64_t mul = pattern_mulhi(PATTERN_GOLDEN, n);
	uint64_t cap = (UINT64_C(1) << 63) / n;

	if (mul > cap)
		mul = cap;
	if (mul < 1)
		mul = 1;
	while (pattern_gcd(mul, n) != 1)
		mul--;
	p->perm_mul = mul;
	p->perm_add = pattern_mulhi(UINT64_C(0x6a09e667f3bcc909), n);
	p->perm_magic = UINT64_MAX / n;
}

static int pattern_check_dist(const struct pattern_config *c, struct error *err)
{
	switch (c->dist) {
	case PATTERN_UNIFORM:
		return 0;
	case PATTERN_ZIPF:
		if (!(c->zipf_theta > 0) || !isfinite(c->zipf_theta)) {
			error_set(err,
			          "zipf_theta %g: must be a finite number > 0 (typical 0.8..1.2)",
			          c->zipf_theta);
			return -1;
		}
		return 0;
	case PATTERN_HOTSPOT:
		if (!(c->hot_set_pct > 0 && c->hot_set_pct < 100)) {
			error_set(err, "hot_set_pct %g: must be between 0 and 100, exclusive",
			          c->hot_set_pct);
			return -1;
		}
		if (!(c->hot_ops_pct > 0 && c->hot_ops_pct < 100)) {
			error_set(err, "hot_ops_pct %g: must be between 0 and 100, exclusive",
			          c->hot_ops_pct);
			return -1;
		}
		return 0;
	}
	error_set(err, "dist %d: unknown distribution (uniform, zipf or hotspot)", (int)c->dist);
	return -1;
}

static int pattern_check(const struct pattern_config *c, struct error *err)
{
	if ((unsigned)c->rw >= RW_MODE_COUNT) {
		error_set(err, "rw %d: unknown mode", (int)c->rw);
		return -1;
	}
	if (c->block_size == 0 || c->block_size % 512 != 0) {
		error_set(err, "block_size %" PRIu32 ": must be a positive multiple of 512",
		          c->block_size);
		return -1;
	}
	if (c->align == 0 || c->align % 512 != 0) {
		error_set(err, "align %" PRIu32 ": must be a positive multiple of 512", c->align);
		return -1;
	}
	/* A sequential stream steps by block_size: every offset is aligned only if align divides
	 * it. */
	if (!rw_is_random(c->rw) && c->block_size % c->align != 0) {
		error_set(err,
		          "align %" PRIu32 ": must divide block_size %" PRIu32 " for sequential %s",
		          c->align, c->block_size, rw_mode_name(c->rw));
		return -1;
	}
	if (c->region_offset % c->align != 0) {
		error_set(err, "region_offset %" PRIu64 ": not a multiple of align %" PRIu32,
		          c->region_offset, c->align);
		return -1;
	}
	if (c->region_len < c->block_size) {
		error_set(err,
		          "region_len %" PRIu64 ": cannot hold one block of %" PRIu32
		          " bytes; use a larger target or fewer workers",
		          c->region_len, c->block_size);
		return -1;
	}
	if (c->region_len > UINT64_MAX - c->region_offset) {
		error_set(err, "region_len %" PRIu64 ": region_offset %" PRIu64 " + len overflows",
		          c->region_len, c->region_offset);
		return -1;
	}
	if (c->read_pct > 100) {
		error_set(err, "read_pct %" PRIu32 ": must be 0..100", c->read_pct);
		return -1;
	}
	if (rw_is_random(c->rw))
		return pattern_check_dist(c, err);
	return 0;
}

int pattern_init(struct pattern *p, const struct pattern_config *cfg, struct error *err)
{
	struct pattern_config c = *cfg;

	if (c.align == 0)
		c.align = c.block_size;
	if (pattern_check(&c, err) < 0)
		return -1;

	*p = (struct pattern){.cfg = c, .rng = c.seed};
	p->nslots = (c.region_len - c.block_size) / c.align + 1;
	pattern_perm_setup(p);
	if (!rw_is_random(c.rw))
		return 0;
	if (c.dist == PATTERN_ZIPF) {
		pattern_zipf_setup(p);
	} else if (c.dist == PATTERN_HOTSPOT) {
		/* In this order the product is exact, so 10% of 10000 is 1000, not 999. */
		double hot = floor((double)p->nslots * c.hot_set_pct / 100);
		double thresh = ldexp(c.hot_ops_pct / 100, 64);

		p->hot_slots = hot < 1 ? 1 : hot >= (double)p->nslots ? p->nslots : (uint64_t)hot;
		p->hot_thresh = thresh >= 0x1.0p64 ? UINT64_MAX : (uint64_t)thresh;
	}
	return 0;
}

void pattern_next(struct pattern *p, struct pattern_op *op)
{
	const struct pattern_config *c = &p->cfg;

	switch (c->rw) {
	case RW_READ:
	case RW_WRITE:
	case RW_RW:
		op->offset = c->region_offset + p->cursor;
		p->cursor += c->block_size;
		/* Wrap before the next op would cross the region's end. */
		if (p->cursor > c->region_len - c->block_size)
			p->cursor = 0;
		break;
	case RW_RANDREAD:
	case RW_RANDWRITE:
	case RW_RANDRW:
	default:
		op->offset = c->region_offset + pattern_random_slot(p) * c->align;
		break;
	}

	switch (c->rw) {
	case RW_WRITE:
	case RW_RANDWRITE:
		op->write = true;
		break;
	case RW_RW:
	case RW_RANDRW:
		op->write = pattern_mix_write(p);
		break;
	default:
		op->write = false;
		break;
	}
}

void arrivals_init(struct arrivals *a, enum arrivals_kind kind, double rate, uint64_t start_ns,
                   uint64_t seed)
{
	*a = (struct arrivals){
	    .kind = kind,
	    .start_ns = start_ns,
	    .period_ns = rate > 0 ? 1e9 / rate : 0,
	    /* Its own stream: the same seed as the worker's pattern must not correlate with it. */
	    .rng = seed ^ UINT64_C(0xbb67ae8584caa73b),
	};
}

static uint64_t arrivals_uniform_at(const struct arrivals *a, uint64_t k)
{
	return a->start_ns + (uint64_t)(((double)k + a->phase) * a->period_ns + 0.5);
}

uint64_t arrivals_next(struct arrivals *a)
{
	uint64_t at;

	if (a->kind == ARRIVALS_POISSON) {
		/* A double holds ns since start to well under 1 ns for days. */
		at = a->start_ns + (uint64_t)a->t;
		a->t += -log1p(-pattern_unit(pattern_rand(&a->rng))) * a->period_ns;
		return at;
	}
	/* Fresh from k each time: operation 10^9 is as exact as operation 1. */
	at = arrivals_uniform_at(a, a->k);
	a->k++;
	return at;
}

void arrivals_set_phase(struct arrivals *a, double phase)
{
	a->phase = phase > 0 && phase < 1 ? phase : 0;
}

uint64_t arrivals_due_before(const struct arrivals *a, uint64_t t)
{
	struct arrivals c = *a;
	uint64_t n = 0, j;

	/* Unpaced (closed loop) arrivals are never behind: nothing is due. */
	if (t <= a->start_ns || !(a->period_ns > 0))
		return 0;
	if (a->kind == ARRIVALS_POISSON) {
		while (arrivals_next(&c) < t)
			n++;
		return n;
	}
	/* The first index due at or after t: estimated, then corrected for rounding. */
	j = (uint64_t)fmax(0, (double)(t - a->start_ns) / a->period_ns - a->phase);
	while (j > 0 && arrivals_uniform_at(a, j - 1) >= t)
		j--;
	while (arrivals_uniform_at(a, j) < t)
		j++;
	return j > a->k ? j - a->k : 0;
}

void pattern_next_len(struct pattern *p, struct pattern_op *op, uint32_t len)
{
	const struct pattern_config *c = &p->cfg;

	pattern_next(p, op);
	if (rw_is_random(c->rw) || len == c->block_size)
		return;
	/* from this operation's own offset: pattern_next may have wrapped already */
	p->cursor = op->offset - c->region_offset + len;
	if (p->cursor > c->region_len - c->block_size)
		p->cursor = 0;
}
