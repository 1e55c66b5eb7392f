/* SPDX-License-Identifier: MIT */
/* One interval's measurements: what a worker publishes, an agent merges and the coordinator keeps.
 */
#ifndef IOCURVE_RECORD_H
#define IOCURVE_RECORD_H

#include <stdint.h>

#include "hist.h"

/*
 * The same record at every level: a worker fills one per interval, an agent
 * merges its workers' into one, the coordinator merges its agents'. Merging is
 * adding, so any grouping of the same operations gives the same record.
 */
struct record {
	uint64_t ops;   /* operations completed */
	uint64_t reads; /* of which reads (mixes: the rest are writes) */
	uint64_t bytes;
	uint64_t errors;
	uint64_t cpu_user_ns; /* workers' CPU time */
	uint64_t cpu_sys_ns;
	uint64_t lag_sum_ns; /* submission minus intended start: how late the client issued */
	uint64_t lag_max_ns;
	uint64_t qd_full_ns; /* time a worker had queue_depth operations in flight */
	uint64_t missed;     /* due in the step but never issued: the client fell behind */
	struct hist latency; /* completion minus intended start: what a user waits */
	struct hist service; /* completion minus submission: what the storage took */
};

void record_reset(struct record *r);
void record_merge(struct record *dst, const struct record *src);

#endif
