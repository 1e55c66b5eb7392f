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

#define RECORD_ROW(name, rule, since, dflt, max)                                                   \
	{                                                                                          \
#name, offsetof(struct record, name), offsetof(Iocurve__IntervalReport, name),     \
		    rule, since, dflt, max                                                         \
	}
#define N RECORD_COUNT_MAX
#define T RECORD_NS_MAX

/* In the order intervals.jsonl writes them. */
const struct record_counter record_counters[] = {
    RECORD_ROW(ops, RECORD_SUM, 1, 0, N),
    RECORD_ROW(reads, RECORD_SUM, 1, 0, N),
    RECORD_ROW(bytes, RECORD_SUM, 1, 0, RECORD_BYTES_MAX),
    RECORD_ROW(errors, RECORD_SUM, 1, 0, N),
    RECORD_ROW(cpu_user_ns, RECORD_SUM, 1, 0, T),
    RECORD_ROW(cpu_sys_ns, RECORD_SUM, 1, 0, T),
    RECORD_ROW(lag_sum_ns, RECORD_SUM, 1, 0, T),
    RECORD_ROW(lag_max_ns, RECORD_MAX, 1, 0, T),
    RECORD_ROW(qd_full_ns, RECORD_SUM, 1, 0, T),
    RECORD_ROW(missed, RECORD_SUM, 1, 0, N),
    RECORD_ROW(missed_charged, RECORD_SUM, 1, 0, N),
    RECORD_ROW(wakes, RECORD_SUM, 2, 0, N),    /* 0: not counted (an agent of 0.1.0) */
    RECORD_ROW(health_n, RECORD_SUM, 2, 0, N), /* 0: health not measured (an agent of 0.1.0) */
    RECORD_ROW(issue_late_ns, RECORD_SUM, 2, 0, T),
    RECORD_ROW(slot_wait_ns, RECORD_SUM, 2, 0, T),
    RECORD_ROW(reap_delay_ns, RECORD_SUM, 2, 0, T),
    RECORD_ROW(nivcsw, RECORD_SUM, 2, 0, N),
    RECORD_ROW(steal_ppm, RECORD_MAX, 2, 0, 1000000),
    RECORD_ROW(late_10us, RECORD_SUM, 2, 0, N),
    RECORD_ROW(late_100us, RECORD_SUM, 2, 0, N),
    RECORD_ROW(late_1ms, RECORD_SUM, 2, 0, N),
    RECORD_ROW(late_10ms, RECORD_SUM, 2, 0, N),
    /* optional in format 3 (absent: 0, with no read_latency: not measured) */
    RECORD_ROW(read_bytes, RECORD_SUM, 4, 0, RECORD_BYTES_MAX),
    /* sync writes: absent (an older line, or no sync): 0 */
    RECORD_ROW(syncs, RECORD_SUM, 5, 0, N),
    /* the kernel's view (format 5; an older line reads 0: not read) */
    RECORD_ROW(kernel_n, RECORD_SUM, 5, 0, N),
    RECORD_ROW(kernel_reads, RECORD_SUM, 5, 0, N),
    RECORD_ROW(kernel_writes, RECORD_SUM, 5, 0, N),
    RECORD_ROW(kernel_io_ms, RECORD_SUM, 5, 0, T),
    RECORD_ROW(kernel_busy_ms, RECORD_SUM, 5, 0, T),
    RECORD_ROW(kernel_queue_ms, RECORD_SUM, 5, 0, T),
    RECORD_ROW(nfs_ops, RECORD_SUM, 5, 0, N),
    RECORD_ROW(nfs_rtt_ms, RECORD_SUM, 5, 0, T),
    RECORD_ROW(nfs_exec_ms, RECORD_SUM, 5, 0, T),
    /* verify (format 5): blocks read that failed their header; absent in older lines: 0 */
    RECORD_ROW(mismatches, RECORD_SUM, 5, 0, N),
};
#undef N
#undef T
const size_t record_ncounters = sizeof(record_counters) / sizeof(record_counters[0]);
/* The counters are struct record's uint64_t members before err_errno: each needs its row. */
_Static_assert(sizeof(record_counters) / sizeof(record_counters[0]) ==
                   offsetof(struct record, err_errno) / sizeof(uint64_t),
               "a counter of struct record without its row in record_counters");

