/* SPDX-License-Identifier: MIT */
/*
 * Mixes: one workload's operations split by share over parts, each with its own
 * access pattern and block size (or size distribution), interleaved in one stream
 * per worker. The campaign parses a mix into struct mix (campaign/mixparse.c), the
 * coordinator sends it in Prepare and the agent reads it back here, bounded; the
 * worker interleaves the parts (and a part's sizes) by smooth weighted round-robin,
 * so a part's share of the operations is exact within a few operations, not drawn.
 */
#ifndef IOCURVE_MIX_H
#define IOCURVE_MIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "fileop.h"
#include "iocurve.pb-c.h"
#include "rw.h"

/*
 * A mix has at most this many parts (SPEC's SWBUILD has nine kinds): each is two latency
 * histograms (~74 KB, from due and at the storage) in each of the mix's interval records
 * (allocated for a mix only, copied and sent by the bins in use).
 */
#define MIX_PARTS_MAX 12
/* A size distribution has at most this many sizes. */
#define MIX_SIZES_MAX 8
/* A part's name at most this many bytes less one (it names columns and keys). */
#define MIX_NAME_MAX 32

struct mix_size {
	uint32_t bytes;
	uint32_t pct; /* percent of the operations; a distribution's add up to 100 */
};

/* A size distribution (n 0: one size, the block_size). */
struct mix_sizes {
	uint32_t n;
	struct mix_size s[MIX_SIZES_MAX];
};

struct mix_part {
	char name[MIX_NAME_MAX];
	uint32_t share; /* percent of the workload's operations */
	enum rw_mode rw;
	uint32_t read_pct;   /* rw, randrw parts */
	uint32_t block_size; /* the largest of sizes when given */
	struct mix_sizes sizes;
	enum fileop op; /* a file operation on the file set instead of rw (FILEOP_NONE: rw) */
};

/*
 * A file set per worker stream: dirs^depth leaf directories (depth levels of dirs each)
 * of files files each, sized by sizes (one size: n 1). dirs 0: none.
 */
#define MIX_FILESET_DEPTH_MAX 8
#define MIX_FILESET_FILES_MAX (1u << 24) /* files of one stream's set, whatever the caps */
struct mix_fileset {
	uint32_t dirs;
	uint32_t depth;
	uint32_t files;
	struct mix_sizes sizes;
};

struct mix {
	uint32_t nparts; /* 0: not a mix */
	struct mix_part parts[MIX_PARTS_MAX];
	struct mix_sizes sizes; /* a plain workload's size distribution (n 0: none) */
	enum fileop op;         /* a plain workload's file operation (FILEOP_NONE: rw) */
	struct mix_fileset fileset;
};

/* The wire form's storage: what mix_to_prepare points Prepare at. */
struct mix_wire {
	Iocurve__MixPart parts[MIX_PARTS_MAX];
	Iocurve__MixPart *partp[MIX_PARTS_MAX];
	Iocurve__MixSize sizes[MIX_PARTS_MAX + 1][MIX_SIZES_MAX];
	Iocurve__MixSize *sizep[MIX_PARTS_MAX + 1][MIX_SIZES_MAX];
	Iocurve__FileSet fileset;
	Iocurve__MixSize fsizes[MIX_SIZES_MAX];
	Iocurve__MixSize *fsizep[MIX_SIZES_MAX];
};

/* Whether the workload runs on a file set (file operations need one). */
static inline bool mix_is_files(const struct mix *m)
{
	return m->fileset.dirs > 0;
}
/* The leaf directories of a file set (dirs^depth), and its files (that many times files). */
uint64_t mix_fileset_leaves(const struct mix_fileset *f);
uint64_t mix_fileset_files(const struct mix_fileset *f);
/* Its bytes: files times the mean size. */
uint64_t mix_fileset_bytes(const struct mix_fileset *f);
/* "10 dirs x 100 files of 4KiB", "4^2 dirs x 50 files of 4KiB:70,1MiB:30" */
void mix_fileset_text(const struct mix_fileset *f, char *buf, size_t len);
/* Part k's kind (k < 0 or a plain workload: the workload's op). */
enum fileop mix_op(const struct mix *m, int k);

/* The largest size of a distribution (0: none). */
uint32_t mix_sizes_max(const struct mix_sizes *s);
/* The largest block any operation of the mix (parts, or the plain sizes) moves. */
uint32_t mix_block_max(const struct mix *m);
/* A distribution's mean size in bytes (size when it has none). */
double mix_sizes_mean(const struct mix_sizes *s, uint32_t size);
/* The bytes an operation moves on average (block_size when m is neither mix nor sizes). */
double mix_mean_bytes(const struct mix *m, uint32_t block_size);
/* The part named name, or -1. */
int mix_part_find(const struct mix *m, const char *name);

/* m into p (its strings and storage stay m's and w's). */
void mix_to_prepare(const struct mix *m, struct mix_wire *w, Iocurve__Prepare *p);
/*
 * p's mix and sizes into m, every field bounded (at most MIX_PARTS_MAX parts of
 * names the campaign takes, unique; shares 1..100 adding up to 100; rw a mode;
 * read_pct at most 100; sizes 512 B..16 MiB multiples of 512 whose shares add up to
 * 100; a part's block_size the largest of its sizes, and Prepare's block_size the
 * largest of all): 0, or -1 with err naming the Prepare field and its value.
 */
int mix_from_prepare(const Iocurve__Prepare *p, struct mix *m, struct error *err);

/* "4KiB:60,64KiB:40" */
void mix_sizes_text(const struct mix_sizes *s, char *buf, size_t len);
/* "reads 70% randread 8KiB, log 30% write 64KiB" (one part per comma), or "" */
void mix_text(const struct mix *m, char *buf, size_t len);
/*
 * What a workload moves, where its block size alone would mislead: "mix: reads 70% randread
 * 8KiB, log 30% write 64KiB" for a mix, "randread, 4KiB:60,64KiB:40 blocks" for a size
 * distribution, "create on 10 dirs x 100 files of 4KiB" (or "mix: ... on ...") for a file
 * workload; false (buf "") for one block size, which the caller says its own way.
 */
bool mix_shape_text(const struct mix *m, const char *rw, char *buf, size_t len);
/* The kind a workload's headings name: its rw, or "stat" (a file operation), "file ops". */
const char *mix_kind_name(const struct mix *m, enum rw_mode rw);
/* A part's pattern: "randread 8KiB", "write 4KiB:60,64KiB:40", "randrw 8KiB read_pct 70". */
void mix_part_text(const struct mix_part *mp, char *buf, size_t len);

/*
 * Smooth weighted round-robin (nginx's): each pick adds every weight to its
 * credit, takes the largest credit and takes the total back from it. Over any
 * run of sum(weights) picks each index comes up exactly its weight times, spread
 * evenly. credit holds n entries, zero to start.
 */
unsigned mix_pick(int32_t *credit, const uint32_t *weight, unsigned n);

#endif
