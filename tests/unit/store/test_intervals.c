/* SPDX-License-Identifier: MIT */
/* Unit tests for intervals.jsonl: write then read back, and the reader's refusals with file:line.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "intervals.h"
#include "runend.h"
#include "xalloc.h"

/* A scratch file per test, removed after. */
struct intervals_test {
	char dir[64];
	char *path;
};

static int intervals_test_setup(void **state)
{
	struct intervals_test *t = xcalloc(1, sizeof(*t));

	snprintf(t->dir, sizeof(t->dir), "/tmp/iocurve-intervals.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	t->path = xasprintf("%s/intervals.jsonl", t->dir);
	*state = t;
	return 0;
}

static int intervals_test_teardown(void **state)
{
	struct intervals_test *t = *state;

	unlink(t->path);
	rmdir(t->dir);
	free(t->path);
	free(t);
	return 0;
}

/*
 * A record with every counter set to its own value: the counters are the
 * uint64_t fields before the histograms, so a counter added to struct record
 * without its row in intervals.c does not come back and fails the round trip.
 */
static void intervals_test_record(struct agg_record *a, uint64_t seed, unsigned nops)
{
	uint64_t *c = (uint64_t *)&a->rec;

	memset(a, 0, sizeof(*a));
	record_reset(&a->rec);
	for (size_t i = 0; i < offsetof(struct record, err_errno) / sizeof(uint64_t); i++)
		c[i] = seed * 1000 + i + 1;
	/* Every other record has a first error: errno, offset, path (and on a merged one, agent).
	 */
	if (seed % 2 == 1) {
		a->rec.err_errno = 5 + (int32_t)seed;
		a->rec.err_offset = seed * 65536;
		snprintf(a->rec.err_path, sizeof(a->rec.err_path), "/dev/loop%u", (unsigned)seed);
		snprintf(a->err_agent, sizeof(a->err_agent), "a%u", (unsigned)seed);
	}
	/* ...and one in four has no errno but a cause (a short read, a file deleted). */
	if (seed % 4 == 3) {
		a->rec.err_errno = 0;
		snprintf(a->rec.err_cause, sizeof(a->rec.err_cause),
		         "short read: file truncated to %u bytes", (unsigned)seed * 4096);
	}
	for (unsigned i = 0; i < nops; i++) {
		hist_record(&a->rec.latency, 1000 + seed * 7919 * i);
		if (i % 3 != 0)
			hist_record(&a->rec.service, 500 + seed * 131 * i * i);
	}
	hist_record(&a->rec.latency, 1ull << 50); /* past the last bin: counted in it */
	/* Latencies are the completed operations' and the missed ones' lower bounds. */
	a->rec.missed_charged = seed - 1;
	a->rec.ops = a->rec.latency.count - a->rec.missed_charged;
	a->rec.reads = a->rec.ops / 2;
	/* Read and write apart: each completed op in its kind's latency; a read's bytes. */
	for (uint64_t i = 0; i < a->rec.ops; i++)
		hist_record(i < a->rec.reads ? &a->rec.read_latency : &a->rec.write_latency,
		            2000 + seed * 613 * i);
	a->rec.read_bytes = a->rec.reads * 3;
	/* Sync writes: their count is their latencies' (record_check), not in ops. */
	for (uint64_t i = 0; i <= seed; i++)
		hist_record(&a->rec.sync_latency, 300000 + seed * 17 * i);
	a->rec.syncs = a->rec.sync_latency.count;
	/* The client's delays are subsets of the ops, each of the one before (record_check). */
	a->rec.late_10us = a->rec.ops - 1;
	a->rec.late_100us = a->rec.ops - 2;
	a->rec.late_1ms = a->rec.ops - 3;
	a->rec.late_10ms = a->rec.ops - 4;
	a->duration_ns = 500000000 + seed;
	a->workers = 4 + (uint32_t)seed;
	a->agents = 1 + (uint32_t)seed;
	a->warmup = seed % 2 == 0;
	a->host_cpu_pct = 100.0 / 3.0 + (double)seed;
}

static void intervals_test_same(const struct agg_record *want, const struct agg_record *got)
{
	assert_memory_equal(&want->rec, &got->rec, sizeof(want->rec));
	assert_int_equal(want->duration_ns, got->duration_ns);
	assert_int_equal(want->workers, got->workers);
	assert_int_equal(want->agents, got->agents);
	assert_string_equal(want->err_agent, got->err_agent);
	assert_int_equal(want->warmup, got->warmup);
	assert_true(want->host_cpu_pct == got->host_cpu_pct); /* to the bit */
}

static void intervals_test_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Read path to its end; returns the number of lines read, err set when one failed. */
static int intervals_test_read(const char *path, struct error *err)
{
	struct intervals_reader *r = intervals_open(path, err);
	struct intervals_line *l = xmalloc(sizeof(*l));
	int n = 0, rc;

	assert_non_null(r);
	while ((rc = intervals_next(r, l, err)) == 1)
		n++;
	intervals_close(r);
	free(l);
	return rc < 0 ? -1 : n;
}

/* The file must be refused with the message "PATH:LINE: " + want (a prefix of the rest). */
static void intervals_test_refused(struct intervals_test *t, const char *text, size_t line,
                                   const char *want)
{
	struct error err = {{0}};
	char *head = xasprintf("%s:%zu: %s", t->path, line, want);

	intervals_test_write(t->path, text);
	assert_int_equal(intervals_test_read(t->path, &err), -1);
	if (strncmp(err.msg, head, strlen(head)) != 0)
		fail_msg("got   \"%s\"\nwanted \"%s...\"", err.msg, head);
	free(head);
}

/* Write one line made by the writer, and free it. */
static void intervals_test_put(FILE *f, char *line)
{
	fputs(line, f);
	free(line);
}

/* One valid record line as the writer makes it, to break in the tests below. */
static char *intervals_test_line(void)
{
	struct agg_record *a = xmalloc(sizeof(*a));
	char *buf;

	intervals_test_record(a, 1, 20);
	buf = intervals_record_line("rr", 0, 1000, 0, "local-0", a, true);
	free(a);
	return buf;
}

/* Replace the first `from` in s by `to`. */
static char *intervals_test_edit(const char *s, const char *from, const char *to)
{
	const char *p = strstr(s, from);

	assert_non_null(p);
	return xasprintf("%.*s%s%s", (int)(p - s), s, to, p + strlen(from));
}

static void test_intervals_round_trip(void **state)
{
	struct intervals_test *t = *state;
	struct agg_record *want = xcalloc(3, sizeof(*want));
	struct intervals_line *l = xmalloc(sizeof(*l));
	struct intervals_reader *r;
	struct error err;
	FILE *f = fopen(t->path, "w");

	assert_non_null(f);
	intervals_test_record(&want[0], 1, 50);
	intervals_test_record(&want[1], 3, 200); /* a failure without errno, with a cause */
	want[2] = want[0];
	record_merge(&want[2].rec, &want[1].rec);
	intervals_test_put(
	    f, intervals_record_line("randread-4k", 3, 0.1 + 0.2, 7, "local-0", &want[0], true));
	intervals_test_put(
	    f, intervals_record_line("randread-4k", 3, 0.1 + 0.2, 7, "local-1", &want[1], true));
	intervals_test_put(
	    f, intervals_record_line("randread-4k", 3, 0.1 + 0.2, 7, NULL, &want[2], true));
	intervals_test_put(f, intervals_window_line("randread-4k", 3, 2, 5));
	intervals_test_put(f, intervals_cooldown_line("randread-4k", 4, 1250, "timeout"));
	fclose(f);

	r = intervals_open(t->path, &err);
	assert_non_null(r);
	for (int i = 0; i < 3; i++) {
		static const char *const agents[] = {"local-0", "local-1", INTERVALS_MERGED};

		assert_int_equal(intervals_next(r, l, &err), 1);
		assert_int_equal(intervals_lineno(r), i + 1);
		assert_false(l->window);
		assert_string_equal(l->workload, "randread-4k");
		assert_string_equal(l->agent, agents[i]);
		assert_int_equal(l->step, 3);
		assert_int_equal(l->interval, 7);
		assert_true(l->offered_ops == 0.1 + 0.2);
		intervals_test_same(&want[i], &l->rec);
	}
	assert_int_equal(intervals_next(r, l, &err), 1);
	assert_true(l->window);
	assert_string_equal(l->workload, "randread-4k");
	assert_int_equal(l->step, 3);
	assert_int_equal(l->window_from, 2);
	assert_int_equal(l->window_to, 5);
	assert_int_equal(intervals_next(r, l, &err), 1);
	assert_true(l->cooldown);
	assert_false(l->window);
	assert_string_equal(l->workload, "randread-4k");
	assert_int_equal(l->step, 4);
	assert_int_equal(l->cooldown_ms, 1250);
	assert_string_equal(l->cooldown_outcome, "timeout");
	assert_int_equal(intervals_next(r, l, &err), 0);
	intervals_close(r);
	free(l);
	free(want);
}

/*
 * want written as the only line of t's file and read back into l: 1 read, or 0 with err
 * (refused).
 */
static int intervals_test_reread(struct intervals_test *t, const struct agg_record *want,
                                 struct intervals_line *l, struct error *err)
{
	struct intervals_reader *r;
	FILE *f = fopen(t->path, "w");
	int rc;

	assert_non_null(f);
	intervals_test_put(f, intervals_record_line("rr", 0, 100, 0, "a", want, true));
	fclose(f);
	r = intervals_open(t->path, err);
	assert_non_null(r);
	rc = intervals_next(r, l, err);
	intervals_close(r);
	return rc == 1;
}

/*
 * A failure at the largest offset a record holds comes back as written; one past it
 * (2^63, which intervals.jsonl's integers cannot hold) is refused where a report enters
 * (record_check), so no run writes a file its own reader refuses.
 */
static void test_intervals_offset_bound(void **state)
{
	struct agg_record *want = xcalloc(1, sizeof(*want));
	struct intervals_line *l = xmalloc(sizeof(*l));
	struct error err;

	intervals_test_record(want, 1, 50);
	want->rec.err_errno = RECORD_ERRNO_MAX;
	want->rec.err_offset = RECORD_OFFSET_MAX;
	assert_int_equal(record_check(&want->rec, &err), 0);
	assert_int_equal(intervals_test_reread(*state, want, l, &err), 1);
	intervals_test_same(want, &l->rec);
	want->rec.err_offset = RECORD_OFFSET_MAX + 1;
	assert_int_equal(record_check(&want->rec, &err), -1);
	assert_string_equal(err.msg, "err_offset 9223372036854775808 is outside [0, "
	                             "9223372036854775807]");
	free(l);
	free(want);
}

/*
 * What is written is what is read back, by construction: every counter record_check
 * accepts, and every error offset, fits intervals.jsonl's integers (signed 64-bit), so
 * no value a report may carry comes back negative and refused; each counter at its
 * bound comes back as written.
 */
static void test_intervals_bounds_fit(void **state)
{
	struct agg_record *want = xcalloc(1, sizeof(*want));
	struct intervals_line *l = xmalloc(sizeof(*l));
	struct error err;

	assert_true(RECORD_OFFSET_MAX <= (uint64_t)INT64_MAX);
	for (size_t i = 0; i < record_ncounters; i++) {
		const struct record_counter *c = &record_counters[i];

		assert_true(c->max <= (uint64_t)INT64_MAX);
		intervals_test_record(want, 1, 50);
		*record_at(&want->rec, c) = c->max;
		/* read back, or refused for a relation to another counter: never misread */
		if (intervals_test_reread(*state, want, l, &err))
			assert_true(*record_at(&l->rec.rec, c) == c->max);
		else
			assert_null(strstr(err.msg, "-1"));
	}
	free(l);
	free(want);
}

/* An interval where nothing completed: empty histograms (min UINT64_MAX) come back empty. */
static void test_intervals_empty_record(void **state)
{
	struct intervals_test *t = *state;
	struct agg_record *want = xcalloc(1, sizeof(*want));
	struct intervals_line *l = xmalloc(sizeof(*l));
	struct intervals_reader *r;
	struct error err;
	FILE *f = fopen(t->path, "w");

	assert_non_null(f);
	record_reset(&want->rec);
	want->rec.missed = 12;
	intervals_test_put(f, intervals_record_line("w", 0, 5000, 1, "a", want, true));
	fclose(f);
	r = intervals_open(t->path, &err);
	assert_non_null(r);
	assert_int_equal(intervals_next(r, l, &err), 1);
	assert_int_equal(l->rec.rec.latency.min, UINT64_MAX);
	assert_int_equal(l->rec.rec.service.min, UINT64_MAX);
	intervals_test_same(want, &l->rec);
	intervals_close(r);
	free(l);
	free(want);
}

/* Every line says its format; a line without one is the layout from before it, format 1. */
static void test_intervals_format_field(void **state)
{
	struct intervals_test *t = *state;
	char *line = intervals_test_line(), *cur = xasprintf("\"format\":%d,", INTERVALS_FORMAT);
	char *old = intervals_test_edit(line, cur, ""), *head = xasprintf("{%s", cur);
	struct error err;

	assert_memory_equal(line, head, strlen(head));
	intervals_test_write(t->path, old);
	assert_int_equal(intervals_test_read(t->path, &err), 1);
	free(head);
	free(cur);
	free(old);
	free(line);
}

/* The line with "KEY":N, cut out: N is the counter's value. */
static char *intervals_test_cut(const char *line, const char *key, uint64_t *value)
{
	char *k = xasprintf(",\"%s\":", key), *p = strstr(line, k), *end, *out;

	assert_non_null(p);
	*value = strtoull(p + strlen(k), &end, 10);
	out = xasprintf("%.*s%s", (int)(p - line), line, end);
	free(k);
	return out;
}

/*
 * A line of format 1 (iocurve 0.1.0) has no "wakes", which format 2 added: it reads
 * with the default (0, not counted) and every other counter as written. A line of
 * format 2 without it, or of format 1 without a counter format 1 had, is refused.
 */
static void test_intervals_older_format(void **state)
{
	struct intervals_test *t = *state;
	char *line = intervals_test_line(), *cur = xasprintf("\"format\":%d", INTERVALS_FORMAT);
	char *v1 = intervals_test_edit(line, cur, "\"format\":1"), *no_wakes, *no_ops;
	struct agg_record *want = xmalloc(sizeof(*want));
	struct intervals_line *l = xmalloc(sizeof(*l));
	struct intervals_reader *r;
	struct error err;
	uint64_t wakes, ops;

	no_wakes = intervals_test_cut(v1, "wakes", &wakes);
	assert_true(wakes > 0);
	intervals_test_record(want, 1, 20);
	want->rec.wakes = 0;
	intervals_test_write(t->path, no_wakes);
	r = intervals_open(t->path, &err);
	assert_non_null(r);
	assert_int_equal(intervals_next(r, l, &err), 1);
	intervals_test_same(want, &l->rec);
	assert_int_equal(l->rec.rec.wakes, 0);
	intervals_close(r);

	/* Of the current format, the counter is required. */
	free(no_wakes);
	no_wakes = intervals_test_cut(line, "wakes", &wakes);
	intervals_test_refused(t, no_wakes, 1, "no \"wakes\"");
	/* And of format 1, so are the counters it had. */
	no_ops = intervals_test_cut(v1, "ops", &ops);
	intervals_test_refused(t, no_ops, 1, "no \"ops\"");
	free(no_ops);
	free(no_wakes);
	free(v1);
	free(cur);
	free(line);
	free(want);
	free(l);
}

static void test_intervals_torn_line(void **state)
{
	struct intervals_test *t = *state;
	char *line = intervals_test_line();
	char *text = xasprintf("%s%s%.*s", line, line, (int)strlen(line) / 2, line);
	char *want = xasprintf("%s:3: the last line is cut short (%d bytes, no newline): ignored",
	                       t->path, (int)strlen(line) / 2);
	struct intervals_line *l = xmalloc(sizeof(*l));
	struct intervals_reader *r;
	struct error err;

	/* The writer killed mid-line: the whole lines before it read, the torn one is said. */
	intervals_test_write(t->path, text);
	r = intervals_open(t->path, &err);
	assert_non_null(r);
	assert_int_equal(intervals_next(r, l, &err), 1);
	assert_int_equal(intervals_offset(r), strlen(line));
	assert_int_equal(intervals_next(r, l, &err), 1);
	assert_string_equal(intervals_warning(r), "");
	assert_int_equal(intervals_next(r, l, &err), 0);
	assert_string_equal(intervals_warning(r), want);
	assert_int_equal(intervals_offset(r), 2 * strlen(line));
	intervals_close(r);
	/* A line cut short in the middle of the file is still refused. */
	free(text);
	text = xasprintf("%.*s\n%s", (int)strlen(line) / 2, line, line);
	intervals_test_refused(t, text, 1, "not JSON");
	free(want);
	free(text);
	free(line);
	free(l);
}

/* write(2) of whole lines: appended in order, read back; a bad descriptor fails with errno. */
static void test_intervals_write_fd(void **state)
{
	struct intervals_test *t = *state;
	char *line = intervals_test_line();
	struct error err;
	int fd = open(t->path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);

	assert_true(fd >= 0);
	assert_int_equal(intervals_write(fd, line), 0);
	assert_int_equal(intervals_write(fd, line), 0);
	close(fd);
	assert_int_equal(intervals_test_read(t->path, &err), 2);
	errno = 0;
	assert_int_equal(intervals_write(fd, line), -1);
	assert_int_equal(errno, EBADF);
	free(line);
}

/* A line of a newer format than this reader knows is refused with file and line. */
static void test_intervals_wrong_format(void **state)
{
	struct intervals_test *t = *state;
	char *line = intervals_test_line(), *cur = xasprintf("\"format\":%d", INTERVALS_FORMAT);
	char *next = xasprintf("\"format\":%d", INTERVALS_FORMAT + 1);
	char *newer = intervals_test_edit(line, cur, next), *text = xasprintf("%s%s", line, newer);
	char *want = xasprintf("format %d is newer than this iocurve reads (formats 1 to %d)",
	                       INTERVALS_FORMAT + 1, INTERVALS_FORMAT);
	char *zero;

	intervals_test_refused(t, text, 2, want);
	zero = intervals_test_edit(line, cur, "\"format\":0");
	intervals_test_refused(t, zero, 1, "format 0 is not one iocurve ever wrote");
	free(zero);
	zero = intervals_test_edit(line, cur, "\"format\":\"1\"");
	intervals_test_refused(t, zero, 1, "\"format\" is not an integer");
	free(zero);
	free(want);
	free(text);
	free(newer);
	free(next);
	free(cur);
	free(line);
}

static void test_intervals_not_an_object(void **state)
{
	struct intervals_test *t = *state;
	char *line = intervals_test_line();
	char *text = xasprintf("%s[1, 2]\n", line);

	intervals_test_refused(t, text, 2, "expected a JSON object, found an array");
	intervals_test_refused(t, "42\n", 1, "expected a JSON object, found a number");
	intervals_test_refused(t, "\n", 1, "not JSON: ");
	intervals_test_refused(t, "{\"a\":1,\"a\":2}\n", 1, "not JSON: duplicate object key");
	free(text);
	free(line);
}

/* jansson stops at its depth limit (2048): an error, not a stack overflow. */
static void test_intervals_deep_nesting(void **state)
{
	struct intervals_test *t = *state;
	size_t n = 30000;
	char *text = xmalloc(5 * n + 2);

	for (size_t i = 0; i < n; i++)
		memcpy(text + 5 * i, "{\"a\":", 5);
	memcpy(text + 5 * n, "\n", 2);
	intervals_test_refused(t, text, 1, "not JSON: maximum parsing depth reached");
	free(text);
}

/* Fields are checked one by one, histograms by hist_decode, the record by record_check. */
static void test_intervals_bad_fields(void **state)
{
	struct intervals_test *t = *state;
	char *line = intervals_test_line(), *bad;

	bad = intervals_test_edit(line, "\"missed\":", "\"nissed\":");
	intervals_test_refused(t, bad, 1, "no \"missed\"");
	free(bad);
	bad = intervals_test_edit(line, "\"ops\":", "\"ops\":-");
	intervals_test_refused(t, bad, 1, "\"ops\" is not an integer in [0, ");
	free(bad);
	bad = intervals_test_edit(line, "\"step\":0", "\"step\":4294967296");
	intervals_test_refused(t, bad, 1, "\"step\" is not an integer in [0, 4294967295]");
	free(bad);
	bad = intervals_test_edit(line, "\"workload\":\"rr\"", "\"workload\":7");
	intervals_test_refused(t, bad, 1, "\"workload\" is not a name");
	free(bad);
	bad = intervals_test_edit(line, "\"warmup\":false", "\"warmup\":0");
	intervals_test_refused(t, bad, 1, "\"warmup\" is missing or not true/false");
	free(bad);
	bad = intervals_test_edit(line, "\"sub_bits\":7", "\"sub_bits\":6");
	intervals_test_refused(t, bad, 1, "\"latency\": histogram: sub_bucket_bits is 6");
	free(bad);
	bad = intervals_test_edit(line, "\"bins\":[", "\"bins\":[4000,1,");
	intervals_test_refused(t, bad, 1, "\"latency\": bins[2]: bin ");
	free(bad);
	bad = intervals_test_edit(line, "\"count\":21", "\"count\":22");
	intervals_test_refused(t, bad, 1, "\"latency\": histogram: ");
	free(bad);
	bad = intervals_test_edit(line, "\"reads\":10", "\"reads\":99");
	intervals_test_refused(t, bad, 1, "reads 99 is more than ops 21");
	free(bad);
	/* read and write apart: consistent with reads and ops, both histograms or neither */
	bad = intervals_test_edit(line, "\"reads\":10", "\"reads\":9");
	intervals_test_refused(t, bad, 1, "read_latency count 10 is more than reads 9");
	free(bad);
	bad = intervals_test_edit(line, "\"write_latency\":", "\"wrote_latency\":");
	intervals_test_refused(t, bad, 1, "only one of \"read_latency\" and \"write_latency\"");
	free(bad);
	bad = intervals_test_edit(line, "\"read_latency\":{\"count\":10",
	                          "\"read_latency\":{\"count\":11");
	intervals_test_refused(t, bad, 1, "\"read_latency\": histogram: ");
	free(bad);
	free(line);
}

/*
 * Numbers out of range are refused naming the field and its value: once, 1e308 in
 * host_cpu_pct or offered_ops read fine and made `report` abort deriving from it.
 */
static void test_intervals_out_of_range(void **state)
{
	static const struct {
		const char *from, *to, *why;
	} cases[] = {
	    {"\"host_cpu_pct\":", "\"host_cpu_pct\":1e308,\"x\":",
	     "host_cpu_pct 1e+308 is outside [0, 100]"},
	    {"\"host_cpu_pct\":", "\"host_cpu_pct\":-1e308,\"x\":",
	     "host_cpu_pct -1e+308 is outside [0, 100]"},
	    {"\"host_cpu_pct\":", "\"host_cpu_pct\":-1,\"x\":", "host_cpu_pct -1 is outside"},
	    {"\"offered_ops\":", "\"offered_ops\":1e308,\"x\":",
	     "offered_ops 1e+308 is outside [0, 1e+15]"},
	    {"\"offered_ops\":", "\"offered_ops\":-1e308,\"x\":", "offered_ops -1e+308 is outside"},
	    {"\"duration_ns\":", "\"duration_ns\":9223372036854775807,\"x\":",
	     "duration_ns 9223372036854775807 is outside"},
	    {"\"workers\":", "\"workers\":4294967295,\"x\":", "workers 4294967295 is outside"},
	    {"\"cpu_user_ns\":", "\"cpu_user_ns\":9223372036854775807,\"x\":",
	     "cpu_user_ns 9223372036854775807 is outside [0, 1152921504606846976]"},
	    {"\"steal_ppm\":", "\"steal_ppm\":1000001,\"x\":", "steal_ppm 1000001 is outside"},
	    {"\"late_1ms\":", "\"late_1ms\":0,\"x\":", "late_10ms 17 is more than late_1ms 0"},
	    {"\"sum_ns\":", "\"sum_ns\":1,\"x\":",
	     "\"latency\": histogram: sum_ns 1 is not 21 values in"},
	};
	struct intervals_test *t = *state;
	char *line = intervals_test_line();

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *bad = intervals_test_edit(line, cases[i].from, cases[i].to);

		intervals_test_refused(t, bad, 1, cases[i].why);
		free(bad);
	}
	free(line);
}