/* Counter c of an IntervalReport. */
static uint64_t *record_wire_at(Iocurve__IntervalReport *r, const struct record_counter *c)
{
	return (uint64_t *)((char *)r + c->wire);
}

void record_init(struct record *r)
{
	memset(r, 0, offsetof(struct record, latency));
	hist_reset(&r->latency);
	hist_reset(&r->service);
	hist_reset(&r->read_latency);
	hist_reset(&r->write_latency);
	hist_reset(&r->sync_latency);
	r->nparts = 0;
	r->parts_cap = 0;
	r->parts = NULL;
}

void record_release(struct record *r)
{
	free(r->parts);
	r->parts = NULL;
	r->nparts = 0;
	r->parts_cap = 0;
}

static void record_part_empty(struct record_part *p)
{
	p->ops = p->reads = p->bytes = p->errors = 0;
	hist_clear(&p->latency);
	hist_clear(&p->service);
}

void record_reset(struct record *r)
{
	memset(r, 0, offsetof(struct record, latency));
	hist_clear(&r->latency);
	hist_clear(&r->service);
	hist_clear(&r->read_latency);
	hist_clear(&r->write_latency);
	hist_clear(&r->sync_latency);
	for (uint32_t i = 0; i < r->nparts; i++)
		record_part_empty(&r->parts[i]);
	r->nparts = 0;
}

void record_copy(struct record *dst, const struct record *src)
{
	struct record_part *parts = dst->parts;

	if (dst == src)
		return;
	/* dst's own array, sized to src's, so neither frees the other's */
	if (src->nparts == 0) {
		free(parts);
		parts = NULL;
	} else {
		parts = xreallocarray(parts, src->nparts, sizeof(*parts));
		memcpy(parts, src->parts, src->nparts * sizeof(*parts));
	}
	*dst = *src;
	dst->parts = parts;
	dst->parts_cap = src->nparts;
}

void record_parts_use(struct record *r, uint32_t n)
{
	if (n > RECORD_PARTS_MAX)
		n = RECORD_PARTS_MAX;
	if (n <= r->nparts)
		return;
	if (n > r->parts_cap) {
		r->parts = xreallocarray(r->parts, n, sizeof(*r->parts));
		for (uint32_t i = r->parts_cap; i < n; i++) {
			struct record_part *p = &r->parts[i];

			p->ops = p->reads = p->bytes = p->errors = 0;
			hist_reset(&p->latency);
			hist_reset(&p->service);
		}
		r->parts_cap = n;
	}
	r->nparts = n; /* parts past nparts are empty (record_reset) */
}

/* a + b stopped at max, as record_merge's sums are. */
static uint64_t record_sat_add(uint64_t a, uint64_t b, uint64_t max)
{
	uint64_t s;

	return __builtin_add_overflow(a, b, &s) || s > max ? max : s;
}

void record_drop_kinds(struct record *r)
{
	r->read_bytes = 0;
	hist_clear(&r->read_latency);
	hist_clear(&r->write_latency);
}

void record_merge_dev(char *dst, const char *src)
{
	size_t n = strlen(dst);

	if (src[0] == '\0' || strcmp(dst, src) == 0)
		return;
	if (n == 0) {
		snprintf(dst, RECORD_DEV_MAX, "%s", src);
		return;
	}
	/* Another device beside it: said once, the first one named. */
	if (n >= 2 && strcmp(dst + n - 2, " +") == 0)
		return;
	if (n > RECORD_DEV_MAX - 3)
		n = RECORD_DEV_MAX - 3;
	memcpy(dst + n, " +", 3);
}

