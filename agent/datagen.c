/* SPDX-License-Identifier: MIT */
/* Write data with a requested compressibility and dedupe ratio, at about memcpy speed. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "datagen.h"
#include "xalloc.h"

/*
 * How a block is made
 * -------------------
 * A block is cut into chunks of DATAGEN_CHUNK bytes (4KiB: the dedupe
 * granularity arrays use); a block smaller than that is one chunk of its own
 * size, so for 512B..2KiB blocks the dedupe granularity is the block. A block
 * that is not a multiple of 4KiB ends in a partial chunk: the head of a whole
 * chunk, unique or copied like any other.
 *
 * Every chunk is a pure function of (seed, seq), seq being the number of the
 * unique chunk. That lets a dedupe copy be regenerated from its seq instead of
 * being stored, and keeps datagen_fill to a pass over the block with no
 * allocation.
 *
 * A unique chunk is, in each 512-byte sector, a run of incompressible bytes
 * followed by zeros; the runs add up to the chunk's incompressible share, so
 * a compressor that works on one sector sees the same ratio as one that works
 * on 64KiB. The incompressible bytes are a stretch of a random pool made at
 * datagen_new, at an offset picked from seq and XORed with a 64-bit key picked
 * from seq: two chunks whose pool stretches overlap still share no byte
 * strings, so an LZ compressor finds no matches between chunks of one block
 * (a plain copy from a small pool would leave matches, and a pool big enough
 * to make overlaps rare would not stay in cache). The first 16 bytes are a
 * stamp, an invertible mix of (seed, seq): no two unique chunks of any two
 * datagens with different seeds are equal, and the stamp looks random, so it
 * does not compress either.
 *
 * A dedupe copy regenerates an earlier unique chunk. Its source is never in
 * the same fill and lies at least 64KiB of writes back, so copies add no LZ
 * matches to a block (or to a 64KiB compression unit made of small writes)
 * and do not change the measured compressibility. Sources come from a cursor
 * that walks the last few unique chunks in order, so the copies in one fill
 * are all of different chunks. Until enough unique chunks exist to copy, the
 * copies that could not be made are owed and made later, so the fraction over
 * a run still comes out right.
 */

#define DATAGEN_CHUNK     4096u
#define DATAGEN_SECTOR    512u
#define DATAGEN_SECTORS   (DATAGEN_CHUNK / DATAGEN_SECTOR)
#define DATAGEN_STAMP     16u
#define DATAGEN_POOL      (256u * 1024) /* fits in L2 next to the block being filled */
#define DATAGEN_MAX_BLOCK (16u << 20)
/* Dedupe sources lie this many bytes of unique chunks back, at least. */
#define DATAGEN_LAG_BYTES (64u * 1024)
/*
 * ...and are picked among this many bytes of unique chunks (or two blocks'
 * worth, if more): two copies of one source are at least that far apart.
 */
#define DATAGEN_SPAN_BYTES (256u * 1024)

struct datagen {
	unsigned char *pool; /* DATAGEN_POOL + DATAGEN_CHUNK random bytes */
	uint64_t seed;
	uint64_t seed_mix;      /* mixed seed, for the stamp */
	uint64_t rng;           /* xorshift64* state for the copy-or-not draws */
	uint64_t next_seq;      /* unique chunks made so far */
	uint64_t cursor;        /* next dedupe source, a seq */
	uint64_t owed;          /* copies that could not be made yet */
	uint64_t dup_threshold; /* a draw below this (of 2^32) makes a copy */
	uint32_t block_size;
	uint32_t chunk_size; /* DATAGEN_CHUNK, or block_size when smaller */
	uint32_t lag;        /* unique chunks between a copy's source and the fill */
	uint32_t span;       /* how many unique chunks a copy may come from */
	/* incompressible bytes in each sector of a chunk; multiples of 8 */
	uint32_t run[DATAGEN_SECTORS];
};

/* MurmurHash3's finalizer: a bijection on 64 bits that spreads every input bit. */
static uint64_t datagen_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

/* xorshift64*: the copy decisions need speed, not quality. */
static uint64_t datagen_rand(struct datagen *d)
{
	d->rng ^= d->rng >> 12;
	d->rng ^= d->rng << 25;
	d->rng ^= d->rng >> 27;
	return d->rng * UINT64_C(2685821657736338717);
}

/*
 * Incompressible bytes per chunk of size bytes for compress_pct. The target
 * is that the compressor's output is (100 - pct)% of its input, but the output
 * holds more than the random bytes: about 3 bytes per zero run (a literal and
 * a long match), the Huffman tables, zlib's 6-byte header and trailer, and
 * literals of random bytes cost a little over 8 bits. Measured with zlib,
 * that is ~2.3% of the input when each 4KiB is compressed alone and ~1.0%
 * when 64KiB is; trimming the random share by 1.5% of the chunk puts both
 * within a point of the target, at level 1 as at level 6. pct 0 stays all
 * random: there is no zero run to pay for.
 */
