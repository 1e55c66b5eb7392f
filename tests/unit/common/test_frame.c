/* SPDX-License-Identifier: MIT */
/* Frame codec: round trip, oversize, truncated and garbage frames. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "frame.h"
#include "hist.h"

static struct evbuffer *hello_frame(const char *name)
{
	struct evbuffer *b = evbuffer_new();
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Hello h = IOCURVE__HELLO__INIT;

	h.protocol_version = 1;
	h.name = (char *)name;
	h.cpus = 2;
	env.body_case = IOCURVE__ENVELOPE__BODY_HELLO;
	env.hello = &h;
	assert_int_equal(frame_write(b, &env, FRAME_MAX_DEFAULT), 0);
	return b;
}

/* A protobuf varint at p; returns its length. */
static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	do {
		p[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v != 0);
	return n;
}

/*
 * A legal frame of about n bytes of one-byte varints in a length-delimited field:
 * Envelope{step_done (24): StepDone{worker_done_ns (50): packed}}, where each becomes
 * a uint64_t unpacked, eight times its size; or, hist, Envelope{interval_report (23):
 * IntervalReport{latency (8): Histogram{bins (6): bytes}}}, taken as they are.
 */
static struct evbuffer *packed_frame(size_t n, uint8_t v, bool hist)
{
	struct evbuffer *b = evbuffer_new();
	size_t inner = (hist ? 1 : 2) + put_varint((uint8_t[10]){0}, n) + n;
	size_t mid = hist ? 1 + put_varint((uint8_t[10]){0}, inner) + inner : inner;
	size_t env = 2 + put_varint((uint8_t[10]){0}, mid) + mid;
	uint8_t h[32], *bytes = malloc(n);
	size_t o = 4;

	h[0] = (uint8_t)(env >> 24), h[1] = (uint8_t)(env >> 16), h[2] = (uint8_t)(env >> 8);
	h[3] = (uint8_t)env;
	o += put_varint(h + o, (hist ? 23 : 24) << 3 | 2);
	o += put_varint(h + o, mid);
	if (hist) {
		h[o++] = 8 << 3 | 2;
		o += put_varint(h + o, inner);
		h[o++] = 6 << 3 | 2;
	} else {
		o += put_varint(h + o, 50 << 3 | 2);
	}
	o += put_varint(h + o, n);
	evbuffer_add(b, h, o);
	memset(bytes, v, n);
	evbuffer_add(b, bytes, n);
	free(bytes);
	assert_int_equal(evbuffer_get_length(b), 4 + env);
	return b;
}

/* What protobuf-c alone allocates unpacking a frame: a counting allocator, no bound. */
static void *count_alloc(void *data, size_t size)
{
	*(size_t *)data += size;
	return malloc(size);
}

static void count_free(void *data, void *p)
{
	free(p);
}

static long hwm_kib(void)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmHWM: %ld", &v) == 1)
			break;
	if (f != NULL)
		fclose(f);
	return v;
}

/*
 * A legal 15 MiB frame whose one-byte numbers unpack to 120 MiB is refused, having
 * allocated no more than its length plus FRAME_UNPACK_SLACK; the peak memory of
 * reading it (in a child, from VmHWM) is printed beside what unbounded unpacking
 * takes.
 */