void record_merge(struct record *dst, const struct record *src)
{
	for (size_t i = 0; i < record_ncounters; i++) {
		const struct record_counter *c = &record_counters[i];
		uint64_t *d = record_at(dst, c), v = *record_at((struct record *)src, c);

		/*
		 * A sum stops at the counter's bound: every record (an agent's, a fleet's)
		 * stays inside what record_check accepts and intervals.jsonl holds.
		 */
		if (c->merge == RECORD_SUM)
			*d = __builtin_add_overflow(*d, v, d) || *d > c->max ? c->max : *d;
		else if (v > *d)
			*d = v;
	}
	hist_merge(&dst->latency, &src->latency);
	hist_merge(&dst->service, &src->service);
	hist_merge(&dst->read_latency, &src->read_latency);
	hist_merge(&dst->write_latency, &src->write_latency);
	hist_merge(&dst->sync_latency, &src->sync_latency);
	record_merge_dev(dst->kernel_dev, src->kernel_dev);
	record_parts_use(dst, src->nparts);
	for (uint32_t i = 0; i < src->nparts && i < RECORD_PARTS_MAX; i++) {
		struct record_part *d = &dst->parts[i];
		const struct record_part *p = &src->parts[i];

		d->ops = record_sat_add(d->ops, p->ops, RECORD_COUNT_MAX);
		d->reads = record_sat_add(d->reads, p->reads, RECORD_COUNT_MAX);
		d->bytes = record_sat_add(d->bytes, p->bytes, RECORD_BYTES_MAX);
		d->errors = record_sat_add(d->errors, p->errors, RECORD_COUNT_MAX);
		hist_merge(&d->latency, &p->latency);
		hist_merge(&d->service, &p->service);
	}
	if (!record_err_kept(dst) && record_err_kept(src)) {
		dst->err_errno = src->err_errno;
		dst->err_offset = src->err_offset;
		memcpy(dst->err_path, src->err_path, sizeof(dst->err_path));
		memcpy(dst->err_cause, src->err_cause, sizeof(dst->err_cause));
	}
}

/* Whether a + b of a histogram's name stays within what one may hold. */
static int record_hist_fits(const char *name, const struct hist *a, const struct hist *b,
                            struct error *err)
{
	uint64_t count, sum;

	if (__builtin_add_overflow(a->count, b->count, &count) || count > HIST_COUNT_MAX ||
	    __builtin_add_overflow(a->sum, b->sum, &sum) || sum > HIST_SUM_MAX) {
		error_set(err,
		          "%s count %llu and sum_ns %llu would take the total past its bound "
		          "(count at most 2^53, sum at most 2^62 ns)",
		          name, (unsigned long long)b->count, (unsigned long long)b->sum);
		return -1;
	}
	return 0;
}

int record_merge_fits(const struct record *dst, const struct record *src, struct error *err)
{
	for (size_t i = 0; i < record_ncounters; i++) {
		const struct record_counter *c = &record_counters[i];
		uint64_t d = *record_at((struct record *)dst, c),
		         v = *record_at((struct record *)src, c), s;

		if (c->merge == RECORD_SUM && (__builtin_add_overflow(d, v, &s) || s > c->max)) {
			error_set(err,
			          "%s %llu would take the total (%llu so far) past its bound %llu",
			          c->key, (unsigned long long)v, (unsigned long long)d,
			          (unsigned long long)c->max);
			return -1;
		}
	}
	for (uint32_t i = 0; i < src->nparts && i < dst->nparts; i++)
		if (record_hist_fits("part latency", &dst->parts[i].latency, &src->parts[i].latency,
		                     err) < 0 ||
		    record_hist_fits("part service", &dst->parts[i].service, &src->parts[i].service,
		                     err) < 0)
			return -1;
	return record_hist_fits("latency", &dst->latency, &src->latency, err) < 0 ||
	               record_hist_fits("service", &dst->service, &src->service, err) < 0 ||
	               record_hist_fits("read_latency", &dst->read_latency, &src->read_latency,
	                                err) < 0 ||
	               record_hist_fits("write_latency", &dst->write_latency, &src->write_latency,
	                                err) < 0 ||
	               record_hist_fits("sync_latency", &dst->sync_latency, &src->sync_latency,
	                                err) < 0
	           ? -1
	           : 0;
}

void record_error(struct record *r, int errnum, uint64_t offset, const char *path,
                  const char *cause)
{
	r->errors++;
	if (record_err_kept(r) || errnum < 0)
		return;
	r->err_errno = errnum;
	r->err_offset = offset;
	snprintf(r->err_path, sizeof(r->err_path), "%s", path ? path : "");
	/* Without an errno the cause is all that says what failed: never left empty. */
	if (cause == NULL || *cause == '\0')
		cause = errnum == 0 ? "short transfer" : "";
	snprintf(r->err_cause, sizeof(r->err_cause), "%s", cause);
}

void record_err_words(int32_t errnum, const char *cause, char *buf, size_t len)
{
	const char *name = errnum != 0 ? strerrorname_np(errnum) : NULL;

	if (cause != NULL && *cause != '\0' && name != NULL)
		snprintf(buf, len, "%s (%s)", cause, name);
	else if (cause != NULL && *cause != '\0')
		snprintf(buf, len, "%s", cause);
	else
		snprintf(buf, len, "%s", name ? name : "error");
}

