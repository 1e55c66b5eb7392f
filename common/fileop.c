/* SPDX-License-Identifier: MIT */
/* File operation kinds' names. */
#include <string.h>

#include "fileop.h"
#include "iocurve.pb-c.h"

_Static_assert((int)FILEOP_CREATE == (int)IOCURVE__FILE_OP__FILE_OP_CREATE, "fileop");
_Static_assert((int)FILEOP_WRITE_FILE == (int)IOCURVE__FILE_OP__FILE_OP_WRITE_FILE, "fileop");

const char *const fileop_names[] = {"create",    "open",       "stat",  "access", "setattr",
                                    "readdir",   "mkdir",      "rmdir", "unlink", "rename",
                                    "read-file", "write-file", NULL};

const char *fileop_name(enum fileop op)
{
	if (op == FILEOP_NONE)
		return "data";
	if ((unsigned)op >= FILEOP_COUNT)
		return "?";
	return fileop_names[op - 1];
}

int fileop_parse(const char *name, enum fileop *op)
{
	for (unsigned i = 0; fileop_names[i] != NULL; i++)
		if (strcmp(name, fileop_names[i]) == 0) {
			*op = (enum fileop)(i + 1);
			return 0;
		}
	return -1;
}
