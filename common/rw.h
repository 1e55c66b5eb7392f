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
};
#define RW_MODE_COUNT 4

/* "read", "write", "randread", "randwrite". */
const char *rw_mode_name(enum rw_mode rw);
/* Returns 0 and sets *rw, or -1 for an unknown name. */
int rw_mode_parse(const char *name, enum rw_mode *rw);

static inline bool rw_is_write(enum rw_mode rw)
{
	return rw == RW_WRITE || rw == RW_RANDWRITE;
}

static inline bool rw_is_random(enum rw_mode rw)
{
	return rw == RW_RANDREAD || rw == RW_RANDWRITE;
}

#endif
