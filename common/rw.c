/* SPDX-License-Identifier: MIT */
/* Access pattern names. */
#include <string.h>

#include "iocurve.pb-c.h"
#include "rw.h"

/* Both programs send and read rw_mode as the protocol's RwMode number. */
_Static_assert((int)RW_READ == (int)IOCURVE__RW_MODE__RW_MODE_READ, "rw_mode");
_Static_assert((int)RW_WRITE == (int)IOCURVE__RW_MODE__RW_MODE_WRITE, "rw_mode");
_Static_assert((int)RW_RANDREAD == (int)IOCURVE__RW_MODE__RW_MODE_RANDREAD, "rw_mode");
_Static_assert((int)RW_RANDWRITE == (int)IOCURVE__RW_MODE__RW_MODE_RANDWRITE, "rw_mode");
_Static_assert((int)RW_RW == (int)IOCURVE__RW_MODE__RW_MODE_RW, "rw_mode");
_Static_assert((int)RW_RANDRW == (int)IOCURVE__RW_MODE__RW_MODE_RANDRW, "rw_mode");

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
