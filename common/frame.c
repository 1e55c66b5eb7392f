/* SPDX-License-Identifier: MIT */
/* Frame codec: 4-byte big-endian length, then one protobuf Envelope. */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "xalloc.h"

int frame_write(struct evbuffer *out, const Iocurve__Envelope *env, size_t max)
{
	size_t len = iocurve__envelope__get_packed_size(env);
	struct evbuffer_iovec vec;
	uint32_t be;

	if (len > max)
		return -1;
	/* Pack straight into the output buffer: one reservation, no copy. */
	if (evbuffer_reserve_space(out, FRAME_HEADER + len, &vec, 1) < 1)
		return -1;
	be = htonl((uint32_t)len);
	memcpy(vec.iov_base, &be, FRAME_HEADER);
	iocurve__envelope__pack(env, (uint8_t *)vec.iov_base + FRAME_HEADER);
	vec.iov_len = FRAME_HEADER + len;
	return evbuffer_commit_space(out, &vec, 1);
}

/*
 * What unpacking one frame may allocate: protobuf-c expands a packed varint of one
 * byte to 8 (a 15 MiB frame of packed numbers asked for 120 MiB), so every unpack
 * draws on a budget of the frame's own length plus FRAME_UNPACK_SLACK, and a frame
 * that needs more is refused like a malformed one. With the frame's bytes held
 * once while it unpacks, a frame costs about twice its length at most.
 */
struct frame_budget {
	size_t left;
	size_t used;
	bool refused;
};

static void *frame_budget_alloc(void *data, size_t size)
{
	struct frame_budget *b = data;

	if (size > b->left) {
		b->refused = true;
		return NULL;
	}
	b->left -= size;
	b->used += size;
	return malloc(size);
}

static void frame_budget_free(void *data, void *p)
{
	free(p); /* frame_free frees with the default allocator: both are malloc's */
}

static size_t frame_last_used;

size_t frame_unpack_bytes(void)
{
	return frame_last_used;
}

int frame_read(struct evbuffer *in, size_t max, Iocurve__Envelope **env, struct error *err)
{
	return frame_read_trusted(in, max, 1, env, err);
}

int frame_decode(const uint8_t *buf, size_t avail, size_t max, unsigned times, size_t *used,
                 Iocurve__Envelope **env, struct error *err)
{
	uint32_t be;
	size_t len;

	*env = NULL;
	*used = 0;
	if (avail < FRAME_HEADER)
		return 0;
	memcpy(&be, buf, FRAME_HEADER);
	len = ntohl(be);
	/* Judge the length before waiting for (and buffering) the body. */
	if (len > max) {
		error_set(err, "frame of %zu bytes is over the limit of %zu bytes", len, max);
		return -1;
	}
	if (len == 0) {
		error_set(err, "empty frame");
		return -1;
	}
	if (avail < FRAME_HEADER + len)
		return 0;
	*used = FRAME_HEADER + len;
	{
		size_t budget = len * (times ? times : 1) + FRAME_UNPACK_SLACK;
		struct frame_budget b = {budget, 0, false};
		ProtobufCAllocator a = {frame_budget_alloc, frame_budget_free, &b};

		*env = iocurve__envelope__unpack(&a, len, buf + FRAME_HEADER);
		frame_last_used = b.used;
		if (*env == NULL && b.refused)
			error_set(
			    err,
			    "frame of %zu bytes would take more than %zu bytes unpacked (%u x "
			    "the frame's length plus %u KiB)",
			    len, budget, times ? times : 1, FRAME_UNPACK_SLACK >> 10);
		if (*env == NULL && !b.refused)
			error_set(err, "frame of %zu bytes is not a valid Envelope", len);
		if (*env == NULL)
			return -1;
	}
	if ((*env)->body_case == IOCURVE__ENVELOPE__BODY__NOT_SET) {
		error_set(err,
		          "frame of %zu bytes carries an Envelope with no body (unknown message?)",
		          len);
		frame_free(*env);
		*env = NULL;
		return -1;
	}
	return 1;
}

int frame_read_trusted(struct evbuffer *in, size_t max, unsigned times, Iocurve__Envelope **env,
                       struct error *err)
{
	size_t avail = evbuffer_get_length(in), used, want;
	uint8_t head[FRAME_HEADER];
	uint8_t *buf;
	int rc;

	*env = NULL;
	if (avail < FRAME_HEADER)
		return 0;
	/* The header alone first: a length over max is refused before the body is pulled up. */
	evbuffer_copyout(in, head, FRAME_HEADER);
	rc = frame_decode(head, FRAME_HEADER, max, times, &used, env, err);
	if (rc < 0)
		return -1;
	want = FRAME_HEADER +
	       ((size_t)head[0] << 24 | (size_t)head[1] << 16 | (size_t)head[2] << 8 | head[3]);
	if (avail < want)
		return 0;
	buf = evbuffer_pullup(in, (ev_ssize_t)want);
	if (buf == NULL) {
		error_set(err, "cannot assemble a frame of %zu bytes", want - FRAME_HEADER);
		return -1;
	}
	rc = frame_decode(buf, want, max, times, &used, env, err);
	evbuffer_drain(in, want);
	return rc;
}

void frame_free(Iocurve__Envelope *env)
{
	if (env != NULL)
		iocurve__envelope__free_unpacked(env, NULL);
}

const char *frame_body_case_name(unsigned body_case)
{
	const ProtobufCFieldDescriptor *f;

	if (body_case == IOCURVE__ENVELOPE__BODY__NOT_SET)
		return "(none)";
	f = protobuf_c_message_descriptor_get_field(&iocurve__envelope__descriptor, body_case);
	return f != NULL ? f->name : "(unknown)";
}

const char *frame_body_name(const Iocurve__Envelope *env)
{
	return frame_body_case_name((unsigned)env->body_case);
}