/* A mix's parts, each its counts and its latency (sparse, as every histogram). */
static void record_encode_parts(const struct record *rec, Iocurve__IntervalReport *r)
{
	Iocurve__PartReport *pr, **pp;
	Iocurve__Histogram *h;
	uint32_t n = rec->nparts < RECORD_PARTS_MAX ? rec->nparts : RECORD_PARTS_MAX;

	r->n_parts = 0;
	r->parts = NULL;
	if (n == 0)
		return;
	pp = xcalloc(n, sizeof(*pp));
	pr = xcalloc(n, sizeof(*pr));
	h = xcalloc(2 * (size_t)n, sizeof(*h));
	for (uint32_t i = 0; i < n; i++) {
		iocurve__part_report__init(&pr[i]);
		iocurve__histogram__init(&h[i]);
		iocurve__histogram__init(&h[n + i]);
		pr[i].ops = rec->parts[i].ops;
		pr[i].reads = rec->parts[i].reads;
		pr[i].bytes = rec->parts[i].bytes;
		pr[i].errors = rec->parts[i].errors;
		hist_encode(&rec->parts[i].latency, &h[i]);
		pr[i].latency = &h[i];
		/* an agent before it sends none: the coordinator then has no storage latency */
		if (rec->parts[i].service.count > 0) {
			hist_encode(&rec->parts[i].service, &h[n + i]);
			pr[i].service = &h[n + i];
		}
		pp[i] = &pr[i];
	}
	r->parts = pp;
	r->n_parts = n;
}

void record_encode(const struct record *rec, Iocurve__IntervalReport *r)
{
	Iocurve__Histogram *h = xcalloc(5, sizeof(*h));

	for (size_t i = 0; i < record_ncounters; i++)
		*record_wire_at(r, &record_counters[i]) =
		    *record_at((struct record *)rec, &record_counters[i]);
	r->err_errno = rec->err_errno;
	r->err_offset = rec->err_offset;
	r->err_path = (char *)rec->err_path;
	r->err_cause = (char *)rec->err_cause;
	r->kernel_dev = (char *)rec->kernel_dev;
	iocurve__histogram__init(&h[0]);
	iocurve__histogram__init(&h[1]);
	hist_encode(&rec->latency, &h[0]);
	hist_encode(&rec->service, &h[1]);
	r->latency = &h[0];
	r->service = &h[1];
	/* No sync: left out, as an older agent does. */
	if (rec->sync_latency.count > 0) {
		iocurve__histogram__init(&h[4]);
		hist_encode(&rec->sync_latency, &h[4]);
		r->sync_latency = &h[4];
	}
	record_encode_parts(rec, r);
	/* Not measured apart (no operation in either): left out, as an older agent does. */
	if (rec->read_latency.count == 0 && rec->write_latency.count == 0)
		return;
	iocurve__histogram__init(&h[2]);
	iocurve__histogram__init(&h[3]);
	hist_encode(&rec->read_latency, &h[2]);
	hist_encode(&rec->write_latency, &h[3]);
	r->read_latency = &h[2];
	r->write_latency = &h[3];
}

void record_encoded_free(Iocurve__IntervalReport *r)
{
	hist_encoded_free(r->latency);
	hist_encoded_free(r->service);
	if (r->read_latency != NULL) {
		hist_encoded_free(r->read_latency);
		hist_encoded_free(r->write_latency);
	}
	if (r->sync_latency != NULL)
		hist_encoded_free(r->sync_latency);
	if (r->n_parts > 0) {
		for (size_t i = 0; i < r->n_parts; i++) {
			hist_encoded_free(r->parts[i]->latency);
			if (r->parts[i]->service != NULL)
				hist_encoded_free(r->parts[i]->service);
		}
		/* parts, their reports and histograms came from one allocation each */
		free(r->parts[0]->latency);
		free(r->parts[0]);
		free(r->parts);
		r->parts = NULL;
		r->n_parts = 0;
	}
	free(r->latency); /* the histograms came from one allocation */
	r->latency = r->service = r->read_latency = r->write_latency = r->sync_latency = NULL;
}

