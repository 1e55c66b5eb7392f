/* SPDX-License-Identifier: MIT */
/*
 * intervals.jsonl read back, line by line (its writer is intervals_write.c, beside it:
 * a field is added to both at once).
 *
 * Every line carries "format", not only the first: each line is a whole record
 * that tools read on its own (a JSON parse per line, grep, tail -f during a
 * run); a header line would be a second kind of line every such reader must
 * skip, and a file cut short or pieced together would lose it. It costs
 * twelve bytes a line.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "intervals.h"
#include "iocurve.pb-c.h"
#include "saferead.h"
#include "text.h"
#include "xalloc.h"

/* The largest offered rate a line may hold: a campaign's (units_parse_rate). */
#define INTERVALS_RATE_MAX 1e15

/* ---- reading ---- */

struct intervals_reader {
	FILE *f;
	char *path;
	char *buf;
	size_t cap;
	size_t lineno;
	long end;                      /* offset after the last line read */
	char warning[256];             /* a torn last line ignored, or "" */
	uint64_t pairs[2 * HIST_BINS]; /* one histogram's bins as (gap, count) pairs */
	uint8_t wire[2 * HIST_BINS * HIST_VARINT_MAX]; /* the same as the wire has them */
	/*
	 * The last line's parts (a mix's): the reader's, so a caller's line needs no freeing;
	 * freed by the next intervals_next or intervals_close.
	 */
	struct record_part *parts;
};

/* The helpers below say what is wrong; intervals_next says where. */
static json_t *intervals_field(json_t *o, const char *key, struct error *err)
{
	json_t *v = json_object_get(o, key);

	if (v == NULL)
		error_set(err, "no \"%s\"", key);
	return v;
}

static int intervals_get_uint(json_t *o, const char *key, uint64_t max, uint64_t *out,
                              struct error *err)
{
	json_t *v = intervals_field(o, key, err);

