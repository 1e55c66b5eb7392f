/* SPDX-License-Identifier: MIT */
/* Access pattern names. */
#include <string.h>

#include "rw.h"

static const char *const rw_names[RW_MODE_COUNT] = {"read",      "write", "randread",
                                                    "randwrite", "rw",    "randrw"};

const char *rw_mode_name(enum rw_mode rw)
{
	if ((unsigned)rw >= RW_MODE_COUNT)
		return "?";
	return rw_names[rw];
}

int rw_mode_parse(const char *name, enum rw_mode *rw)
{
	for (unsigned i = 0; i < RW_MODE_COUNT; i++) {
		if (strcmp(name, rw_names[i]) == 0) {
			*rw = (enum rw_mode)i;
			return 0;
		}
	}
	return -1;
}
