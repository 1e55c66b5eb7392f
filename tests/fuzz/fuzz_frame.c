/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: frames as both sockets read them (header, size limit, Envelope), then
 * what the coordinator decodes from their bodies: Hello bounds, interval records with
 * their histograms, and Events as watchers get them on the control socket.
 */
#include <event2/buffer.h>

#include "aggregate.h"
#include "event_pb.h"
#include "frame.h"
#include "fuzz.h"
#include "label.h"

static void fuzz_frame_body(const Iocurve__Envelope *env)
{
	static struct agg_record rec; /* zeroed once, used again as serve's runner does */
	struct event e;
	struct error err;

	switch (env->body_case) {
	case IOCURVE__ENVELOPE__BODY_HELLO:
		label_check_wire(env->hello->labels, env->hello->n_labels, &err);
		break;
	case IOCURVE__ENVELOPE__BODY_INTERVAL_REPORT:
		agg_record_from_report(&rec, env->interval_report, &err);
		record_release(&rec.rec);
		break;
	case IOCURVE__ENVELOPE__BODY_EVENT:
		if (event_from_pb(&e, env->event, &err) == 0)
			event_clear(&e);
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct evbuffer *in = evbuffer_new();
	Iocurve__Envelope *env;
	struct error err;
	int rc;

	evbuffer_add(in, data, size);
	while ((rc = frame_read(in, 1u << 20, &env, &err)) > 0) {
		fuzz_frame_body(env);
		frame_free(env);
	}
	evbuffer_free(in);
	return 0;
}