	if (v == NULL)
		return -1;
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (uint64_t)json_integer_value(v) > max) {
		error_set(err, "\"%s\" is not an integer in [0, %llu]", key,
		          (unsigned long long)max);
		return -1;
	}
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int intervals_get_u32(json_t *o, const char *key, uint32_t *out, struct error *err)
{
	uint64_t v;

	if (intervals_get_uint(o, key, UINT32_MAX, &v, err) < 0)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int intervals_get_double(json_t *o, const char *key, double *out, struct error *err)
{
	json_t *v = intervals_field(o, key, err);

	if (v == NULL)
		return -1;
	if (!json_is_number(v) && !json_is_null(v)) {
		error_set(err, "\"%s\" is not a number", key);
		return -1;
	}
	*out = json_is_null(v) ? NAN : json_number_value(v);
	return 0;
}

static int intervals_get_name(json_t *o, const char *key, char *buf, struct error *err)
{
	json_t *v = intervals_field(o, key, err);

	if (v == NULL)
		return -1;
	if (!json_is_string(v) || json_string_length(v) == 0 ||
	    json_string_length(v) >= INTERVALS_NAME_MAX) {
		error_set(err, "\"%s\" is not a name (a string of 1 to %d bytes)", key,
		          INTERVALS_NAME_MAX - 1);
		return -1;
	}
	/* No control character reaches a terminal through `report` (nor a NUL cuts it short). */
	if (strlen(json_string_value(v)) != json_string_length(v)) {
		error_set(err, "\"%s\" holds a NUL byte", key);
		return -1;
	}
	text_clean(json_string_value(v), buf, INTERVALS_NAME_MAX, false);
	return 0;
}

/*
 * An agent's histogram without its bins (agents.detail: counts): its count, sum,
 * min and max only, checked as far as they go. The bins stay empty; `report` takes
 * the interval's histograms from its merged line.
 */
static int intervals_get_counts(json_t *v, const char *key, struct hist *h, bool *counts_only,
                                struct error *err)
{
	uint64_t count, sum, min, max;

	if (intervals_get_uint(v, "count", UINT64_MAX, &count, err) < 0 ||
	    intervals_get_uint(v, "sum_ns", UINT64_MAX, &sum, err) < 0 ||
	    intervals_get_uint(v, "min_ns", UINT64_MAX, &min, err) < 0 ||
	    intervals_get_uint(v, "max_ns", UINT64_MAX, &max, err) < 0)
		goto bad;
	if (count == 0 && (sum != 0 || min != 0 || max != 0)) {
		error_set(err, "count %llu, sum %llu, min %llu and max %llu do not agree",
		          (unsigned long long)count, (unsigned long long)sum,
		          (unsigned long long)min, (unsigned long long)max);
		goto bad;
	}
	if (count > 0 &&
	    hist_check("counts:",
	               &(struct hist){.count = count, .sum = sum, .min = min, .max = max}, err) < 0)
		goto bad;
	hist_reset(h);
	h->count = count;
	h->sum = sum;
	if (count > 0) {
		h->min = min;
		h->max = max;
	}
	*counts_only = true;
	return 0;
bad:
	error_prefix(err, "\"%s\": ", key);
	return -1;
}

/*
 * [index, count, ...] to the wire's (gap, count) pairs, then hist_decode checks it all.
 * counts_only (NULL: bins required) is set for a histogram written without its bins.
 */
static int intervals_get_hist(struct intervals_reader *r, json_t *o, const char *key,
                              struct hist *h, bool *counts_only, struct error *err)
{
	Iocurve__Histogram in = IOCURVE__HISTOGRAM__INIT;
	json_t *v = intervals_field(o, key, err), *bins;
	uint64_t sub_bits, idx, next = 0;

	if (v == NULL)
		return -1;
	bins = json_is_object(v) ? json_object_get(v, "bins") : NULL;
	if (bins == NULL && json_is_object(v) && counts_only != NULL)
		return intervals_get_counts(v, key, h, counts_only, err);
	if (!json_is_array(bins) || json_array_size(bins) > 2 * HIST_BINS) {
		error_set(err, "\"%s\" is not a histogram (an object with up to %u bins)", key,
		          HIST_BINS);
		return -1;
	}
	if (intervals_get_uint(v, "count", UINT64_MAX, &in.count, err) < 0 ||
	    intervals_get_uint(v, "sum_ns", UINT64_MAX, &in.sum, err) < 0 ||
	    intervals_get_uint(v, "min_ns", UINT64_MAX, &in.min, err) < 0 ||
	    intervals_get_uint(v, "max_ns", UINT64_MAX, &in.max, err) < 0 ||
	    intervals_get_uint(v, "sub_bits", UINT32_MAX, &sub_bits, err) < 0)
		goto bad;
	in.sub_bucket_bits = (uint32_t)sub_bits;
	for (size_t i = 0; i < json_array_size(bins); i++) {
		json_t *e = json_array_get(bins, i);

		if (!json_is_integer(e) || json_integer_value(e) < 0) {
			error_set(err, "bins[%zu] is not an integer >= 0", i);
			goto bad;
		}
		r->pairs[i] = (uint64_t)json_integer_value(e);
		if (i % 2 == 1)
			continue;
		idx = r->pairs[i];
		if (idx < next) {
			error_set(err, "bins[%zu]: bin %llu after bin %llu (indexes must rise)", i,
			          (unsigned long long)idx, (unsigned long long)next - 1);
			goto bad;
		}
		r->pairs[i] = idx - next;
		next = idx + 1;
	}
	in.bins.data = r->wire;
	in.bins.len = hist_pairs_put(r->wire, r->pairs, json_array_size(bins));
	if (hist_decode(h, &in, err) == 0)
		return 0;
bad:
	error_prefix(err, "\"%s\": ", key);
	return -1;
}

/* "error", when there is one: what intervals_error_json wrote. */
static int intervals_get_error(json_t *o, struct agg_record *a, struct error *err)
{
	json_t *e = json_object_get(o, "error");
	const char *path = NULL, *agent = "", *cause = "";
	json_int_t no = 0, off = -1;

	if (e == NULL)
		return 0;
	if (json_unpack(e, "{s:I,s:s,s:I,s?:s,s?:s}", "errno", &no, "path", &path, "offset", &off,
	                "agent", &agent, "cause", &cause) < 0 ||
	    no < 0 || no > 4095 || (no == 0 && *cause == '\0') || off < 0) {
		error_set(err, "\"error\" is not {errno (1..4095, or 0 with a cause), path, offset "
		               "(>= 0)}");
		return -1;
	}
	a->rec.err_errno = (int32_t)no;
	a->rec.err_offset = (uint64_t)off;
	/* Cut to the record's room on a character's edge: JSON takes them back (UTF-8). */
	text_clean(path, a->rec.err_path, sizeof(a->rec.err_path), false);
	text_clean(cause, a->rec.err_cause, sizeof(a->rec.err_cause), false);
	text_clean(agent, a->err_agent, sizeof(a->err_agent), false);
	return 0;
}

/* "kernel_dev", when a device was read: words, cut to the record's room. */
static int intervals_get_dev(json_t *o, struct record *rec, struct error *err)
{
	json_t *d = json_object_get(o, "kernel_dev");

	if (d == NULL)
		return 0;
	if (!json_is_string(d)) {
		error_set(err, "\"kernel_dev\" is not a string");
		return -1;
	}
	text_clean(json_string_value(d), rec->kernel_dev, sizeof(rec->kernel_dev), false);
	return 0;
}

/* The counters of a line of format fmt: those it predates take their defaults. */
static int intervals_get_counters(json_t *o, int fmt, struct record *rec, struct error *err)
{
	for (size_t i = 0; i < record_ncounters; i++) {
		const struct record_counter *c = &record_counters[i];
		uint64_t *v = record_at(rec, c);

		if (fmt < c->since && json_object_get(o, c->key) == NULL)
			*v = c->dflt;
		else if (intervals_get_uint(o, c->key, UINT64_MAX, v, err) < 0)
			return -1;
	}
	return 0;
}

/*
 * "parts": a mix's, each {ops, reads, bytes, errors, latency, service} (errors and service
 * absent: none, or an older line's); absent: a plain workload's.
 */
static int intervals_get_parts(struct intervals_reader *r, json_t *o, struct record *rec,
                               bool *no_bins, struct error *err)
{
	json_t *parts = json_object_get(o, "parts");

	if (parts == NULL)
		return 0;
	if (!json_is_array(parts) || json_array_size(parts) == 0 ||
	    json_array_size(parts) > RECORD_PARTS_MAX) {
		error_set(err, "\"parts\" is not a list of 1 to %d parts", RECORD_PARTS_MAX);
		return -1;
	}
	record_parts_use(rec, (uint32_t)json_array_size(parts));
	for (size_t i = 0; i < json_array_size(parts); i++) {
		json_t *e = json_array_get(parts, i);
		struct record_part *pt = &rec->parts[i];

		if (!json_is_object(e) ||
		    intervals_get_uint(e, "ops", RECORD_COUNT_MAX, &pt->ops, err) < 0 ||
		    intervals_get_uint(e, "reads", RECORD_COUNT_MAX, &pt->reads, err) < 0 ||
		    intervals_get_uint(e, "bytes", RECORD_BYTES_MAX, &pt->bytes, err) < 0 ||
		    intervals_get_hist(r, e, "latency", &pt->latency, no_bins, err) < 0 ||
		    (json_object_get(e, "errors") != NULL &&
		     intervals_get_uint(e, "errors", RECORD_COUNT_MAX, &pt->errors, err) < 0) ||
		    (json_object_get(e, "service") != NULL &&
		     intervals_get_hist(r, e, "service", &pt->service, no_bins, err) < 0)) {
			if (!json_is_object(e))
				error_set(err, "not an object");
			error_prefix(err, "\"parts\"[%zu]: ", i);
			return -1;
		}
		if (json_object_get(e, "errors") == NULL)
			pt->errors = 0;
		if (json_object_get(e, "service") == NULL)
			hist_reset(&pt->service);
	}
	return 0;
}

static int intervals_get_record(struct intervals_reader *r, json_t *o, int fmt,
                                struct intervals_line *l, struct error *err)
{
	struct agg_record *a = &l->rec;
	bool *no_bins;
	int warmup;

	if (intervals_get_name(o, "agent", l->agent, err) < 0 ||
	    intervals_get_double(o, "offered_ops", &l->offered_ops, err) < 0 ||
	    intervals_get_u32(o, "interval", &l->interval, err) < 0 ||
	    intervals_get_u32(o, "agents", &a->agents, err) < 0 ||
	    intervals_get_u32(o, "workers", &a->workers, err) < 0 ||
	    intervals_get_uint(o, "duration_ns", UINT64_MAX, &a->duration_ns, err) < 0 ||
	    intervals_get_double(o, "host_cpu_pct", &a->host_cpu_pct, err) < 0)
		return -1;
	if (json_unpack(o, "{s:b}", "warmup", &warmup) < 0) {
		error_set(err, "\"warmup\" is missing or not true/false");
		return -1;
	}
	a->warmup = warmup;
	if (intervals_get_counters(o, fmt, &a->rec, err) < 0 ||
	    intervals_get_dev(o, &a->rec, err) < 0)
		return -1;
	/* Only an agent's line may leave out its bins (agents.detail: counts). */
	no_bins = strcmp(l->agent, INTERVALS_MERGED) != 0 ? &a->no_bins : NULL;
	a->no_bins = false;
	if (intervals_get_hist(r, o, "latency", &a->rec.latency, no_bins, err) < 0 ||
	    intervals_get_hist(r, o, "service", &a->rec.service, no_bins, err) < 0 ||
	    intervals_get_error(o, a, err) < 0)
		return -1;
	/* Read and write apart: both or neither (neither: not measured, left empty). */
	if ((json_object_get(o, "read_latency") != NULL) !=
	    (json_object_get(o, "write_latency") != NULL)) {
		error_set(err, "only one of \"read_latency\" and \"write_latency\"");
		return -1;
	}
	if (json_object_get(o, "read_latency") != NULL &&
	    (intervals_get_hist(r, o, "read_latency", &a->rec.read_latency, no_bins, err) < 0 ||
	     intervals_get_hist(r, o, "write_latency", &a->rec.write_latency, no_bins, err) < 0))
		return -1;
	if (json_object_get(o, "sync_latency") != NULL &&
	    intervals_get_hist(r, o, "sync_latency", &a->rec.sync_latency, no_bins, err) < 0)
		return -1;
	if (intervals_get_parts(r, o, &a->rec, no_bins, err) < 0)
		return -1;
	/* A rate asked of the fleet: units_parse_rate's bound, or null (not known). */
	if (!isnan(l->offered_ops) &&
	    !(l->offered_ops >= 0 && l->offered_ops <= INTERVALS_RATE_MAX)) {
		error_set(err, "offered_ops %g is outside [0, %g]", l->offered_ops,
		          INTERVALS_RATE_MAX);
		return -1;
	}
	if (agg_record_check(a, true, err) < 0)
		return -1;
	return record_check(&a->rec, err);
}

static int intervals_get_clock(json_t *o, struct intervals_line *l, struct error *err)
{
	json_t *c = json_object_get(o, "clock"), *off;
	struct intervals_clock *k = &l->clk;

	if (intervals_get_name(o, "agent", l->agent, err) < 0)
		return -1;
	if (!json_is_object(c)) {
		error_set(err, "\"clock\" is not an object");
		return -1;
	}
	if (intervals_get_uint(c, "planned_ns", UINT64_MAX, &k->planned_ns, err) < 0 ||
	    intervals_get_uint(c, "start_agent_ns", UINT64_MAX, &k->start_agent_ns, err) < 0 ||
	    intervals_get_uint(c, "start_ns", UINT64_MAX, &k->start_ns, err) < 0 ||
	    intervals_get_uint(c, "uncertainty_ns", UINT64_MAX, &k->uncertainty_ns, err) < 0 ||
	    intervals_get_uint(c, "rtt_ns", UINT64_MAX, &k->rtt_ns, err) < 0 ||
	    intervals_get_double(c, "drift_ppm", &k->drift_ppm, err) < 0)
		goto bad;
	off = intervals_field(c, "offset_ns", err);
	if (off == NULL)
		goto bad;
	if (!json_is_integer(off)) {
		error_set(err, "\"offset_ns\" is not an integer");
		goto bad;
	}
	k->offset_ns = (int64_t)json_integer_value(off);
	return 0;
bad:
	error_prefix(err, "\"clock\": ");
	return -1;
}

static int intervals_get_finish(json_t *o, struct intervals_line *l, struct error *err)
{
	json_t *f = json_object_get(o, "finish");
	struct intervals_finish *k = &l->fin;

	if (intervals_get_name(o, "agent", l->agent, err) < 0)
		return -1;
	if (!json_is_object(f)) {
		error_set(err, "\"finish\" is not an object");
		return -1;
	}
	if (intervals_get_u32(f, "worker", &k->worker, err) < 0 ||
	    intervals_get_double(f, "start_s", &k->start_s, err) < 0 ||
	    intervals_get_double(f, "done_s", &k->done_s, err) < 0 ||
	    intervals_get_uint(f, "ops", UINT64_MAX, &k->ops, err) < 0)
		goto bad;
	if (!(k->start_s >= 0 && k->start_s < 1e9) ||
	    !(isnan(k->done_s) || (k->done_s >= 0 && k->done_s < 1e9))) {
		error_set(err, "\"start_s\" or \"done_s\" is not a time in seconds");
		goto bad;
	}
	if (isnan(k->done_s))
		k->done_s = -1;
	l->finish = true;
	return 0;
bad:
	error_prefix(err, "\"finish\": ");
	return -1;
}

/* The line's format (1 when it has none), or -1 when this reader does not know it. */
static int intervals_get_format(json_t *o, struct error *err)
{
	json_t *v = json_object_get(o, "format");
	json_int_t f;

	if (v == NULL)
		return 1; /* no "format": written before the field existed, in format 1 */
	if (!json_is_integer(v)) {
		error_set(err, "\"format\" is not an integer");
		return -1;
	}
	f = json_integer_value(v);
	if (f >= 1 && f <= INTERVALS_FORMAT)
		return (int)f;
	if (f > INTERVALS_FORMAT)
		error_set(err,
		          "format %lld is newer than this iocurve reads (formats 1 to %d): a newer "
		          "iocurve wrote this file; read it with that one",
		          (long long)f, INTERVALS_FORMAT);
	else
		error_set(err, "format %lld is not one iocurve ever wrote", (long long)f);
	return -1;
}

static const char *intervals_type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	default:
		return "true, false or null";
	}
}

