/* SPDX-License-Identifier: MIT */
/* Written data with a requested compressibility and dedupe ratio. */
#ifndef IOCURVE_DATAGEN_H
#define IOCURVE_DATAGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A clone's name: letters, digits, '.', '_', '-', up to this many bytes less one. */
#define DATAGEN_CLONE_MAX 64

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
	/*
	 * data: {clone: NAME} (layout only): "" lays each file out with data of its own;
	 * a name lays every file out from datagen_clone_seed(NAME), the same golden image
	 * on every agent and worker. datagen itself reads only seed.
	 */
	char clone[DATAGEN_CLONE_MAX];
	/*
	 * verify (layout only): the wire's VerifyMethod (0: none, 1: crc32, 2: xxh64); each
	 * 4KiB block laid out carries a header (agent/verify.h) of that checksum naming
	 * worker as its writer; datagen itself never reads these.
	 */
	int verify;
	uint32_t worker;
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
/*
 * datagen_check, and *seed gets the seed of the datagen that wrote the chunk
 * (its stamp gives it back): a clone's layout is checked to be that clone's.
 */
bool datagen_check_seed(const void *buf, size_t len, uint32_t compress_pct, uint64_t *seed);

/*
 * The seed of the clone NAME: a function of the name alone (FNV-1a of
 * "iocurve-clone:" NAME, mixed), the same on every host and release, never 0.
 * With the same compress and dedupe, datagens of this seed and the same
 * block_size fill the same bytes: files laid out from it are byte-identical,
 * and a longer one starts with a shorter one.
 */
uint64_t datagen_clone_seed(const char *name);

#endif