static uint32_t datagen_random_bytes(uint32_t pct, uint32_t size)
{
	uint64_t want = (uint64_t)size * (100 - pct) / 100;
	uint64_t trim = (uint64_t)size * 15 / 1000;

	if (pct == 0)
		return size;
	want = want > trim ? want - trim : 0;
	/* The nearest multiple of 8: a 512B chunk has only 64 steps to choose from. */
	return (uint32_t)((want + 4) & ~UINT64_C(7));
}

/* Spread the chunk's incompressible bytes evenly over its sectors, in 8-byte units. */
static void datagen_layout(struct datagen *d, uint32_t pct)
{
	uint32_t nsect = d->chunk_size / DATAGEN_SECTOR;
	uint32_t units = datagen_random_bytes(pct, d->chunk_size) / 8;

	for (uint32_t s = 0; s < DATAGEN_SECTORS; s++) {
		uint32_t lo = units * s / nsect, hi = units * (s + 1) / nsect;

		d->run[s] = s < nsect ? (hi - lo) * 8 : 0;
	}
}

typedef uint64_t datagen_vec __attribute__((vector_size(16)));

/* dst = src ^ key for n bytes (a multiple of 8): a memcpy that makes each copy distinct. */
static void datagen_xor(unsigned char *restrict dst, const unsigned char *restrict src, uint32_t n,
                        uint64_t key)
{
	datagen_vec k = {key, key};
	uint32_t i = 0;

	/* Four vectors per turn: the loop's overhead would otherwise cost as much as the copy. */
	for (; i + 64 <= n; i += 64) {
		datagen_vec v[4];

		memcpy(v, src + i, sizeof(v));
		v[0] ^= k;
		v[1] ^= k;
		v[2] ^= k;
		v[3] ^= k;
		memcpy(dst + i, v, sizeof(v));
	}
	for (; i + 16 <= n; i += 16) {
		datagen_vec v;

		memcpy(&v, src + i, sizeof(v));
		v ^= k;
		memcpy(dst + i, &v, sizeof(v));
	}
	if (i < n) {
		uint64_t v;

		memcpy(&v, src + i, sizeof(v));
		v ^= key;
		memcpy(dst + i, &v, sizeof(v));
	}
}

/*
 * Write the first len bytes of unique chunk seq. The stamp (a, b) is a
 * two-round Feistel-like mix of (seed, seq): b = mix(seq ^ mix(seed)), a =
 * seed ^ mix(b ^ K). From (a, b) one gets seed back, then seq, so distinct
 * (seed, seq) give distinct stamps.
 */
static void datagen_chunk(const struct datagen *d, uint64_t seq, unsigned char *dst, uint32_t len)
{
	uint64_t b = datagen_mix(seq ^ d->seed_mix);
	uint64_t a = d->seed ^ datagen_mix(b ^ UINT64_C(0x9e3779b97f4a7c15));
	uint64_t pick = datagen_mix(b + UINT64_C(0x632be59bd9b4e019));
	const unsigned char *src = d->pool + (pick % (DATAGEN_POOL / 8)) * 8;
	uint64_t key = datagen_mix(pick);

	for (uint32_t off = 0, s = 0; off < len; off += DATAGEN_SECTOR, s++) {
		uint32_t run = d->run[s];

		datagen_xor(dst + off, src, run, key);
		if (run < DATAGEN_SECTOR)
			memset(dst + off + run, 0, DATAGEN_SECTOR - run);
		src += run;
	}
	memcpy(dst, &a, sizeof(a));
	memcpy(dst + sizeof(a), &b, sizeof(b));
}

struct datagen *datagen_new(const struct datagen_config *cfg)
{
	struct datagen *d;
	uint64_t s;

	if (cfg->compress_pct > 100 || cfg->dedupe_pct > 100 || cfg->block_size == 0 ||
	    cfg->block_size % DATAGEN_SECTOR != 0 || cfg->block_size > DATAGEN_MAX_BLOCK)
		return NULL;

	d = xcalloc(1, sizeof(*d));
	d->seed = cfg->seed;
	d->seed_mix = datagen_mix(cfg->seed ^ UINT64_C(0xd1b54a32d192ed03));
	d->rng = datagen_mix(cfg->seed + UINT64_C(0x8cb92ba72f3d8dd7)) | 1;
	d->dup_threshold = ((uint64_t)cfg->dedupe_pct << 32) / 100;
	d->block_size = cfg->block_size;
	d->chunk_size = cfg->block_size < DATAGEN_CHUNK ? cfg->block_size : DATAGEN_CHUNK;
	d->lag = DATAGEN_LAG_BYTES / d->chunk_size;
	d->span = 2 * ((cfg->block_size + d->chunk_size - 1) / d->chunk_size);
	if (d->span < DATAGEN_SPAN_BYTES / d->chunk_size)
		d->span = DATAGEN_SPAN_BYTES / d->chunk_size;
	datagen_layout(d, cfg->compress_pct);

	/* The pool's slack lets a chunk read its 4KiB from any offset without wrapping. */
	d->pool = xmalloc(DATAGEN_POOL + DATAGEN_CHUNK);
	s = datagen_mix(cfg->seed ^ UINT64_C(0x5851f42d4c957f2d));
	for (size_t i = 0; i < DATAGEN_POOL + DATAGEN_CHUNK; i += 8) {
		uint64_t v = datagen_mix(s += UINT64_C(0x9e3779b97f4a7c15));

		memcpy(d->pool + i, &v, sizeof(v));
	}
	return d;
}

