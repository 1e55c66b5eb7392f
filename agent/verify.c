/* SPDX-License-Identifier: MIT */
/* Verified data: stamp each 4KiB block with a header on write, check it on read. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>
#include <zlib.h>

#include "iocurve.pb-c.h"

#include "verify.h"

#define VERIFY_MAGIC 0x76636f69u /* "iocv" in little-endian order */

enum verify_sum verify_sum_of_method(int method)
{
	return method == IOCURVE__VERIFY_METHOD__VERIFY_XXH64 ? VERIFY_SUM_XXH64 : VERIFY_SUM_CRC32;
}

const char *verify_sum_name(enum verify_sum sum)
{
	return sum == VERIFY_SUM_XXH64 ? "xxh64" : "crc32";
}

/*
 * The checksum of a block as its header's sum names it: crc32 of its bytes after the crc
 * itself; xxh64 of the same bytes but its own two halves (4..7 and 28..31), so the
 * header's fields are covered either way.
 */
static uint64_t verify_sum(const unsigned char *blk, enum verify_sum sum)
{
	if (sum == VERIFY_SUM_XXH64)
		return XXH64(blk + VERIFY_HEADER, VERIFY_BLOCK - VERIFY_HEADER,
		             XXH64(blk + 8, 20, 0));
	return (uint32_t)crc32_z(0, blk + 8, VERIFY_BLOCK - 8);
}

void verify_stamp(void *buf, size_t len, uint64_t offset, uint32_t worker, uint64_t generation,
                  enum verify_sum sum)
{
	unsigned char *p = buf;
	uint16_t w16 = (uint16_t)worker;
	uint8_t kind = (uint8_t)sum, zero8 = 0;

	for (size_t at = 0; at + VERIFY_BLOCK <= len; at += VERIFY_BLOCK) {
		unsigned char *blk = p + at;
		uint32_t magic = VERIFY_MAGIC, lo, hi = 0;
		uint64_t off = offset + at, v;

		memcpy(blk, &magic, 4);
		memcpy(blk + 8, &off, 8);
		memcpy(blk + 16, &generation, 8);
		memcpy(blk + 24, &w16, 2);
		memcpy(blk + 26, &kind, 1);
		memcpy(blk + 27, &zero8, 1);
		/* crc32 covers sum_hi: zero before it is taken, as every earlier header's */
		memcpy(blk + 28, &hi, 4);
		v = verify_sum(blk, sum);
		lo = (uint32_t)v;
		hi = (uint32_t)(v >> 32);
		memcpy(blk + 4, &lo, 4);
		memcpy(blk + 28, &hi, 4);
	}
}

uint32_t verify_check(const void *buf, size_t len, uint64_t offset, struct verify_bad *bad)
{
	const unsigned char *p = buf;
	uint32_t nbad = 0;

	for (size_t at = 0; at + VERIFY_BLOCK <= len; at += VERIFY_BLOCK) {
		const unsigned char *blk = p + at;
		struct verify_bad b = {.offset = offset + at, .header = true};
		uint32_t magic, lo, hi;
		uint16_t w16;

		memcpy(&magic, blk, 4);
		memcpy(&lo, blk + 4, 4);
		memcpy(&b.header_off, blk + 8, 8);
		memcpy(&b.generation, blk + 16, 8);
		memcpy(&w16, blk + 24, 2);
		memcpy(&b.sum, blk + 26, 1);
		memcpy(&hi, blk + 28, 4);
		b.worker = w16;
		if (magic != VERIFY_MAGIC) {
			b.header = false;
			memcpy(&b.first_bytes, blk, 8);
		} else if (b.sum < VERIFY_SUM_COUNT) {
			/* crc32's sum_hi is covered by the crc and zero: its want is lo alone */
			b.sum_want = b.sum == VERIFY_SUM_XXH64 ? (uint64_t)hi << 32 | lo : lo;
			b.sum_found = verify_sum(blk, (enum verify_sum)b.sum);
			if (b.sum_found == b.sum_want && b.header_off == b.offset)
				continue;
		}
		if (nbad++ == 0)
			*bad = b;
	}
	return nbad;
}

void verify_words(const struct verify_bad *b, const char *path, const char *agent, unsigned worker,
                  char *buf, size_t len)
{
	int n =
	    snprintf(buf, len, "data mismatch at offset %" PRIu64 " of %s (%s, w%u): ", b->offset,
	             path, agent, worker);

	if (n < 0 || (size_t)n >= len)
		return;
	buf += n;
	len -= (size_t)n;
	if (!b->header)
		snprintf(buf, len,
		         "expected a verify header, found none (first bytes %016" PRIx64 ")",
		         b->first_bytes);
	else if (b->sum >= VERIFY_SUM_COUNT)
		snprintf(buf, len,
		         "expected a header of crc32 or xxh64, found checksum %u (generation "
		         "%" PRIu64 ", w%u)",
		         b->sum, b->generation, b->worker);
	else if (b->sum_found != b->sum_want && b->sum == VERIFY_SUM_XXH64)
		snprintf(buf, len,
		         "expected generation %" PRIu64 " xxh64 %016" PRIx64 ", found %016" PRIx64,
		         b->generation, b->sum_want, b->sum_found);
	else if (b->sum_found != b->sum_want)
		/* crc32's words as they always were ("crc") */
		snprintf(buf, len,
		         "expected generation %" PRIu64 " crc %08" PRIx64 ", found %08" PRIx64,
		         b->generation, b->sum_want, b->sum_found);
	else
		snprintf(buf, len,
		         "expected its own block, found offset %" PRIu64 "'s (generation %" PRIu64
		         ", w%u): a misplaced write",
		         b->header_off, b->generation, b->worker);
}

uint64_t verify_realtime_offset(void)
{
	struct timespec rt, mono;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	return ((uint64_t)rt.tv_sec - (uint64_t)mono.tv_sec) * 1000000000u + (uint64_t)rt.tv_nsec -
	       (uint64_t)mono.tv_nsec;
}