static void test_unpack_memory_bounded(void **state)
{
	size_t nbins = (15u << 20) - 16, len, unbounded = 0;
	struct evbuffer *b = packed_frame(nbins, 1, false);
	ProtobufCAllocator counting = {count_alloc, count_free, &unbounded};
	Iocurve__Envelope *env;
	struct error err;
	int status;
	pid_t pid;

	len = evbuffer_get_length(b) - FRAME_HEADER;
	{
		uint8_t *body = evbuffer_pullup(b, -1) + FRAME_HEADER;

		env = iocurve__envelope__unpack(&counting, len, body);
		assert_non_null(env);
		assert_int_equal(env->step_done->n_worker_done_ns, nbins);
		iocurve__envelope__free_unpacked(env, &counting);
	}
	pid = fork();
	if (pid == 0) { /* the peak of reading it, alone in a fresh process image's heap */
		struct evbuffer *c = packed_frame(nbins, 1, false);
		FILE *cr = fopen("/proc/self/clear_refs", "w"); /* "5": reset the peak */
		long before;

		if (cr != NULL)
			fputs("5", cr), fclose(cr);
		before = hwm_kib();
		int rc = frame_read(c, FRAME_MAX_DEFAULT, &env, &err);

		printf("# a %zu-byte frame of one-byte numbers: unbounded unpacking allocates %zu "
		       "bytes (%.1fx); frame_read %s after %zu bytes (%.2fx); peak RSS grew "
		       "%ld KiB reading it\n",
		       len, unbounded, (double)unbounded / (double)len,
		       rc < 0 ? "refused it" : "took it", frame_unpack_bytes(),
		       (double)frame_unpack_bytes() / (double)len, hwm_kib() - before);
		fflush(stdout);
		_exit(0);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(unbounded > 7 * len); /* what the bound is against */
	assert_int_equal(frame_read(b, FRAME_MAX_DEFAULT, &env, &err), -1);
	assert_null(env);
	assert_non_null(strstr(err.msg, "would take more than"));
	assert_true(frame_unpack_bytes() <= len + FRAME_UNPACK_SLACK);
	assert_int_equal(evbuffer_get_length(b), 0);
	evbuffer_free(b);
}

/*
 * A legal 15 MiB frame that unpacks to its own size (a string) is taken, within the
 * same bound.
 */
static void test_large_frame_taken(void **state)
{
	size_t n = (15u << 20) - 64, len;
	char *host = malloc(n + 1);
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT, *got;
	Iocurve__Hello h = IOCURVE__HELLO__INIT;
	struct evbuffer *b = evbuffer_new();
	struct error err;

	memset(host, 'h', n);
	host[n] = '\0';
	h.host = host;
	env.body_case = IOCURVE__ENVELOPE__BODY_HELLO;
	env.hello = &h;
	assert_int_equal(frame_write(b, &env, FRAME_MAX_DEFAULT), 0);
	free(host);
	len = evbuffer_get_length(b) - FRAME_HEADER;
	assert_int_equal(frame_read(b, FRAME_MAX_DEFAULT, &got, &err), 1);
	assert_int_equal(strlen(got->hello->host), n);
	assert_true(frame_unpack_bytes() > n);
	assert_true(frame_unpack_bytes() <= len + FRAME_UNPACK_SLACK);
	printf("# a %zu-byte frame of one string: taken, unpacking %zu bytes; with its bytes "
	       "held, %.2fx the frame\n",
	       len, frame_unpack_bytes(), (double)(frame_unpack_bytes() + len) / (double)len);
	frame_free(got);
	evbuffer_free(b);
}

/*
 * A full histogram (every bin, as (gap, count) pairs) reads, and its bins unpack to
 * their own bytes (bytes on the wire), not eight bytes a number.
 */
static void test_full_histogram_reads(void **state)
{
	struct evbuffer *b = packed_frame(2 * HIST_BINS, 1, true);
	Iocurve__Envelope *env;
	struct error err;

	assert_int_equal(frame_read(b, FRAME_MAX_DEFAULT, &env, &err), 1);
	assert_int_equal(env->interval_report->latency->bins.len, 2 * HIST_BINS);
	assert_true(frame_unpack_bytes() >= 2 * HIST_BINS);
	assert_true(frame_unpack_bytes() < 2 * 2 * HIST_BINS);
	frame_free(env);
	evbuffer_free(b);
}

/*
 * The daemon's listing of a labelled fleet unpacks to several times its bytes: the
 * CLI reads it as a trusted peer's (frame_read_trusted), and still within its bound.
 */
static void test_trusted_listing(void **state)
{
	enum { AGENTS = 10000, LABELS = 4 };
	static Iocurve__AgentStatus as[AGENTS], *asp[AGENTS];
	static Iocurve__Label lb[LABELS], *lbp[LABELS];
	static char names[AGENTS][16];
	Iocurve__AgentsReply r = IOCURVE__AGENTS_REPLY__INIT;
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT, *got;
	struct evbuffer *b = evbuffer_new(), *b2 = evbuffer_new();
	struct error err;
	size_t len;

	for (int i = 0; i < LABELS; i++) {
		iocurve__label__init(&lb[i]);
		lb[i].key = "k";
		lb[i].value = "v";
		lbp[i] = &lb[i];
	}
	for (int i = 0; i < AGENTS; i++) {
		iocurve__agent_status__init(&as[i]);
		snprintf(names[i], sizeof(names[i]), "agent-%05d", i);
		as[i].name = names[i];
		as[i].state = "idle";
		as[i].n_labels = LABELS;
		as[i].labels = lbp;
		asp[i] = &as[i];
	}
	r.n_agents = AGENTS;
	r.agents = asp;
	env.body_case = IOCURVE__ENVELOPE__BODY_AGENTS_REPLY;
	env.agents_reply = &r;
	assert_int_equal(frame_write(b, &env, FRAME_MAX_DEFAULT), 0);
	evbuffer_add_buffer_reference(b2, b);
	len = evbuffer_get_length(b) - FRAME_HEADER;
	assert_int_equal(frame_read_trusted(b, FRAME_MAX_DEFAULT, 8, &got, &err), 1);
	assert_int_equal(got->agents_reply->n_agents, AGENTS);
	printf("# a listing of %d agents with %d labels: %zu bytes, unpacked %zu (%.1fx)\n", AGENTS,
	       LABELS, len, frame_unpack_bytes(), (double)frame_unpack_bytes() / (double)len);
	assert_true(frame_unpack_bytes() > len + FRAME_UNPACK_SLACK);
	frame_free(got);
	/* From a peer nobody trusts with memory, the same bytes are refused. */
	assert_int_equal(frame_read(b2, FRAME_MAX_DEFAULT, &got, &err), -1);
	assert_non_null(strstr(err.msg, "would take more than"));
	evbuffer_free(b);
	evbuffer_free(b2);
}

static void test_round_trip(void **state)
{
	struct evbuffer *b = hello_frame("agent-7");
	Iocurve__Envelope *env;
	struct error err;

	/* Two frames back to back come out one at a time, in order. */
	{
		struct evbuffer *b2 = hello_frame("agent-8");

		evbuffer_add_buffer(b, b2);
		evbuffer_free(b2);
	}
	assert_int_equal(frame_read(b, FRAME_MAX_DEFAULT, &env, &err), 1);
	assert_int_equal(env->body_case, IOCURVE__ENVELOPE__BODY_HELLO);
	assert_string_equal(env->hello->name, "agent-7");
	assert_int_equal(env->hello->cpus, 2);
	assert_string_equal(frame_body_name(env), "hello");
	frame_free(env);
	assert_int_equal(frame_read(b, FRAME_MAX_DEFAULT, &env, &err), 1);
	assert_string_equal(env->hello->name, "agent-8");
	frame_free(env);
	assert_int_equal(evbuffer_get_length(b), 0);
	assert_int_equal(frame_read(b, FRAME_MAX_DEFAULT, &env, &err), 0);
	evbuffer_free(b);
}

static void test_header_is_big_endian_length(void **state)
{
	struct evbuffer *b = hello_frame("x");
	uint8_t hdr[4];
	size_t total = evbuffer_get_length(b);

	evbuffer_copyout(b, hdr, 4);
	assert_int_equal(((size_t)hdr[0] << 24) | ((size_t)hdr[1] << 16) | ((size_t)hdr[2] << 8) |
	                     hdr[3],
	                 total - 4);
	evbuffer_free(b);
}

static void test_truncated_waits(void **state)
{
	struct evbuffer *full = hello_frame("partial");
	struct evbuffer *b = evbuffer_new();
	size_t len = evbuffer_get_length(full);
	uint8_t *bytes = evbuffer_pullup(full, -1);
	Iocurve__Envelope *env;
	struct error err;

	/* Every strict prefix is "not yet", and consumes nothing. */
	for (size_t i = 0; i < len; i++) {
		evbuffer_add(b, bytes + i, 1);
		if (i + 1 < len) {
			assert_int_equal(frame_read(b, FRAME_MAX_DEFAULT, &env, &err), 0);
			assert_int_equal(evbuffer_get_length(b), i + 1);
		}
	}
	assert_int_equal(frame_read(b, FRAME_MAX_DEFAULT, &env, &err), 1);
	assert_string_equal(env->hello->name, "partial");
	frame_free(env);
	evbuffer_free(full);
	evbuffer_free(b);
}

static void test_oversize_rejected_from_header(void **state)
{
	struct evbuffer *b = evbuffer_new();
	uint8_t hdr[4] = {0x01, 0x00, 0x00, 0x01}; /* 16 MiB + 1 */
	Iocurve__Envelope *env;
	struct error err;

	/* Only the header has arrived: the verdict must not wait for 16 MiB. */
	evbuffer_add(b, hdr, 4);
	assert_int_equal(frame_read(b, FRAME_MAX_DEFAULT, &env, &err), -1);
	assert_null(env);
	assert_non_null(strstr(err.msg, "16777217 bytes is over the limit of 16777216"));
	evbuffer_free(b);
}

static void test_small_limit(void **state)
{
	struct evbuffer *b = hello_frame("a-rather-long-agent-name");
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Hello h = IOCURVE__HELLO__INIT;
	Iocurve__Envelope *got;
	struct error err;

	assert_int_equal(frame_read(b, 8, &got, &err), -1);
	assert_non_null(strstr(err.msg, "over the limit of 8 bytes"));
	evbuffer_free(b);
	/* The writer refuses too. */
	b = evbuffer_new();
	h.name = "a-rather-long-agent-name";
	env.body_case = IOCURVE__ENVELOPE__BODY_HELLO;
	env.hello = &h;
	assert_int_equal(frame_write(b, &env, 8), -1);
	assert_int_equal(evbuffer_get_length(b), 0);
	evbuffer_free(b);
}

static void test_garbage_rejected(void **state)
{
	struct evbuffer *b = evbuffer_new();
	/* Length 5, then bytes that are not a protobuf message (field 0, bad wire type). */
	uint8_t bad[] = {0, 0, 0, 5, 0x07, 0xff, 0xff, 0xff, 0xff};
	Iocurve__Envelope *env;
	struct error err;

	evbuffer_add(b, bad, sizeof(bad));
	assert_int_equal(frame_read(b, FRAME_MAX_DEFAULT, &env, &err), -1);
	assert_null(env);
	assert_non_null(strstr(err.msg, "not a valid Envelope"));
	evbuffer_free(b);
}

static void test_empty_and_bodyless_rejected(void **state)
{
	struct evbuffer *b = evbuffer_new();
	uint8_t empty[] = {0, 0, 0, 0};
	/* A valid Envelope holding only an unknown field 99 (varint 1): no body set. */
	uint8_t unknown[] = {0, 0, 0, 3, 0x98, 0x06, 0x01};
	Iocurve__Envelope *env;
	struct error err;

	evbuffer_add(b, empty, sizeof(empty));
	assert_int_equal(frame_read(b, FRAME_MAX_DEFAULT, &env, &err), -1);
	assert_non_null(strstr(err.msg, "empty frame"));
	evbuffer_drain(b, evbuffer_get_length(b));
	evbuffer_add(b, unknown, sizeof(unknown));
	assert_int_equal(frame_read(b, FRAME_MAX_DEFAULT, &env, &err), -1);
	assert_non_null(strstr(err.msg, "no body"));
	evbuffer_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_header_is_big_endian_length),
	    cmocka_unit_test(test_truncated_waits),
	    cmocka_unit_test(test_oversize_rejected_from_header),
	    cmocka_unit_test(test_small_limit),
	    cmocka_unit_test(test_garbage_rejected),
	    cmocka_unit_test(test_empty_and_bodyless_rejected),
	    cmocka_unit_test(test_unpack_memory_bounded),
	    cmocka_unit_test(test_full_histogram_reads),
	    cmocka_unit_test(test_trusted_listing),
	    cmocka_unit_test(test_large_frame_taken),
	};

	return cmocka_run_group_tests_name("frame", tests, NULL, NULL);
}