/* A mix's parts from a report: at most RECORD_PARTS_MAX, each with its histogram. */
static int record_decode_parts(struct record *rec, const Iocurve__IntervalReport *r,
                               struct error *err)
{
	if (r->n_parts > RECORD_PARTS_MAX) {
		error_set(err, "interval %u: %zu parts, over the bound of %d", r->interval,
		          r->n_parts, RECORD_PARTS_MAX);
		return -1;
	}
	record_parts_use(rec, (uint32_t)r->n_parts);
	for (size_t i = 0; i < r->n_parts; i++) {
		const Iocurve__PartReport *p = r->parts[i];
		struct record_part *d = &rec->parts[i];

		if (p->latency == NULL) {
			error_set(err, "interval %u: part %zu without its latency", r->interval, i);
			return -1;
		}
		d->ops = p->ops;
		d->reads = p->reads;
		d->bytes = p->bytes;
		d->errors = p->errors;
		if (hist_decode(&d->latency, p->latency, err) < 0) {
			error_prefix(err, "interval %u: part %zu latency ", r->interval, i);
			return -1;
		}
		if (p->service == NULL)
			hist_reset(&d->service);
		else if (hist_decode(&d->service, p->service, err) < 0) {
			error_prefix(err, "interval %u: part %zu service ", r->interval, i);
			return -1;
		}
	}
	return 0;
}

int record_decode(struct record *rec, const Iocurve__IntervalReport *r, struct error *err)
{
	record_reset(rec);
	for (size_t i = 0; i < record_ncounters; i++)
		*record_at(rec, &record_counters[i]) =
		    *record_wire_at((Iocurve__IntervalReport *)r, &record_counters[i]);
	if (r->err_errno < 0 || r->err_errno > RECORD_ERRNO_MAX) {
		error_set(err, "interval %u: err_errno %d is outside [0, %d]", r->interval,
		          r->err_errno, RECORD_ERRNO_MAX);
		return -1;
	}
	rec->err_errno = r->err_errno;
	rec->err_offset = r->err_offset;
	if (r->err_path != NULL)
		text_clean(r->err_path, rec->err_path, sizeof(rec->err_path), false);
	/* An older agent sends none: its failures without an errno stay unnamed. */
	if (r->err_cause != NULL)
		text_clean(r->err_cause, rec->err_cause, sizeof(rec->err_cause), false);
	if (r->kernel_dev != NULL)
		text_clean(r->kernel_dev, rec->kernel_dev, sizeof(rec->kernel_dev), false);
	if (r->latency == NULL || r->service == NULL) {
		error_set(err, "interval %u: report without histograms", r->interval);
		return -1;
	}
	if (hist_decode(&rec->latency, r->latency, err) < 0) {
		error_prefix(err, "interval %u: latency ", r->interval);
		return -1;
	}
	if (hist_decode(&rec->service, r->service, err) < 0) {
		error_prefix(err, "interval %u: service ", r->interval);
		return -1;
	}
	/* Both or neither: an older agent sends neither (not measured). */
	if ((r->read_latency == NULL) != (r->write_latency == NULL)) {
		error_set(err,
		          "interval %u: report with only one of read_latency and write_latency",
		          r->interval);
		return -1;
	}
	if (r->read_latency != NULL && hist_decode(&rec->read_latency, r->read_latency, err) < 0) {
		error_prefix(err, "interval %u: read_latency ", r->interval);
		return -1;
	}
	if (r->write_latency != NULL &&
	    hist_decode(&rec->write_latency, r->write_latency, err) < 0) {
		error_prefix(err, "interval %u: write_latency ", r->interval);
		return -1;
	}
	if (r->sync_latency != NULL && hist_decode(&rec->sync_latency, r->sync_latency, err) < 0) {
		error_prefix(err, "interval %u: sync_latency ", r->interval);
		return -1;
	}
	if (record_decode_parts(rec, r, err) < 0)
		return -1;
	if (record_check(rec, err) < 0 ||
	    (r->read_latency != NULL && record_check_kinds(rec, err) < 0) ||
	    (rec->nparts > 0 && record_check_parts(rec, err) < 0)) {
		error_prefix(err, "interval %u: ", r->interval);
		return -1;
	}
	return 0;
}

/* a <= b * c, without overflowing. */
static bool record_le_product(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t p;

	return __builtin_mul_overflow(b, c, &p) || a <= p;
}

/* A histogram within its bounds, its sum of count values in [min, max] (hist_check). */
static int record_check_sum(const char *name, const struct hist *h, struct error *err)
{
	return hist_check(name, h, err);
}