/*
 * Pick the unique chunk a copy in this fill regenerates, or return false if
 * none may be copied. base is next_seq at the start of the fill; ncopies how
 * many copies this fill made so far. The cursor walks [lo, hi) in order and
 * wraps, so it repeats a source only after visiting the whole window, and a
 * fill makes at most that many copies: no source twice in one fill.
 */
static bool datagen_source(struct datagen *d, uint64_t base, uint64_t ncopies, uint64_t *seq)
{
	uint64_t hi, lo;

	if (base <= d->lag)
		return false;
	hi = base - d->lag;
	lo = hi > d->span ? hi - d->span : 0;
	if (ncopies >= hi - lo)
		return false;
	if (d->cursor < lo || d->cursor >= hi)
		d->cursor = lo;
	*seq = d->cursor++;
	return true;
}

void datagen_fill(struct datagen *d, void *buf)
{
	unsigned char *p = buf;
	uint64_t base = d->next_seq, ncopies = 0;

	for (uint32_t off = 0; off < d->block_size; off += d->chunk_size) {
		uint32_t len =
		    d->block_size - off < d->chunk_size ? d->block_size - off : d->chunk_size;
		bool copy = (datagen_rand(d) >> 32) < d->dup_threshold;
		uint64_t seq;

		if (!copy && d->owed > 0) {
			copy = true;
			d->owed--;
		}
		if (copy && datagen_source(d, base, ncopies, &seq)) {
			ncopies++;
		} else {
			if (copy)
				d->owed++;
			seq = d->next_seq++;
		}
		datagen_chunk(d, seq, p + off, len);
	}
}

/* Word j of the pool datagen_new makes for seed, without making the pool. */
static uint64_t datagen_pool_word(uint64_t seed, uint64_t j)
{
	uint64_t s = datagen_mix(seed ^ UINT64_C(0x5851f42d4c957f2d));

	return datagen_mix(s + (j + 1) * UINT64_C(0x9e3779b97f4a7c15));
}

/* The incompressible run of a chunk's first sector, shortest and longest over chunk sizes. */
static void datagen_first_run(uint32_t pct, uint32_t *lo, uint32_t *hi)
{
	*lo = DATAGEN_SECTOR;
	*hi = 0;
	for (uint32_t size = DATAGEN_SECTOR; size <= DATAGEN_CHUNK; size += DATAGEN_SECTOR) {
		uint32_t run = datagen_random_bytes(pct, size) / 8 / (size / DATAGEN_SECTOR) * 8;

		*lo = run < *lo ? run : *lo;
		*hi = run > *hi ? run : *hi;
	}
}

bool datagen_check(const void *buf, size_t len, uint32_t compress_pct)
{
	uint64_t seed;

	return datagen_check_seed(buf, len, compress_pct, &seed);
}

bool datagen_check_seed(const void *buf, size_t len, uint32_t compress_pct, uint64_t *seed_out)
{
	const unsigned char *p = buf;
	uint64_t a, b, seed, pick, key, idx;
	uint32_t lo, hi;

	if (len < DATAGEN_STAMP || compress_pct > 100)
		return false;
	memcpy(&a, p, sizeof(a));
	memcpy(&b, p + sizeof(a), sizeof(b));
	/* A hole or zeroed range reads as a zero stamp, which no chunk carries (2^-128). */
	if (a == 0 && b == 0)
		return false;
	/* The stamp gives the seed back (datagen_chunk); the rest follows from seed and stamp. */
	seed = a ^ datagen_mix(b ^ UINT64_C(0x9e3779b97f4a7c15));
	pick = datagen_mix(b + UINT64_C(0x632be59bd9b4e019));
	idx = pick % (DATAGEN_POOL / 8);
	key = datagen_mix(pick);
	/* The chunk size (the writer's block size, up to 4KiB) sets the run's length. */
	datagen_first_run(compress_pct, &lo, &hi);
	if (len > DATAGEN_SECTOR)
		len = DATAGEN_SECTOR;
	for (size_t off = DATAGEN_STAMP; off + 8 <= len && off < lo; off += 8) {
		uint64_t v;

		memcpy(&v, p + off, sizeof(v));
		if (v != (datagen_pool_word(seed, idx + off / 8) ^ key))
			return false;
	}
	for (size_t off = hi > DATAGEN_STAMP ? hi : DATAGEN_STAMP; off < len; off++)
		if (p[off] != 0)
			return false;
	*seed_out = seed;
	return true;
}

uint64_t datagen_clone_seed(const char *name)
{
	/* FNV-1a: stable and simple; the prefix keeps a clone's seed off small numbers. */
	static const char prefix[] = "iocurve-clone:";
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (const char *s = prefix; *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
	for (const char *s = name; *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
	h = datagen_mix(h);
	return h != 0 ? h : 1;
}

void datagen_free(struct datagen *d)
{
	if (d == NULL)
		return;
	free(d->pool);
	free(d);
}