/*
 * agents.detail: counts: an agent's line keeps its histograms' count, sum, min and
 * max without the bins, and reads back marked so; the merged line keeps its bins; a
 * counts-only line whose figures disagree is refused, naming the field.
 */
static void test_intervals_counts_only(void **state)
{
	struct intervals_test *t = *state;
	struct agg_record *want = xcalloc(1, sizeof(*want));
	struct intervals_line *l = xmalloc(sizeof(*l));
	struct intervals_reader *r;
	struct error err;
	char *agent, *merged, *bad;
	FILE *f = fopen(t->path, "w");

	assert_non_null(f);
	intervals_test_record(want, 1, 50);
	agent = intervals_record_line("rr", 0, 1000, 2, "local-0", want, false);
	merged = intervals_record_line("rr", 0, 1000, 2, NULL, want, false);
	assert_null(strstr(agent, "\"bins\""));
	assert_non_null(strstr(merged, "\"bins\":["));
	intervals_test_put(f, xasprintf("%s", agent));
	intervals_test_put(f, xasprintf("%s", merged));
	fclose(f);
	r = intervals_open(t->path, &err);
	assert_non_null(r);
	assert_int_equal(intervals_next(r, l, &err), 1);
	assert_true(l->rec.no_bins);
	assert_int_equal(l->rec.rec.ops, want->rec.ops);
	assert_int_equal(l->rec.rec.latency.count, want->rec.latency.count);
	assert_int_equal(l->rec.rec.latency.sum, want->rec.latency.sum);
	assert_int_equal(l->rec.rec.latency.min, want->rec.latency.min);
	assert_int_equal(l->rec.rec.service.max, want->rec.service.max);
	assert_int_equal(intervals_next(r, l, &err), 1);
	assert_false(l->rec.no_bins);
	intervals_test_same(want, &l->rec);
	intervals_close(r);

	/* A max below the min: not what any record holds. */
	want->rec.latency.max = 1;
	bad = intervals_record_line("rr", 0, 1000, 2, "local-0", want, false);
	want->rec.latency.max = 1ull << 50;
	intervals_test_write(t->path, bad);
	assert_int_equal(intervals_test_read(t->path, &err), -1);
	assert_non_null(strstr(err.msg, "\"latency\": counts: min 1000 is more than max 1"));
	free(bad);
	/* The merged line may not leave out its bins. */
	bad = intervals_record_line("rr", 0, 1000, 2, "*", want, false);
	intervals_test_write(t->path, bad);
	assert_int_equal(intervals_test_read(t->path, &err), -1);
	assert_non_null(strstr(err.msg, "is not a histogram"));
	free(bad);
	free(agent);
	free(merged);
	free(l);
	free(want);
}

