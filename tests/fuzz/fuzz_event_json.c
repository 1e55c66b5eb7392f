/* SPDX-License-Identifier: MIT */
/* Fuzz target: the event JSON decoder (`--json` lines, the dashboard's feed), and units. */
#include <stdlib.h>
#include <string.h>

#include "event_json.h"
#include "fuzz.h"
#include "units.h"
#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xmalloc(size + 1);
	struct error err;
	struct event e;
	uint64_t u;
	double d;

	memcpy(text, data, size);
	text[size] = '\0';
	if (event_json_decode(&e, text, &err) == 0)
		event_clear(&e);
	units_parse_size(text, &u, &err);
	units_parse_duration(text, &u, &err);
	units_parse_rate(text, &d, &err);
	free(text);
	return 0;
}
