/* SPDX-License-Identifier: MIT */
/*
 * Tests only: a made-up clock error for the agent's side of the protocol.
 * IOCURVE_TEST_CLOCK_SKEW="OFFSET_NS,PPM" makes every time the agent sends
 * (Pong t2 and t3, StepDone start) and reads (StartStep start) as if its clock
 * read wire(t) = t + OFFSET_NS + t * PPM / 1e6, t being CLOCK_MONOTONIC: an
 * offset and a drift the coordinator's clock sync must find. Unset, the clock
 * is untouched; nothing else reads this variable.
 */
#ifndef IOCURVE_SKEW_H
#define IOCURVE_SKEW_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"

#define SKEW_ENV "IOCURVE_TEST_CLOCK_SKEW"

struct skew {
	bool on;
	int64_t offset_ns;
	double ppm;
};

/* From the variable's text (NULL: off); -1 with err when it does not parse. */
int skew_parse(struct skew *s, const char *text, struct error *err);
/* This host's CLOCK_MONOTONIC time as the agent tells it to the coordinator... */
uint64_t skew_to_wire(const struct skew *s, uint64_t local_ns);
/* ...and back. */
uint64_t skew_from_wire(const struct skew *s, uint64_t wire_ns);

#endif
