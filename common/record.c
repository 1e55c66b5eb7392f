/* SPDX-License-Identifier: MIT */
/* Interval records: reset and merge. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iocurve.pb-c.h"
#include "record.h"
#include "text.h"
#include "xalloc.h"

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
	dst->missed_charged += src->missed_charged;
	dst->wakes += src->wakes;
	if (src->lag_max_ns > dst->lag_max_ns)
		dst->lag_max_ns = src->lag_max_ns;
	hist_merge(&dst->latency, &src->latency);
	hist_merge(&dst->service, &src->service);
	if (dst->err_errno == 0 && src->err_errno != 0) {
		dst->err_errno = src->err_errno;
		dst->err_offset = src->err_offset;
		memcpy(dst->err_path, src->err_path, sizeof(dst->err_path));
	}
}

void record_error(struct record *r, int errnum, uint64_t offset, const char *path)
{
	r->errors++;
	if (r->err_errno != 0 || errnum <= 0)
		return;
	r->err_errno = errnum;
	r->err_offset = offset;
	snprintf(r->err_path, sizeof(r->err_path), "%s", path ? path : "");
}

void record_encode(const struct record *rec, Iocurve__IntervalReport *r)
{
	Iocurve__Histogram *h = xcalloc(2, sizeof(*h));

	r->ops = rec->ops;
	r->reads = rec->reads;
	r->bytes = rec->bytes;
	r->errors = rec->errors;
	r->cpu_user_ns = rec->cpu_user_ns;
	r->cpu_sys_ns = rec->cpu_sys_ns;
	r->lag_sum_ns = rec->lag_sum_ns;
	r->lag_max_ns = rec->lag_max_ns;
	r->qd_full_ns = rec->qd_full_ns;
	r->missed = rec->missed;
	r->missed_charged = rec->missed_charged;
	r->wakes = rec->wakes;
	r->err_errno = rec->err_errno;
	r->err_offset = rec->err_offset;
	r->err_path = (char *)rec->err_path;
	iocurve__histogram__init(&h[0]);
	iocurve__histogram__init(&h[1]);
	hist_encode(&rec->latency, &h[0]);
	hist_encode(&rec->service, &h[1]);
	r->latency = &h[0];
	r->service = &h[1];
}

void record_encoded_free(Iocurve__IntervalReport *r)
{
	hist_encoded_free(r->latency);
	hist_encoded_free(r->service);
	free(r->latency); /* both histograms came from one allocation */
	r->latency = r->service = NULL;
}

int record_decode(struct record *rec, const Iocurve__IntervalReport *r, struct error *err)
{
	record_reset(rec);
	rec->ops = r->ops;
	rec->reads = r->reads;
	rec->bytes = r->bytes;
	rec->errors = r->errors;
	rec->cpu_user_ns = r->cpu_user_ns;
	rec->cpu_sys_ns = r->cpu_sys_ns;
	rec->lag_sum_ns = r->lag_sum_ns;
	rec->lag_max_ns = r->lag_max_ns;
	rec->qd_full_ns = r->qd_full_ns;
	rec->missed = r->missed;
	rec->missed_charged = r->missed_charged;
	rec->wakes = r->wakes;
	if (r->err_errno < 0) {
		error_set(err, "interval %u: errno %d", r->interval, r->err_errno);
		return -1;
	}
	rec->err_errno = r->err_errno;
	rec->err_offset = r->err_offset;
	if (r->err_path != NULL)
		text_clean(r->err_path, rec->err_path, sizeof(rec->err_path), false);
	if (r->latency == NULL || r->service == NULL) {
		error_set(err, "interval %u: report without histograms", r->interval);
		return -1;
	}
	if (hist_decode(&rec->latency, r->latency, err) < 0 ||
	    hist_decode(&rec->service, r->service, err) < 0) {
		error_prefix(err, "interval %u: ", r->interval);
		return -1;
	}
	if (record_check(rec, err) < 0) {
		error_prefix(err, "interval %u: ", r->interval);
		return -1;
	}
	return 0;
}

int record_check(const struct record *rec, struct error *err)
{
	if (rec->reads > rec->ops) {
		error_set(err, "%llu reads of %llu ops", (unsigned long long)rec->reads,
		          (unsigned long long)rec->ops);
		return -1;
	}
	if (rec->latency.count != rec->ops + rec->missed_charged) {
		error_set(err, "%llu ops and %llu charged but %llu latencies",
		          (unsigned long long)rec->ops, (unsigned long long)rec->missed_charged,
		          (unsigned long long)rec->latency.count);
		return -1;
	}
	return 0;
}