static int intervals_get_end(json_t *o, struct intervals_line *l, struct error *err)
{
	const char *state = json_string_value(json_object_get(o, "end"));
	const char *reason = json_string_value(json_object_get(o, "reason"));

	if (state == NULL || (strcmp(state, "failed") != 0 && strcmp(state, "cancelled") != 0)) {
		error_set(err, "\"end\": expected \"failed\" or \"cancelled\"");
		return -1;
	}
	if (reason == NULL) {
		error_set(err, "\"reason\" is missing or not a string");
		return -1;
	}
	l->end = true;
	snprintf(l->end_state, sizeof(l->end_state), "%s", state);
	text_clean(reason, l->end_reason, sizeof(l->end_reason), false);
	return 0;
}

/* A background line: intervals_background_line's fields, each a finite figure >= 0. */
static int intervals_get_background(json_t *o, struct intervals_line *l, struct error *err)
{
	struct intervals_bg *b = &l->bg;
	json_t *g = json_object_get(o, "bg");
	double *real[] = {&b->asked_ops, &b->ops, &b->mib_s, &b->mean_ns};
	const char *keys[] = {"asked_ops", "ops", "mib_s", "mean_ns"};

	if (intervals_get_name(o, "background", b->name, err) < 0)
		return -1;
	if (!json_is_object(g)) {
		error_set(err, "\"bg\": expected an object of the background's figures");
		return -1;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (intervals_get_double(g, keys[i], real[i], err) < 0)
			return -1;
		if (!isfinite(*real[i]) || *real[i] < 0) {
			error_set(err, "\"bg\": \"%s\" is not a finite figure >= 0", keys[i]);
			return -1;
		}
	}
	if (intervals_get_uint(g, "p99_ns", UINT64_MAX >> 1, &b->p99_ns, err) < 0 ||
	    intervals_get_uint(g, "missed", UINT64_MAX >> 1, &b->missed, err) < 0 ||
	    intervals_get_u32(g, "intervals", &b->intervals, err) < 0)
		return -1;
	l->background = true;
	return 0;
}