/* Read and write apart: each kind's latencies within its operations, its bytes within all. */
static int record_check_apart(const struct record *rec, struct error *err)
{
	if (rec->read_bytes > rec->bytes) {
		error_set(err, "read_bytes %llu is more than bytes %llu",
		          (unsigned long long)rec->read_bytes, (unsigned long long)rec->bytes);
		return -1;
	}
	if (rec->read_latency.count > rec->reads) {
		error_set(err, "read_latency count %llu is more than reads %llu",
		          (unsigned long long)rec->read_latency.count,
		          (unsigned long long)rec->reads);
		return -1;
	}
	if (rec->write_latency.count > rec->ops - rec->reads) {
		error_set(err,
		          "write_latency count %llu is more than the writes (ops - reads) %llu",
		          (unsigned long long)rec->write_latency.count,
		          (unsigned long long)(rec->ops - rec->reads));
		return -1;
	}
	if (rec->read_bytes > 0 && rec->read_latency.count == 0) {
		error_set(err, "read_bytes %llu without a read measured apart (read_latency empty)",
		          (unsigned long long)rec->read_bytes);
		return -1;
	}
	/* a file workload's reads (stat, readdir...) move no bytes: no floor on read_bytes */
	return 0;
}

/* Each part within the counters' bounds, its latencies within its operations. */
static int record_check_part_bounds(const struct record *rec, struct error *err)
{
	if (rec->nparts > RECORD_PARTS_MAX) {
		error_set(err, "nparts %u is outside [0, %d]", rec->nparts, RECORD_PARTS_MAX);
		return -1;
	}
	for (uint32_t i = 0; i < rec->nparts; i++) {
		const struct record_part *p = &rec->parts[i];

		if (p->ops > RECORD_COUNT_MAX || p->bytes > RECORD_BYTES_MAX || p->reads > p->ops ||
		    p->latency.count > p->ops) {
			error_set(
			    err,
			    "part %u: ops %llu, reads %llu, bytes %llu and %llu latencies do not "
			    "agree",
			    i, (unsigned long long)p->ops, (unsigned long long)p->reads,
			    (unsigned long long)p->bytes, (unsigned long long)p->latency.count);
			return -1;
		}
		/* a part's failures are the record's too; its storage latencies its operations' */
		if (p->errors > rec->errors || p->service.count > p->ops) {
			error_set(err,
			          "part %u: errors %llu (of the record's %llu) and %llu storage "
			          "latencies (of its %llu ops) do not agree",
			          i, (unsigned long long)p->errors, (unsigned long long)rec->errors,
			          (unsigned long long)p->service.count, (unsigned long long)p->ops);
			return -1;
		}
		if (hist_check("part latency", &p->latency, err) < 0 ||
		    hist_check("part service", &p->service, err) < 0)
			return -1;
	}
	return 0;
}

int record_check_parts(const struct record *rec, struct error *err)
{
	uint64_t ops = 0, reads = 0, bytes = 0;

	for (uint32_t i = 0; i < rec->nparts; i++) {
		const struct record_part *p = &rec->parts[i];

		if (p->latency.count != p->ops) {
			error_set(err, "part %u: %llu ops but %llu latencies", i,
			          (unsigned long long)p->ops, (unsigned long long)p->latency.count);
			return -1;
		}
		ops += p->ops;
		reads += p->reads;
		bytes += p->bytes;
	}
	if (ops != rec->ops || reads != rec->reads || bytes != rec->bytes) {
		error_set(
		    err,
		    "the parts' ops %llu, reads %llu and bytes %llu are not the record's %llu, "
		    "%llu and %llu",
		    (unsigned long long)ops, (unsigned long long)reads, (unsigned long long)bytes,
		    (unsigned long long)rec->ops, (unsigned long long)rec->reads,
		    (unsigned long long)rec->bytes);
		return -1;
	}
	return 0;
}

int record_check_kinds(const struct record *rec, struct error *err)
{
	if (record_kinds_known(rec))
		return 0;
	error_set(err,
	          "read_latency count %llu and write_latency count %llu are not reads %llu and "
	          "writes (ops - reads) %llu",
	          (unsigned long long)rec->read_latency.count,
	          (unsigned long long)rec->write_latency.count, (unsigned long long)rec->reads,
	          (unsigned long long)(rec->ops - rec->reads));
	return -1;
}

