/* SPDX-License-Identifier: MIT */
/*
 * intervals.jsonl written: a line per record, window, mark or end (its reader is
 * intervals.c, beside it: a field is added to both at once).
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "intervals.h"
#include "iocurve.pb-c.h"
#include "text.h"
#include "xalloc.h"

/*
 * One line each, keys in the order written, doubles with 17 significant
 * digits: offered_ops and host_cpu_pct read back to the same bits, so
 * `iocurve report` derives exactly what the run did.
 */
#define INTERVALS_DUMP_FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))

/* jansson fails only when out of memory here: die like xmalloc does. */
static void intervals_must(int rc)
{
	if (rc < 0) {
		fputs("iocurve: out of memory writing intervals.jsonl\n", stderr);
		abort();
	}
}

/* Counters stay far below 2^63 (an interval's nanoseconds, operations, bytes). */
static json_t *intervals_uint(uint64_t v)
{
	return json_integer((json_int_t)v);
}

/* A value that is not a number (none should be) is written null and read as NaN. */
static json_t *intervals_double(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static void intervals_set(json_t *o, const char *key, json_t *v)
{
	intervals_must(o != NULL && v != NULL ? json_object_set_new(o, key, v) : -1);
}

/* v in decimal at p; returns the end. */
static char *intervals_put_u64(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	while (n > 0)
		*p++ = tmp[--n];
	return p;
}

static char *intervals_put(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

/*
 * "key":{"count":..,"sum_ns":..,"min_ns":..,"max_ns":..,"sub_bits":7,"bins":[index,
 * count, ...]} at p, the non-empty bins only: enough to rebuild the histogram.
 * Written by hand, not through jansson: a fleet's lines carry thousands of bins a
 * second, and one json_t per number was most of the coordinator's time.
 * p has room for intervals_hist_room(h) bytes.
 */
static size_t intervals_hist_room(const struct hist *h)
{
	unsigned lo, hi;

	hist_span(h, &lo, &hi);
	return 160 + (size_t)(hi - lo) * 2 * 21;
}

static char *intervals_put_hist(char *p, const char *key, const struct hist *h, bool bins)
{
	bool first = true;
	unsigned lo, hi;

	hist_span(h, &lo, &hi);
	*p++ = '"';
	p = intervals_put(p, key);
	p = intervals_put(p, "\":{\"count\":");
	p = intervals_put_u64(p, h->count);
	p = intervals_put(p, ",\"sum_ns\":");
	p = intervals_put_u64(p, h->sum);
	/* An empty histogram's min is UINT64_MAX in memory, 0 on file (as on the wire). */
	p = intervals_put(p, ",\"min_ns\":");
	p = intervals_put_u64(p, h->count ? h->min : 0);
	p = intervals_put(p, ",\"max_ns\":");
	p = intervals_put_u64(p, h->max);
	p = intervals_put(p, ",\"sub_bits\":");
	p = intervals_put_u64(p, HIST_SUB_BITS);
	if (!bins)
		return intervals_put(p, "}");
	p = intervals_put(p, ",\"bins\":[");
	for (unsigned i = lo; i < hi; i++) {
		if (h->bins[i] == 0)
			continue;
		if (!first)
			*p++ = ',';
		first = false;
		p = intervals_put_u64(p, i);
		*p++ = ',';
		p = intervals_put_u64(p, h->bins[i]);
	}
	return intervals_put(p, "]}");
}

/* The interval's first failed operation: errno (number and name), target, offset, agent. */
static json_t *intervals_error_json(const struct agg_record *rec)
{
	const struct record *r = &rec->rec;
	const char *name = r->err_errno != 0 ? strerrorname_np(r->err_errno) : "";
	json_t *e =
	    json_pack("{s:i,s:s,s:s,s:o}", "errno", (int)r->err_errno, "name", name ? name : "?",
	              "path", r->err_path, "offset", intervals_uint(r->err_offset));

	/* Why, when no errno says it (errno 0: a short read, a target deleted or truncated). */
	if (e != NULL && r->err_cause[0] != '\0')
		intervals_set(e, "cause", json_string(r->err_cause));
	if (e != NULL && rec->err_agent[0] != '\0')
		intervals_set(e, "agent", json_string(rec->err_agent));
	return e;
}

/* The object as one line, newline included. */
static char *intervals_line_of(json_t *o)
{
	char *s = o != NULL ? json_dumps(o, INTERVALS_DUMP_FLAGS) : NULL, *line;

	intervals_must(s != NULL ? 0 : -1);
	line = xasprintf("%s\n", s);
	free(s);
	json_decref(o);
	return line;
}

/* A JSON string as jansson writes it (compact, UTF-8 kept); room: 6 bytes a byte + 2. */
static char *intervals_put_str(char *p, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	static const char short_escape[] = {
	    ['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't'};

	*p++ = '"';
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = (char)c;
		} else if (c < sizeof(short_escape) && short_escape[c] != 0) {
			*p++ = '\\';
			*p++ = short_escape[c];
		} else if (c < 0x20) {
			p = intervals_put(p, "\\u00");
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		} else {
			*p++ = (char)c;
		}
	}
	*p++ = '"';
	return p;
}

/*
 * A double as jansson writes it with 17 digits: "%.17g", ".0" after one that reads
 * as an integer, the exponent without '+' or leading zeros; not finite: null.
 * Room: INTERVALS_REAL_ROOM.
 */
#define INTERVALS_REAL_ROOM 32
static char *intervals_put_real(char *p, double v)
{
	char buf[INTERVALS_REAL_ROOM], *e, *digits;
	int n;

	if (!isfinite(v))
		return intervals_put(p, "null");
	n = snprintf(buf, sizeof(buf), "%.17g", v);
	if (strchr(buf, '.') == NULL && strchr(buf, 'e') == NULL)
		memcpy(buf + n, ".0", 3);
	e = strchr(buf, 'e');
	if (e != NULL) {
		e += e[1] == '-' ? 2 : 1;
		digits = e;
		while (*digits == '+' || *digits == '0')
			digits++;
		memmove(e, digits, strlen(digits) + 1);
	}
	return intervals_put(p, buf);
}

/* ,"key": at p (room: the key's length + 4). */
static char *intervals_put_key(char *p, const char *key)
{
	*p++ = ',';
	*p++ = '"';
	p = intervals_put(p, key);
	*p++ = '"';
	*p++ = ':';
	return p;
}

/* The room intervals_put_record_hists needs. */
static size_t intervals_hists_room(const struct record *r)
{
	size_t parts = 0;

	for (uint32_t i = 0; i < r->nparts; i++)
		parts += intervals_hist_room(&r->parts[i].latency) +
		         intervals_hist_room(&r->parts[i].service) + 140;
	return intervals_hist_room(&r->latency) + intervals_hist_room(&r->service) +
	       intervals_hist_room(&r->read_latency) + intervals_hist_room(&r->write_latency) +
	       intervals_hist_room(&r->sync_latency) + parts + 27;
}

/* ,"latency":{..},"service":{..}[,kinds][,sync][,"parts":[..]] at p. */
static char *intervals_put_record_hists(char *p, const struct record *r, bool bins)
{
	*p++ = ',';
	p = intervals_put_hist(p, "latency", &r->latency, bins);
	*p++ = ',';
	p = intervals_put_hist(p, "service", &r->service, bins);
	/* Read and write apart, when measured (absent: not measured, an older agent's). */
	if (r->read_latency.count > 0 || r->write_latency.count > 0) {
		*p++ = ',';
		p = intervals_put_hist(p, "read_latency", &r->read_latency, bins);
		*p++ = ',';
		p = intervals_put_hist(p, "write_latency", &r->write_latency, bins);
	}
	/* Sync writes' latency, when there were any (absent: none, or an older line). */
	if (r->sync_latency.count > 0) {
		*p++ = ',';
		p = intervals_put_hist(p, "sync_latency", &r->sync_latency, bins);
	}
	/* A mix's parts, in the plan's order: each its counts and latencies (absent: no mix). */
	if (r->nparts > 0) {
		p = intervals_put(p, ",\"parts\":[");
		for (uint32_t i = 0; i < r->nparts; i++) {
			const struct record_part *pt = &r->parts[i];

			p = intervals_put(p, i ? ",{\"ops\":" : "{\"ops\":");
			p = intervals_put_u64(p, pt->ops);
			p = intervals_put(p, ",\"reads\":");
			p = intervals_put_u64(p, pt->reads);
			p = intervals_put(p, ",\"bytes\":");
			p = intervals_put_u64(p, pt->bytes);
			/* errors and the storage's latency: absent from an older line (or agent) */
			if (pt->errors > 0) {
				p = intervals_put(p, ",\"errors\":");
				p = intervals_put_u64(p, pt->errors);
			}
			*p++ = ',';
			p = intervals_put_hist(p, "latency", &pt->latency, bins);
			if (pt->service.count > 0) {
				*p++ = ',';
				p = intervals_put_hist(p, "service", &pt->service, bins);
			}
			*p++ = '}';
		}
		*p++ = ']';
	}
	return p;
}

int intervals_write(int fd, const char *line)
{
	size_t len = strlen(line), off = 0;
	off_t end = lseek(fd, 0, SEEK_END);
	ssize_t n;
	int saved;

	while (off < len) {
		n = write(fd, line + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			saved = n < 0 ? errno : ENOSPC;
			/* Take back a part written: the file ends with a whole line. */
			if (off > 0 && end >= 0 && ftruncate(fd, end) < 0)
				saved = errno;
			errno = saved;
			return -1;
		}
		off += (size_t)n;
	}
	return 0;
}

/*
 * Written by hand, as jansson would write it (a test reads each line back and
 * writes it through jansson to the same bytes): an agent's line a second each was,
 * through json_t objects, the largest part of the coordinator's work per report.
 */
char *intervals_record_line(const char *workload, uint32_t step, double offered_ops,
                            uint32_t interval, const char *agent, const struct agg_record *rec,
                            bool bins)
{
	const struct record *r = &rec->rec;
	const char *who = agent ? agent : INTERVALS_MERGED;
	char *error = NULL, *line, *p;
	size_t room;

	if (record_err_kept(r)) {
		json_t *e = intervals_error_json(rec);

		error = e != NULL ? json_dumps(e, INTERVALS_DUMP_FLAGS) : NULL;
		json_decref(e);
		intervals_must(error != NULL ? 0 : -1);
	}
	room = 400 + 6 * (strlen(workload) + strlen(who) + strlen(r->kernel_dev)) +
	       2 * INTERVALS_REAL_ROOM + (error ? strlen(error) : 0) + intervals_hists_room(r);
	for (size_t i = 0; i < record_ncounters; i++)
		room += strlen(record_counters[i].key) + 4 + 20;
	line = p = xmalloc(room);
	p = intervals_put(p, "{\"format\":");
	p = intervals_put_u64(p, INTERVALS_FORMAT);
	p = intervals_put_str(intervals_put_key(p, "workload"), workload);
	p = intervals_put_u64(intervals_put_key(p, "step"), step);
	p = intervals_put_real(intervals_put_key(p, "offered_ops"), offered_ops);
	p = intervals_put_u64(intervals_put_key(p, "interval"), interval);
	p = intervals_put_str(intervals_put_key(p, "agent"), who);
	p = intervals_put(intervals_put_key(p, "warmup"), rec->warmup ? "true" : "false");
	p = intervals_put_u64(intervals_put_key(p, "agents"), rec->agents);
	p = intervals_put_u64(intervals_put_key(p, "workers"), rec->workers);
	p = intervals_put_u64(intervals_put_key(p, "duration_ns"), rec->duration_ns);
	/* The counters as record_counters lists them (record.h). */
	for (size_t i = 0; i < record_ncounters; i++)
		p = intervals_put_u64(intervals_put_key(p, record_counters[i].key),
		                      *record_at((struct record *)r, &record_counters[i]));
	p = intervals_put_real(intervals_put_key(p, "host_cpu_pct"), rec->host_cpu_pct);
	if (r->kernel_dev[0] != '\0')
		p = intervals_put_str(intervals_put_key(p, "kernel_dev"), r->kernel_dev);
	if (error != NULL)
		p = intervals_put(intervals_put_key(p, "error"), error);
	/* For people and scripts reading the file; the reader recomputes them. */
	p = intervals_put_u64(intervals_put_key(p, "mean_ns"),
	                      (uint64_t)llround(hist_mean(&r->latency)));
	p = intervals_put_u64(intervals_put_key(p, "p99_ns"), hist_quantile(&r->latency, 99));
	p = intervals_put_record_hists(p, r, bins || agent == NULL);
	*p++ = '}';
	*p++ = '\n';
	*p = '\0';
	free(error);
	return line;
}

char *intervals_window_line(const char *workload, uint32_t step, uint32_t from, uint32_t to)
{
	return intervals_line_of(json_pack(
	    "{s:i,s:s,s:I,s:I,s:I}", "format", INTERVALS_FORMAT, "workload", workload, "step",
	    (json_int_t)step, "window_from", (json_int_t)from, "window_to", (json_int_t)to));
}

char *intervals_cooldown_line(const char *workload, uint32_t step, uint32_t ms, const char *outcome)
{
	return intervals_line_of(json_pack("{s:i,s:s,s:I,s:I,s:s}", "format", INTERVALS_FORMAT,
	                                   "workload", workload, "step", (json_int_t)step,
	                                   "cooldown_ms", (json_int_t)ms, "cooldown", outcome));
}

char *intervals_retried_line(const char *workload, uint32_t step, uint32_t attempt)
{
	return intervals_line_of(json_pack("{s:i,s:s,s:I,s:I}", "format", INTERVALS_FORMAT,
	                                   "workload", workload, "step", (json_int_t)step,
	                                   "retried", (json_int_t)attempt));
}

char *intervals_clock_line(const char *workload, uint32_t step, const char *agent,
                           const struct intervals_clock *k)
{
	json_t *c =
	    json_pack("{s:o,s:o,s:o,s:I,s:o,s:o,s:o}", "planned_ns", intervals_uint(k->planned_ns),
	              "start_agent_ns", intervals_uint(k->start_agent_ns), "start_ns",
	              intervals_uint(k->start_ns), "offset_ns", (json_int_t)k->offset_ns,
	              "uncertainty_ns", intervals_uint(k->uncertainty_ns), "drift_ppm",
	              intervals_double(k->drift_ppm), "rtt_ns", intervals_uint(k->rtt_ns));

	return intervals_line_of(json_pack("{s:i,s:s,s:I,s:s,s:o}", "format", INTERVALS_FORMAT,
	                                   "workload", workload, "step", (json_int_t)step, "agent",
	                                   agent, "clock", c));
}

char *intervals_finish_line(const char *workload, uint32_t step, const char *agent,
                            const struct intervals_finish *f)
{
	json_t *fin = json_pack("{s:I,s:o,s:o,s:o}", "worker", (json_int_t)f->worker, "start_s",
	                        intervals_double(f->start_s), "done_s",
	                        f->done_s < 0 ? json_null() : intervals_double(f->done_s), "ops",
	                        intervals_uint(f->ops));

	return intervals_line_of(json_pack("{s:i,s:s,s:I,s:s,s:o}", "format", INTERVALS_FORMAT,
	                                   "workload", workload, "step", (json_int_t)step, "agent",
	                                   agent, "finish", fin));
}

char *intervals_background_line(const char *workload, uint32_t step, const struct intervals_bg *b)
{
	json_t *g =
	    json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:I}", "asked_ops", intervals_double(b->asked_ops),
	              "ops", intervals_double(b->ops), "mib_s", intervals_double(b->mib_s),
	              "mean_ns", intervals_double(b->mean_ns), "p99_ns", intervals_uint(b->p99_ns),
	              "missed", intervals_uint(b->missed), "intervals", (json_int_t)b->intervals);

	return intervals_line_of(json_pack("{s:i,s:s,s:I,s:s,s:o}", "format", INTERVALS_FORMAT,
	                                   "workload", workload, "step", (json_int_t)step,
	                                   "background", b->name, "bg", g));
}