/*
 * A lost line comes back as written, in a step or between steps; and the words every
 * summary carries say who was lost, where (from 1) and why.
 */
static void test_intervals_lost(void **state)
{
	struct intervals_test *t = *state;
	char *a = intervals_lost_line("rr", 1, "a3", 3, "peer silent past the idle timeout");
	char *b = intervals_lost_line("rr", 2, "a4", UINT32_MAX, "starved: 3.0 s");
	char *text = xasprintf("%s%s", a, b), words[512];
	struct intervals_line *l = xmalloc(sizeof(*l));
	struct intervals_reader *r;
	struct runend end = {0};
	struct error err;

	intervals_test_write(t->path, text);
	r = intervals_open(t->path, &err);
	assert_non_null(r);
	assert_int_equal(intervals_next(r, l, &err), 1);
	assert_true(l->lost);
	assert_string_equal(l->workload, "rr");
	assert_int_equal(l->step, 1);
	assert_string_equal(l->agent, "a3");
	assert_int_equal(l->interval, 3);
	assert_string_equal(l->lost_reason, "peer silent past the idle timeout");
	runend_add_loss(&end, l->agent, l->workload, l->step, l->interval, l->lost_reason);
	assert_int_equal(intervals_next(r, l, &err), 1);
	assert_true(l->lost);
	assert_int_equal(l->interval, UINT32_MAX);
	runend_add_loss(&end, l->agent, l->workload, l->step, l->interval, l->lost_reason);
	assert_int_equal(intervals_next(r, l, &err), 0);
	intervals_close(r);
	assert_true(runend_degraded(&end, words, sizeof(words)));
	assert_string_equal(words, "degraded: agent a3 lost at rr step 2, interval 4 (peer silent "
	                           "past the idle timeout); agent a4 lost before rr step 3 "
	                           "(starved: 3.0 s)");
	assert_false(runend_degraded(&(struct runend){0}, words, sizeof(words)));
	assert_string_equal(words, "");
	free(a);
	free(b);
	free(text);
	free(l);
}

