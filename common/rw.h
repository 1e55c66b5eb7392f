/* SPDX-License-Identifier: MIT */
/* Access patterns: the same numbering as the wire's RwMode. */
#ifndef IOCURVE_RW_H
#define IOCURVE_RW_H

#include <stdbool.h>

enum rw_mode {
	RW_READ = 0,
	RW_WRITE = 1,
	RW_RANDREAD = 2,
	RW_RANDWRITE = 3,
	RW_RW = 4,     /* sequential mix: read_pct% reads */
	RW_RANDRW = 5, /* random mix: read_pct% reads */
};
#define RW_MODE_COUNT 6

/* "read", "write", "randread", "randwrite", "rw", "randrw". */
const char *rw_mode_name(enum rw_mode rw);
/* Returns 0 and sets *rw, or -1 for an unknown name. */
int rw_mode_parse(const char *name, enum rw_mode *rw);

/* Every operation writes. */
static inline bool rw_is_write(enum rw_mode rw)
{
	return rw == RW_WRITE || rw == RW_RANDWRITE;
}

/* Some operations write: the target must be laid out and writes must be allowed. */
static inline bool rw_writes(enum rw_mode rw)
{
	return rw == RW_WRITE || rw == RW_RANDWRITE || rw == RW_RW || rw == RW_RANDRW;
}

static inline bool rw_is_mix(enum rw_mode rw)
{
	return rw == RW_RW || rw == RW_RANDRW;
}

static inline bool rw_is_random(enum rw_mode rw)
{
	return rw == RW_RANDREAD || rw == RW_RANDWRITE || rw == RW_RANDRW;
}

#endif