char *intervals_lost_line(const char *workload, uint32_t step, const char *agent, uint32_t interval,
                          const char *reason)
{
	json_t *o = json_pack("{s:i,s:s,s:I,s:s,s:s}", "format", INTERVALS_FORMAT, "workload",
	                      workload, "step", (json_int_t)step, "lost", agent, "reason", reason);

	if (interval != UINT32_MAX)
		intervals_set(o, "interval", json_integer((json_int_t)interval));
	return intervals_line_of(o);
}

char *intervals_end_line(const char *state, const char *reason)
{
	return intervals_line_of(
	    json_pack("{s:i,s:s,s:s}", "format", INTERVALS_FORMAT, "end", state, "reason", reason));
}

char *intervals_mark_line(const struct run_mark *m)
{
	json_t *o = json_pack("{s:i,s:s,s:I,s:s,s:s,s:o}", "format", INTERVALS_FORMAT, "workload",
	                      m->workload, "step", (json_int_t)m->step, "mark", m->text, "source",
	                      m->source, "at_ns", intervals_uint(m->at_ns));

	if (m->interval != MARK_NO_INTERVAL)
		intervals_set(o, "interval", json_integer((json_int_t)m->interval));
	if (m->unix_ns != 0)
		intervals_set(o, "unix_ns", intervals_uint(m->unix_ns));
	if (m->agent[0] != '\0')
		intervals_set(o, "agent", json_string(m->agent));
	return intervals_line_of(o);
}

char *intervals_obs_line(const struct obs_line *ob)
{
	json_t *vals = json_object();
	json_t *o;

	for (size_t i = 0; i < ob->n; i++)
		intervals_set(vals, ob->values[i].series,
		              ob->values[i].has ? intervals_double(ob->values[i].v) : json_null());
	o = json_pack("{s:i,s:s,s:I,s:s,s:I,s:o}", "format", INTERVALS_FORMAT, "workload",
	              ob->workload, "step", (json_int_t)ob->step, "observe", ob->source, "interval",
	              (json_int_t)ob->interval, "values", vals);
	if (ob->late[0] != '\0')
		intervals_set(o, "late", json_string(ob->late));
	if (ob->note[0] != '\0')
		intervals_set(o, "note", json_string(ob->note));
	return intervals_line_of(o);
}