static int intervals_get_lost(json_t *o, struct intervals_line *l, struct error *err)
{
	const char *reason = json_string_value(json_object_get(o, "reason"));

	if (intervals_get_name(o, "lost", l->agent, err) < 0)
		return -1;
	if (reason == NULL) {
		error_set(err, "\"reason\" is missing or not a string");
		return -1;
	}
	l->interval = UINT32_MAX;
	if (json_object_get(o, "interval") != NULL &&
	    intervals_get_u32(o, "interval", &l->interval, err) < 0)
		return -1;
	l->lost = true;
	text_clean(reason, l->lost_reason, sizeof(l->lost_reason), false);
	return 0;
}

/* A mark line: intervals_mark_line's fields (workload and step read already). */
static int intervals_get_mark(json_t *o, struct intervals_line *l, struct error *err)
{
	struct run_mark *m = &l->mk;
	json_t *text = json_object_get(o, "mark"), *src = json_object_get(o, "source");

	if (!json_is_string(text) || json_string_length(text) == 0 ||
	    json_string_length(text) > MARK_TEXT_MAX ||
	    strlen(json_string_value(text)) != json_string_length(text)) {
		error_set(err, "\"mark\" is not a text of 1 to %d bytes", MARK_TEXT_MAX);
		return -1;
	}
	if (!json_is_string(src) || json_string_length(src) == 0 ||
	    json_string_length(src) >= sizeof(m->source)) {
		error_set(err, "\"source\" is not a word of 1 to %zu bytes", sizeof(m->source) - 1);
		return -1;
	}
	memset(m, 0, sizeof(*m));
	snprintf(m->workload, sizeof(m->workload), "%s", l->workload);
	m->step = l->step;
	m->interval = MARK_NO_INTERVAL;
	if (intervals_get_uint(o, "at_ns", UINT64_MAX, &m->at_ns, err) < 0 ||
	    (json_object_get(o, "interval") != NULL &&
	     intervals_get_u32(o, "interval", &m->interval, err) < 0) ||
	    (json_object_get(o, "unix_ns") != NULL &&
	     intervals_get_uint(o, "unix_ns", UINT64_MAX, &m->unix_ns, err) < 0) ||
	    (json_object_get(o, "agent") != NULL &&
	     intervals_get_name(o, "agent", m->agent, err) < 0))
		return -1;
	/* Cleaned as any text read back: it reaches a terminal through `report`. */
	text_clean(json_string_value(text), m->text, sizeof(m->text), false);
	text_clean(json_string_value(src), m->source, sizeof(m->source), false);
	l->mark = true;
	return 0;
}

