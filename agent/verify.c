/* SPDX-License-Identifier: MIT */
/* Verified data: stamp each 4KiB block with a header on write, check it on read. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "verify.h"

#define VERIFY_MAGIC 0x76636f69u /* "iocv" in little-endian order */

/* The crc of a block: its bytes after the crc itself, so the header's fields are covered. */
static uint32_t verify_crc(const unsigned char *blk)
{
	return (uint32_t)crc32_z(0, blk + 8, VERIFY_BLOCK - 8);
}

void verify_stamp(void *buf, size_t len, uint64_t offset, uint32_t worker, uint64_t generation)
{
	unsigned char *p = buf;

	for (size_t at = 0; at + VERIFY_BLOCK <= len; at += VERIFY_BLOCK) {
		unsigned char *blk = p + at;
		uint32_t magic = VERIFY_MAGIC, zero = 0, crc;
		uint64_t off = offset + at;

		memcpy(blk, &magic, 4);
		memcpy(blk + 8, &off, 8);
		memcpy(blk + 16, &generation, 8);
		memcpy(blk + 24, &worker, 4);
		memcpy(blk + 28, &zero, 4);
		crc = verify_crc(blk);
		memcpy(blk + 4, &crc, 4);
	}
}

uint32_t verify_check(const void *buf, size_t len, uint64_t offset, struct verify_bad *bad)
{
	const unsigned char *p = buf;
	uint32_t nbad = 0;

	for (size_t at = 0; at + VERIFY_BLOCK <= len; at += VERIFY_BLOCK) {
		const unsigned char *blk = p + at;
		struct verify_bad b = {.offset = offset + at, .header = true};
		uint32_t magic;

		memcpy(&magic, blk, 4);
		memcpy(&b.crc_want, blk + 4, 4);
		memcpy(&b.header_off, blk + 8, 8);
		memcpy(&b.generation, blk + 16, 8);
		memcpy(&b.worker, blk + 24, 4);
		if (magic != VERIFY_MAGIC) {
			b.header = false;
			memcpy(&b.first_bytes, blk, 8);
		} else {
			b.crc_found = verify_crc(blk);
			if (b.crc_found == b.crc_want && b.header_off == b.offset)
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
	else if (b->crc_found != b->crc_want)
		snprintf(buf, len, "expected generation %" PRIu64 " crc %08x, found %08x",
		         b->generation, b->crc_want, b->crc_found);
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
