/* SPDX-License-Identifier: MIT */
/* Written data with a requested compressibility and dedupe ratio. */
#ifndef IOCURVE_DATAGEN_H
#define IOCURVE_DATAGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Storage arrays compress and deduplicate inline: data that is all random or all
 * zeros measures the wrong machine. A block from datagen_fill compresses by about
 * compress_pct percent with a standard compressor (zlib, lz4), and about
 * dedupe_pct percent of the blocks filled are copies of an earlier block (at
 * the array's dedupe granularity, taken as 4KiB; for blocks under 4KiB the
 * block itself), the rest unique.
 */
struct datagen_config {
	uint32_t compress_pct; /* 0..100 (100: zeros but a 16-byte stamp per 4KiB) */
	uint32_t dedupe_pct;   /* 0..100 */
	uint32_t block_size;   /* bytes per fill; a multiple of 512, at most 16MiB */
	uint64_t seed;         /* different per worker: workers' unique blocks never collide */
};

struct datagen;

/* NULL if a percentage is over 100 or block_size is out of range. */
struct datagen *datagen_new(const struct datagen_config *cfg);
/*
 * Fill buf (block_size bytes) for a write. Cheap enough for the write hot
 * path: no allocation; a few stores per 64 bytes at most, or a memcpy from a
 * prepared pool with a unique stamp per 4KiB.
 */
void datagen_fill(struct datagen *d, void *buf);
void datagen_free(struct datagen *d);
/*
 * True when buf (len bytes, from 16 up to a sector of 512 looked at) is the
 * start of a chunk some datagen with this compress_pct wrote, whatever its seed
 * and block size: the stamp gives seed and pool offset back, and the first
 * sector's incompressible bytes must be theirs and its tail zeros. A hole or a
 * zeroed range (zero stamp) and foreign data fail. What the layout wrote and
 * what a worker's writes overwrote both pass.
 */
bool datagen_check(const void *buf, size_t len, uint32_t compress_pct);

#endif