/* An observe line: intervals_obs_line's fields (workload and step read already). */
static int intervals_get_obs(json_t *o, struct intervals_line *l, struct error *err)
{
	struct obs_line *ob = &l->ob;
	json_t *vals = json_object_get(o, "values"), *v;
	const char *key;
	const char *texts[] = {"late", "note"};
	char *dst[] = {ob->late, ob->note};

	memset(ob, 0, sizeof(*ob));
	if (intervals_get_name(o, "observe", ob->source, err) < 0 ||
	    intervals_get_u32(o, "interval", &ob->interval, err) < 0)
		return -1;
	if (!json_is_object(vals) || json_object_size(vals) > OBS_VALUES_MAX) {
		error_set(err, "\"values\" is not an object of at most %d series", OBS_VALUES_MAX);
		return -1;
	}
	json_object_foreach(vals, key, v)
	{
		struct obs_value *ov = &ob->values[ob->n++];

		if (strlen(key) == 0 || strlen(key) >= OBS_SERIES_MAX) {
			error_set(err, "\"values\": a series name of 0 or over %d bytes",
			          OBS_SERIES_MAX - 1);
			return -1;
		}
		if (!json_is_number(v) && !json_is_null(v)) {
			error_set(err, "\"values\": \"%s\" is not a number or null", key);
			return -1;
		}
		text_clean(key, ov->series, sizeof(ov->series), false);
		ov->has = json_is_number(v) && isfinite(json_number_value(v));
		ov->v = ov->has ? json_number_value(v) : 0;
	}
	for (size_t i = 0; i < 2; i++) {
		json_t *t = json_object_get(o, texts[i]);

		if (t == NULL)
			continue;
		if (!json_is_string(t)) {
			error_set(err, "\"%s\" is not a string", texts[i]);
			return -1;
		}
		text_clean(json_string_value(t), dst[i], OBS_WHY_MAX, false);
	}
	snprintf(ob->workload, sizeof(ob->workload), "%s", l->workload);
	ob->step = l->step;
	l->obs = true;
	return 0;
}

