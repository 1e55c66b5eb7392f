/* SPDX-License-Identifier: MIT */
/* Verified data: a header on every 4KiB block written, checked on every block read. */
#ifndef IOCURVE_VERIFY_H
#define IOCURVE_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The unit a header covers: 4KiB, whatever the workload's block size (a multiple of
 * it), so every workload of a campaign, and a later campaign, reads the headers the
 * layout and every earlier write left, at any block size.
 */
#define VERIFY_BLOCK  4096u
#define VERIFY_HEADER 32u

/*
 * Which checksum stamped a block: its header's byte 26. 0 is crc32, what every header
 * written before xxh64 holds (its worker field was 32 bits, and no agent has 65,536
 * workers), so those blocks read as they always did.
 */
enum verify_sum {
	VERIFY_SUM_CRC32 = 0, /* zlib's crc32 of bytes 8..4095 */
	VERIFY_SUM_XXH64 = 1, /* libxxhash's XXH64 of bytes 8..27, seeding that of 32..4095 */
};
#define VERIFY_SUM_COUNT 2

/*
 * The header, in the first VERIFY_HEADER bytes of each block, little-endian; the
 * rest of the block is datagen's data:
 *   0  magic "iocv"
 *   4  sum: the checksum's low 32 bits (crc32: all of it)
 *   8  offset: the block's own offset in its file
 *  16  generation: when its data was made, CLOCK_REALTIME ns (the layout's start
 *      for the blocks it wrote, the write's issue time for a write)
 *  24  worker: the writer's worker number on its agent (w of AGENT-wW.dat), 16 bits
 *  26  checksum: enum verify_sum, which one stamped the block
 *  27  zero
 *  28  sum_hi: xxh64's high 32 bits (crc32: zero)
 * crc32 covers bytes 8..4095 (the rest of the header and the data); xxh64 covers the
 * same bytes but its own (8..27 hashed, that hash the seed of the hash of 32..4095):
 * every field of the header is covered either way. A reader checks a block with the
 * checksum its header names, whatever the workload stamps with: a file laid out with
 * crc32 is read by a workload of xxh64 and the other way round.
 *
 * A reader knows no block's latest generation (that would take state shared by
 * every writer, or a journal): it checks that the block is whole (its checksum) and is
 * the block of its place (offset); the generation says which write it holds.
 */
struct verify_bad {
	uint64_t offset;      /* the bad block's offset in the file */
	bool header;          /* false: no header (magic gone: zeroed, foreign or torn) */
	uint64_t generation;  /* the header's */
	uint32_t worker;      /* the header's writer */
	uint8_t sum;          /* the header's checksum (enum verify_sum; >= COUNT: unknown) */
	uint64_t sum_want;    /* the header's checksum value */
	uint64_t sum_found;   /* the checksum of the block as read */
	uint64_t header_off;  /* the offset the header names (!= offset: a misplaced block) */
	uint64_t first_bytes; /* without a header: its first 8 bytes as read */
};

/* The header's checksum for the wire's VerifyMethod (1 crc32, 2 xxh64). */
enum verify_sum verify_sum_of_method(int method);
/* The checksum's name: "crc32", "xxh64". */
const char *verify_sum_name(enum verify_sum sum);

/*
 * Stamp every whole VERIFY_BLOCK of buf (len bytes, to be written at file offset
 * offset, a multiple of VERIFY_BLOCK) with its header, its checksum sum; a partial
 * tail is left as it is.
 */
void verify_stamp(void *buf, size_t len, uint64_t offset, uint32_t worker, uint64_t generation,
                  enum verify_sum sum);

/*
 * Check every whole block of buf (len bytes read at offset), each with the checksum its
 * header names: the number that fail (no header, an unknown checksum, a checksum that
 * does not match, another block's offset), the first in *bad.
 */
uint32_t verify_check(const void *buf, size_t len, uint64_t offset, struct verify_bad *bad);

/*
 * A mismatch in words, naming the block, the file and the reader (agent, worker):
 * "data mismatch at offset N of PATH (a1, w0): expected generation G crc 1a2b3c4d,
 * found 5e6f7a8b" for crc32, "... expected generation G xxh64 0123456789abcdef, found
 * fedcba9876543210" for xxh64; a block with no header, an unknown checksum or another
 * block's offset says so.
 */
void verify_words(const struct verify_bad *bad, const char *path, const char *agent,
                  unsigned worker, char *buf, size_t len);

/* CLOCK_REALTIME minus CLOCK_MONOTONIC, ns: a monotonic time plus it is a generation. */
uint64_t verify_realtime_offset(void);

#endif