/*
 * A mark line comes back as written (text, source, time, interval, agent), one
 * between steps without interval or agent; a text the marks may not hold is refused
 * with its reason; a line whose mark is empty names its file and line.
 */
static void test_intervals_mark(void **state)
{
	struct intervals_test *t = *state;
	struct run_mark m, n;
	char why[160], *a, *b, *text, big[MARK_TEXT_MAX + 2];
	struct intervals_line *l = xmalloc(sizeof(*l));
	struct intervals_reader *r;
	struct error err;

	mark_set(&m, "rr", 2, 4500000000ull, 4, MARK_SOURCE_USER, NULL, "cache <enabled> \u00e9");
	mark_set(&n, "rr", 3, 0, MARK_NO_INTERVAL, MARK_SOURCE_FINISH, "a1", "done");
	n.unix_ns = 0;
	assert_true(m.unix_ns > 0);
	a = intervals_mark_line(&m);
	b = intervals_mark_line(&n);
	assert_non_null(strstr(a, "\"mark\":\"cache <enabled> \u00e9\",\"source\":\"user\""));
	assert_null(strstr(b, "interval"));
	text = xasprintf("%s%s", a, b);
	intervals_test_write(t->path, text);
	r = intervals_open(t->path, &err);
	assert_non_null(r);
	assert_int_equal(intervals_next(r, l, &err), 1);
	assert_true(l->mark);
	assert_string_equal(l->mk.workload, "rr");
	assert_int_equal(l->mk.step, 2);
	assert_int_equal(l->mk.at_ns, 4500000000ull);
	assert_int_equal(l->mk.interval, 4);
	assert_int_equal(l->mk.unix_ns, m.unix_ns);
	assert_string_equal(l->mk.text, "cache <enabled> \u00e9");
	assert_string_equal(l->mk.source, "user");
	assert_string_equal(l->mk.agent, "");
	assert_int_equal(intervals_next(r, l, &err), 1);
	assert_true(l->mark);
	assert_int_equal(l->mk.interval, MARK_NO_INTERVAL);
	assert_int_equal(l->mk.unix_ns, 0);
	assert_string_equal(l->mk.agent, "a1");
	assert_string_equal(l->mk.source, "finish");
	assert_int_equal(intervals_next(r, l, &err), 0);
	intervals_close(r);

	assert_true(mark_text_check("cache enabled", why, sizeof(why)));
	assert_false(mark_text_check("", why, sizeof(why)));
	assert_string_equal(why, "the text is empty");
	assert_false(mark_text_check("bell\a", why, sizeof(why)));
	assert_string_equal(why, "the text holds a control character (0x07) at byte 5");
	assert_false(mark_text_check("c1 \xc2\x9b", why, sizeof(why)));
	assert_string_equal(why, "the text holds a control character (0x9b) at byte 4");
	assert_false(mark_text_check("bad \xff", why, sizeof(why)));
	assert_string_equal(why, "the text is not valid UTF-8 at byte 5 (0xff)");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_false(mark_text_check(big, why, sizeof(why)));
	assert_string_equal(why, "the text is 201 bytes long, over the 200 a mark holds");
	big[MARK_TEXT_MAX] = '\0';
	assert_true(mark_text_check(big, why, sizeof(why)));

	intervals_test_write(t->path, "{\"format\":4,\"workload\":\"rr\",\"step\":0,\"mark\":\"\","
	                              "\"source\":\"user\",\"at_ns\":0}\n");
	assert_int_equal(intervals_test_read(t->path, &err), -1);
	assert_non_null(strstr(err.msg, "intervals.jsonl:1: \"mark\" is not a text"));
	free(a);
	free(b);
	free(text);
	free(l);
}

#define INTERVALS_TEST(f)                                                                          \
	cmocka_unit_test_setup_teardown(f, intervals_test_setup, intervals_test_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    INTERVALS_TEST(test_intervals_round_trip),
	    INTERVALS_TEST(test_intervals_offset_bound),
	    INTERVALS_TEST(test_intervals_bounds_fit),
	    INTERVALS_TEST(test_intervals_empty_record),
	    INTERVALS_TEST(test_intervals_format_field),
	    INTERVALS_TEST(test_intervals_older_format),
	    INTERVALS_TEST(test_intervals_torn_line),
	    INTERVALS_TEST(test_intervals_write_fd),
	    INTERVALS_TEST(test_intervals_wrong_format),
	    INTERVALS_TEST(test_intervals_not_an_object),
	    INTERVALS_TEST(test_intervals_deep_nesting),
	    INTERVALS_TEST(test_intervals_bad_fields),
	    INTERVALS_TEST(test_intervals_out_of_range),
	    INTERVALS_TEST(test_intervals_counts_only),
	    INTERVALS_TEST(test_intervals_lost),
	    INTERVALS_TEST(test_intervals_mark),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