/* One line, already parsed: what it is, field by field. */
static int intervals_get_line(struct intervals_reader *r, json_t *o, struct intervals_line *l,
                              struct error *err)
{
	int fmt;

	if (!json_is_object(o)) {
		error_set(err, "expected a JSON object, found %s", intervals_type_name(o));
		return -1;
	}
	fmt = intervals_get_format(o, err);
	if (fmt < 0)
		return -1;
	l->cooldown = l->window = l->lost = l->finish = l->clock = l->mark = l->background =
	    l->obs = false;
	l->retried = 0;
	if (json_object_get(o, "end") != NULL)
		return intervals_get_end(o, l, err);
	if (intervals_get_name(o, "workload", l->workload, err) < 0 ||
	    intervals_get_u32(o, "step", &l->step, err) < 0)
		return -1;
	if (json_object_get(o, "lost") != NULL)
		return intervals_get_lost(o, l, err);
	if (json_object_get(o, "finish") != NULL)
		return intervals_get_finish(o, l, err);
	if (json_object_get(o, "mark") != NULL)
		return intervals_get_mark(o, l, err);
	if (json_object_get(o, "background") != NULL)
		return intervals_get_background(o, l, err);
	if (json_object_get(o, "observe") != NULL)
		return intervals_get_obs(o, l, err);
	l->clock = json_object_get(o, "clock") != NULL;
	if (l->clock)
		return intervals_get_clock(o, l, err);
	l->cooldown = json_object_get(o, "cooldown_ms") != NULL;
	if (l->cooldown) {
		json_t *oc = json_object_get(o, "cooldown");

		if (intervals_get_u32(o, "cooldown_ms", &l->cooldown_ms, err) < 0)
			return -1;
		if (!json_is_string(oc) || json_string_length(oc) >= sizeof(l->cooldown_outcome)) {
			error_set(err,
			          "cooldown: expected \"recovered\", \"timeout\" or \"failed\"");
			return -1;
		}
		snprintf(l->cooldown_outcome, sizeof(l->cooldown_outcome), "%s",
		         json_string_value(oc));
		return 0;
	}
	if (json_object_get(o, "retried") != NULL)
		return intervals_get_u32(o, "retried", &l->retried, err) < 0 || l->retried == 0 ? -1
		                                                                                : 0;
	l->window = json_object_get(o, "window_from") != NULL;
	if (!l->window)
		return intervals_get_record(r, o, fmt, l, err);
	if (intervals_get_u32(o, "window_from", &l->window_from, err) < 0 ||
	    intervals_get_u32(o, "window_to", &l->window_to, err) < 0)
		return -1;
	if (l->window_from > l->window_to) {
		error_set(err, "window [%u, %u) ends before it starts", l->window_from,
		          l->window_to);
		return -1;
	}
	return 0;
}