int record_check(const struct record *rec, struct error *err)
{
	static const char *const late[] = {"late_10us", "late_100us", "late_1ms", "late_10ms"};
	const uint64_t lates[] = {rec->late_10us, rec->late_100us, rec->late_1ms, rec->late_10ms};

	/* Each counter inside its bound: sums over a fleet and a window cannot wrap. */
	for (size_t i = 0; i < record_ncounters; i++) {
		const struct record_counter *c = &record_counters[i];
		uint64_t v = *record_at((struct record *)rec, c);

		if (v > c->max) {
			error_set(err, "%s %llu is outside [0, %llu]", c->key,
			          (unsigned long long)v, (unsigned long long)c->max);
			return -1;
		}
	}
	if (rec->err_errno < 0 || rec->err_errno > RECORD_ERRNO_MAX) {
		error_set(err, "err_errno %d is outside [0, %d]", (int)rec->err_errno,
		          RECORD_ERRNO_MAX);
		return -1;
	}
	/* an offset no file can have: intervals.jsonl could not hold it as written */
	if (rec->err_offset > RECORD_OFFSET_MAX) {
		error_set(err, "err_offset %llu is outside [0, %llu]",
		          (unsigned long long)rec->err_offset,
		          (unsigned long long)RECORD_OFFSET_MAX);
		return -1;
	}
	/* Device counters come with the device they are of. */
	if (rec->kernel_n == 0 && (rec->kernel_reads || rec->kernel_writes || rec->kernel_io_ms ||
	                           rec->kernel_busy_ms || rec->kernel_queue_ms)) {
		error_set(err, "kernel counters without a device (kernel_n 0)");
		return -1;
	}
	/* a block that failed verify failed its read: every mismatch is in an error */
	if (rec->mismatches > 0 && rec->errors == 0) {
		error_set(err, "mismatches %llu without an error",
		          (unsigned long long)rec->mismatches);
		return -1;
	}
	if (rec->reads > rec->ops) {
		error_set(err, "reads %llu is more than ops %llu", (unsigned long long)rec->reads,
		          (unsigned long long)rec->ops);
		return -1;
	}
	if (rec->latency.count != rec->ops + rec->missed_charged) {
		error_set(err, "%llu ops and %llu charged but %llu latencies",
		          (unsigned long long)rec->ops, (unsigned long long)rec->missed_charged,
		          (unsigned long long)rec->latency.count);
		return -1;
	}
	if (rec->service.count > rec->ops) {
		error_set(err, "%llu service times but %llu ops",
		          (unsigned long long)rec->service.count, (unsigned long long)rec->ops);
		return -1;
	}
	if (record_check_sum("latency", &rec->latency, err) < 0 ||
	    record_check_sum("service", &rec->service, err) < 0 ||
	    record_check_sum("read_latency", &rec->read_latency, err) < 0 ||
	    record_check_sum("write_latency", &rec->write_latency, err) < 0 ||
	    record_check_sum("sync_latency", &rec->sync_latency, err) < 0)
		return -1;
	/* One sync time per sync completed, and none without one. */
	if (rec->sync_latency.count != rec->syncs) {
		error_set(err, "%llu syncs but %llu sync latencies", (unsigned long long)rec->syncs,
		          (unsigned long long)rec->sync_latency.count);
		return -1;
	}
	if (record_check_apart(rec, err) < 0 || record_check_part_bounds(rec, err) < 0)
		return -1;
	/* Each op's lag is at most the largest: their sum is at most ops times it. */
	if (!record_le_product(rec->lag_sum_ns, rec->ops, rec->lag_max_ns)) {
		error_set(err, "lag_sum_ns %llu is more than ops %llu times lag_max_ns %llu",
		          (unsigned long long)rec->lag_sum_ns, (unsigned long long)rec->ops,
		          (unsigned long long)rec->lag_max_ns);
		return -1;
	}
	/* The client's delays over 10 us, 100 us, 1 ms, 10 ms: each a subset of the one before. */
	if (rec->late_10us > rec->ops) {
		error_set(err, "late_10us %llu is more than ops %llu",
		          (unsigned long long)rec->late_10us, (unsigned long long)rec->ops);
		return -1;
	}
	for (size_t i = 1; i < 4; i++)
		if (lates[i] > lates[i - 1]) {
			error_set(err, "%s %llu is more than %s %llu", late[i],
			          (unsigned long long)lates[i], late[i - 1],
			          (unsigned long long)lates[i - 1]);
			return -1;
		}
	return 0;
}
