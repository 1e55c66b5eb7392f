/* SPDX-License-Identifier: MIT */
/* Frame codec: round trip, oversize, truncated and garbage frames. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "frame.h"

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
	};

	return cmocka_run_group_tests_name("frame", tests, NULL, NULL);
}