struct intervals_reader *intervals_open(const char *path, struct error *err)
{
	struct intervals_reader *r;
	/* A regular file and no link: a FIFO or /dev/zero planted here would hang or flood. */
	FILE *f = saferead_fopen(AT_FDCWD, NULL, path, 0, err);

	if (f == NULL)
		return NULL;
	r = xcalloc(1, sizeof(*r));
	r->f = f;
	r->path = xstrdup(path);
	return r;
}

int intervals_next(struct intervals_reader *r, struct intervals_line *l, struct error *err)
{
	ssize_t n;
	json_error_t jerr;
	json_t *o;
	int rc;

	errno = 0;
	n = saferead_line(r->f, &r->buf, &r->cap, INTERVALS_LINE_MAX);
	if (n == SAFEREAD_TOO_LONG) {
		error_set(err, "%s:%zu: line longer than %u bytes; refusing it", r->path,
		          r->lineno + 1, INTERVALS_LINE_MAX);
		return -1;
	}
	if (n < 0) {
		error_set(err, "%s: cannot read: %s", r->path, strerror(errno));
		return -1;
	}
	if (n == 0)
		return 0;
	r->lineno++;
	memset(l, 0, sizeof(*l));
	record_init(&l->rec.rec);
	free(r->parts); /* the previous line's: the caller has merged or copied what it keeps */
	r->parts = NULL;
	o = json_loadb(r->buf, (size_t)n, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
	if (o == NULL && r->buf[n - 1] != '\n') {
		/* Only the last line lacks a newline: the writer was killed writing it. */
		snprintf(r->warning, sizeof(r->warning),
		         "%s:%zu: the last line is cut short (%zd bytes, no newline): ignored",
		         r->path, r->lineno, n);
		return 0;
	}
	r->end = ftell(r->f);
	if (o == NULL)
		error_set(err, "not JSON: %s (column %d)", jerr.text, jerr.column);
	rc = o != NULL ? intervals_get_line(r, o, l, err) : -1;
	json_decref(o);
	r->parts = l->rec.rec.parts; /* kept by the reader, even from a refused line */
	if (rc < 0) {
		error_prefix(err, "%s:%zu: ", r->path, r->lineno);
		return -1;
	}
	return 1;
}

const char *intervals_warning(const struct intervals_reader *r)
{
	return r->warning;
}

long intervals_offset(const struct intervals_reader *r)
{
	return r->end;
}

size_t intervals_lineno(const struct intervals_reader *r)
{
	return r->lineno;
}

void intervals_close(struct intervals_reader *r)
{
	if (r == NULL)
		return;
	fclose(r->f);
	free(r->buf);
	free(r->path);
	free(r->parts);
	free(r);
}
