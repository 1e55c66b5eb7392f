/* SPDX-License-Identifier: MIT */
/* Tests only: an agent clock with a chosen offset and drift, at the protocol's edge. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "skew.h"

int skew_parse(struct skew *s, const char *text, struct error *err)
{
	char *end;

	s->on = false;
	s->offset_ns = 0;
	s->ppm = 0;
	if (text == NULL)
		return 0;
	errno = 0;
	s->offset_ns = strtoll(text, &end, 10);
	if (errno != 0 || end == text || *end != ',')
		goto bad;
	text = end + 1;
	s->ppm = strtod(text, &end);
	if (end == text || *end != '\0' || !(fabs(s->ppm) <= 1000))
		goto bad;
	s->on = true;
	return 0;
bad:
	error_set(err, "%s: expected OFFSET_NS,PPM (PPM within +-1000)", SKEW_ENV);
	return -1;
}

uint64_t skew_to_wire(const struct skew *s, uint64_t local_ns)
{
	if (!s->on)
		return local_ns;
	return (uint64_t)((long double)local_ns * (1.0L + (long double)s->ppm * 1e-6L) +
	                  (long double)s->offset_ns + 0.5L);
}

uint64_t skew_from_wire(const struct skew *s, uint64_t wire_ns)
{
	if (!s->on)
		return wire_ns;
	return (uint64_t)(((long double)wire_ns - (long double)s->offset_ns) /
	                      (1.0L + (long double)s->ppm * 1e-6L) +
	                  0.5L);
}
