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
 * The header, in the first VERIFY_HEADER bytes of each block, little-endian; the
 * rest of the block is datagen's data:
 *   0  magic "iocv"
 *   4  crc: zlib's crc32 of bytes 8..4095 (the rest of the header and the data)
 *   8  offset: the block's own offset in its file
 *  16  generation: when its data was made, CLOCK_REALTIME ns (the layout's start
 *      for the blocks it wrote, the write's issue time for a write)
 *  24  worker: the writer's worker number on its agent (w of AGENT-wW.dat)
 *  28  zero
 * A reader knows no block's latest generation (that would take state shared by
 * every writer, or a journal): it checks that the block is whole (crc) and is
 * the block of its place (offset); the generation says which write it holds.
 */
struct verify_bad {
	uint64_t offset;      /* the bad block's offset in the file */
	bool header;          /* false: no header (magic gone: zeroed, foreign or torn) */
	uint64_t generation;  /* the header's */
	uint32_t worker;      /* the header's writer */
	uint32_t crc_want;    /* the header's crc */
	uint32_t crc_found;   /* the crc of the data as read */
	uint64_t header_off;  /* the offset the header names (!= offset: a misplaced block) */
	uint64_t first_bytes; /* without a header: its first 8 bytes as read */
};

/*
 * Stamp every whole VERIFY_BLOCK of buf (len bytes, to be written at file offset
 * offset, a multiple of VERIFY_BLOCK) with its header; a partial tail is left as it is.
 */
void verify_stamp(void *buf, size_t len, uint64_t offset, uint32_t worker, uint64_t generation);

/*
 * Check every whole block of buf (len bytes read at offset): the number that fail
 * (no header, a crc that does not match, another block's offset), the first in *bad.
 */
uint32_t verify_check(const void *buf, size_t len, uint64_t offset, struct verify_bad *bad);

/*
 * A mismatch in words, naming the block, the file and the reader (agent, worker):
 * "data mismatch at offset N of PATH (a1, w0): expected generation G crc 1a2b3c4d,
 * found 5e6f7a8b"; a block with no header or another block's offset says so.
 */
void verify_words(const struct verify_bad *bad, const char *path, const char *agent,
                  unsigned worker, char *buf, size_t len);

/* CLOCK_REALTIME minus CLOCK_MONOTONIC, ns: a monotonic time plus it is a generation. */
uint64_t verify_realtime_offset(void);

#endif
