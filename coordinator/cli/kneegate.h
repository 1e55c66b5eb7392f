/* SPDX-License-Identifier: MIT */
/* run --require-knee RATE: every workload's final knee against RATE, from the event stream. */
#ifndef IOCURVE_KNEEGATE_H
#define IOCURVE_KNEEGATE_H

#include <stdbool.h>
#include <stddef.h>

#include "events.h"

/* run exits with this status when a workload's knee is below RATE or there is none. */
#define KNEEGATE_EXIT 5

struct kneegate {
	double rate; /* in each workload's unit (ops/s random, MiB/s sequential); 0: no gate */
	char missed[2048]; /* "rr (knee 4,510 ops/s), seq (no knee; client-bound: ...)" */
	size_t nmissed, nseen;
};

/* Note a workload_done event's knee (other events are ignored). */
void kneegate_event(struct kneegate *g, const struct event *e);
/*
 * The run's exit status with the gate applied: status when the gate is off or the
 * campaign did not complete (not 0 or 3), KNEEGATE_EXIT with the workloads named on
 * stderr when a knee missed RATE, else status.
 */
int kneegate_status(const struct kneegate *g, int status);

#endif
