/* SPDX-License-Identifier: MIT */
/* Fuzz target: the intervals.jsonl reader, line by line to the end or the first error. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz.h"
#include "intervals.h"
#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct intervals_line *line = xmalloc(sizeof(*line));
	struct intervals_reader *r;
	struct error err;
	FILE *f;

	/* The reader reads a file by name: one per process, rewritten per input. */
	if (path[0] == '\0')
		snprintf(path, sizeof(path), "/tmp/iocurve-fuzz-intervals.%d", (int)getpid());
	f = fopen(path, "w");
	if (f == NULL)
		abort();
	fwrite(data, 1, size, f);
	fclose(f);
	r = intervals_open(path, &err);
	if (r != NULL) {
		while (intervals_next(r, line, &err) > 0)
			;
		intervals_close(r);
	}
	unlink(path);
	free(line);
	return 0;
}
