/* SPDX-License-Identifier: MIT */
/* Interval records: reset and merge. */
#include <stddef.h>
#include <string.h>

#include "record.h"

void record_reset(struct record *r)
{
	memset(r, 0, offsetof(struct record, latency));
	hist_reset(&r->latency);
	hist_reset(&r->service);
}

void record_merge(struct record *dst, const struct record *src)
{
	dst->ops += src->ops;
	dst->reads += src->reads;
	dst->bytes += src->bytes;
	dst->errors += src->errors;
	dst->cpu_user_ns += src->cpu_user_ns;
	dst->cpu_sys_ns += src->cpu_sys_ns;
	dst->lag_sum_ns += src->lag_sum_ns;
	dst->qd_full_ns += src->qd_full_ns;
	dst->missed += src->missed;
	if (src->lag_max_ns > dst->lag_max_ns)
		dst->lag_max_ns = src->lag_max_ns;
	hist_merge(&dst->latency, &src->latency);
	hist_merge(&dst->service, &src->service);
}
