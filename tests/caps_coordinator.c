/* SPDX-License-Identifier: MIT */
/*
 * A coordinator stand-in for the tests: it skips every check the real coordinator's
 * parser makes and sends one agent whatever Prepare and StartStep it is told, field by
 * field, so the agent's own bounds are what stands between the plan and the disk.
 *
 * caps-coordinator PORT TLS_DIR case=NAME [prepare.FIELD=V] [sim.FIELD=V] [step.FIELD=V]...
 *
 * Each case=NAME starts a case: a Prepare (a plan the agent takes, each argument then
 * changing one field), and after Ready one StartStep (one closed-loop step of 300 ms in
 * intervals of 100 ms, unless told otherwise). FIELD is the proto field's name
 * (proto/iocurve.proto); a repeated field takes values separated by commas;
 * step.start_time is how far from now the step starts (default 100 ms). The cases run
 * one after another over one connection; each prints one line, "NAME: error: MESSAGE",
 * "NAME: step-done: N intervals" or "NAME: timeout" (nothing in 5 s, or timeout=N), and the next
 * starts. Exits 0 after the last, 1 when the connection ends first ("NAME: closed: WHY").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/listener.h>

#include "caps.h"
#include "certs.h"
#include "clock.h"
#include "conn.h"
#include "log.h"
#include "netaddr.h"
#include "tls.h"

static Iocurve__Prepare cc_prepare;
static Iocurve__SimTarget cc_sim;
static Iocurve__StartStep cc_step;
static uint64_t cc_lead_ns;
static struct event_base *cc_base;
static struct event *cc_hb, *cc_timer;
static char **cc_argv;
static int cc_argc, cc_next = 3; /* the next case's case=NAME argument */
static const char *cc_name;      /* the case in progress */
static uint32_t cc_index;        /* its number: every message of it carries it */
static double cc_rates[256];
static long cc_wait_s; /* the case's answer is awaited this long (timeout=N) */

/* One value of a field's type into dst. */
static int cc_scalar(const ProtobufCFieldDescriptor *f, const char *v, void *dst)
{
	char *end = NULL;

	switch (f->type) {
	case PROTOBUF_C_TYPE_UINT32:
		*(uint32_t *)dst = (uint32_t)strtoull(v, &end, 0);
		break;
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_ENUM:
		*(int32_t *)dst = (int32_t)strtoll(v, &end, 0);
		break;
	case PROTOBUF_C_TYPE_BOOL:
		*(protobuf_c_boolean *)dst = strtol(v, &end, 0) != 0;
		break;
	case PROTOBUF_C_TYPE_UINT64:
		*(uint64_t *)dst = strtoull(v, &end, 0);
		break;
	case PROTOBUF_C_TYPE_INT64:
		*(int64_t *)dst = strtoll(v, &end, 0);
		break;
	case PROTOBUF_C_TYPE_DOUBLE:
		*(double *)dst = strtod(v, &end);
		break;
	case PROTOBUF_C_TYPE_STRING:
		*(char **)dst = (char *)v;
		return 0;
	default:
		return -1;
	}
	return end != NULL && *end == '\0' ? 0 : -1;
}

/* FIELD=V into message m, by the field's descriptor: every field of the proto is reachable. */
static int cc_set(ProtobufCMessage *m, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char name[64];
	const ProtobufCFieldDescriptor *f;
	char *vals, *tok, *save = NULL;

	if (eq == NULL || (size_t)(eq - arg) >= sizeof(name))
		return -1;
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = '\0';
	f = protobuf_c_message_descriptor_get_field_by_name(m->descriptor, name);
	if (f == NULL)
		return -1;
	if (f->label != PROTOBUF_C_LABEL_REPEATED)
		return cc_scalar(f, eq + 1, (char *)m + f->offset);
	/* a repeated number: its values, comma separated, in an array of 8-byte slots */
	vals = strdup(eq + 1);
	size_t n = 0, cap = 16;
	void *arr = calloc(cap, 8);
	for (tok = strtok_r(vals, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (n == cap)
			arr = realloc(arr, (cap *= 2) * 8);
		if (cc_scalar(f, tok, (char *)arr + n * 8) < 0)
			return -1;
		n++;
	}
	*(size_t *)((char *)m + f->quantifier_offset) = n;
	*(void **)((char *)m + f->offset) = arr;
	return 0;
}

/* The case at cc_next into the messages: defaults, then its fields. -1: a bad argument. */
static int cc_case_load(void)
{
	int i = cc_next;

	cc_name = cc_argv[i++] + 5;
	cc_index++;
	cc_prepare = (Iocurve__Prepare)IOCURVE__PREPARE__INIT;
	cc_sim = (Iocurve__SimTarget)IOCURVE__SIM_TARGET__INIT;
	cc_step = (Iocurve__StartStep)IOCURVE__START_STEP__INIT;
	cc_prepare.workload_index = cc_index;
	cc_prepare.workload = "w";
	cc_prepare.file_size = 1 << 20;
	cc_prepare.rw = IOCURVE__RW_MODE__RW_MODE_RANDREAD;
	cc_prepare.block_size = 4096;
	cc_prepare.workers = 1;
	cc_prepare.queue_depth = 1;
	cc_prepare.timing = IOCURVE__TIMING__TIMING_EFFICIENT;
	cc_step.measure_ns = 300 * NSEC_PER_MSEC;
	cc_step.interval_ns = 100 * NSEC_PER_MSEC;
	cc_lead_ns = 100 * NSEC_PER_MSEC;
	cc_wait_s = 5;
	for (; i < cc_argc && strncmp(cc_argv[i], "case=", 5) != 0; i++) {
		const char *a = cc_argv[i];
		int bad;

		if (strncmp(a, "prepare.", 8) == 0) {
			bad = cc_set(&cc_prepare.base, a + 8);
		} else if (strncmp(a, "sim.", 4) == 0) {
			bad = cc_set(&cc_sim.base, a + 4);
			cc_prepare.sim = &cc_sim;
		} else if (strncmp(a, "timeout=", 8) == 0) {
			bad = 0;
			cc_wait_s = strtol(a + 8, NULL, 0);
		} else if (strncmp(a, "step.start_time=", 16) == 0) {
			bad = 0;
			cc_lead_ns = strtoull(a + 16, NULL, 0);
		} else if (strncmp(a, "step.", 5) == 0) {
			bad = cc_set(&cc_step.base, a + 5);
		} else {
			bad = -1;
		}
		if (bad < 0) {
			fprintf(stderr, "caps-coordinator: %s: no such field, or a bad value\n", a);
			return -1;
		}
	}
	cc_next = i;
	if (cc_step.n_worker_rate == 0) {
		cc_step.n_worker_rate = cc_prepare.workers < 256 ? cc_prepare.workers : 256;
		cc_step.worker_rate = cc_rates; /* 0: closed loop */
	}
	cc_step.workload_index = cc_prepare.workload_index;
	return 0;
}

/* The next case's Prepare, or the end when there is none. */
static void cc_case_next(struct conn *c)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;

	if (cc_next >= cc_argc) {
		event_base_loopexit(cc_base, NULL);
		return;
	}
	if (cc_case_load() < 0)
		exit(2);
	env.body_case = IOCURVE__ENVELOPE__BODY_PREPARE;
	env.prepare = &cc_prepare;
	conn_send(c, &env);
	event_add(cc_timer, &(struct timeval){cc_wait_s, 0});
}

/* A case's last word: its line, then the next case. */
static void cc_case_done(struct conn *c, const char *what, const char *text)
{
	printf("%s: %s%s\n", cc_name, what, text);
	fflush(stdout);
	event_del(cc_timer);
	cc_case_next(c);
}

static void cc_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	cc_case_done(arg, "timeout", "");
}

static void cc_send_step(struct conn *c)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;

	cc_step.start_time = clock_now_ns() + cc_lead_ns;
	env.body_case = IOCURVE__ENVELOPE__BODY_START_STEP;
	env.start_step = &cc_step;
	conn_send(c, &env);
}

static void cc_hb_cb(evutil_socket_t fd, short what, void *arg)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Heartbeat hb = IOCURVE__HEARTBEAT__INIT;

	hb.agent_time = clock_now_ns();
	env.body_case = IOCURVE__ENVELOPE__BODY_HEARTBEAT;
	env.heartbeat = &hb;
	conn_send(arg, &env);
}

static void cc_on_message(struct conn *c, Iocurve__Envelope *in, void *arg)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Welcome w = IOCURVE__WELCOME__INIT;
	char text[64];

	switch (in->body_case) {
	case IOCURVE__ENVELOPE__BODY_HELLO:
		w.protocol_version = IOCURVE__PROTOCOL_VERSION__PROTOCOL_VERSION_CURRENT;
		w.agent_name = in->hello->name;
		w.heartbeat_ms = 500;
		w.deadman_ms = 10000;
		w.capabilities = CAPS_OURS;
		w.software_version = IOCURVE_VERSION;
		env.body_case = IOCURVE__ENVELOPE__BODY_WELCOME;
		env.welcome = &w;
		conn_send(c, &env);
		cc_hb = event_new(cc_base, -1, EV_PERSIST, cc_hb_cb, c);
		event_add(cc_hb, &(struct timeval){0, 500000});
		cc_timer = evtimer_new(cc_base, cc_timeout_cb, c);
		cc_case_next(c);
		break;
	case IOCURVE__ENVELOPE__BODY_READY:
		if (in->ready->workload_index == cc_index)
			cc_send_step(c);
		break;
	case IOCURVE__ENVELOPE__BODY_ERROR:
		if (in->error->workload_index == cc_index)
			cc_case_done(c, "error: ", in->error->message);
		break;
	case IOCURVE__ENVELOPE__BODY_STEP_DONE:
		snprintf(text, sizeof(text), "%u intervals", in->step_done->intervals);
		if (in->step_done->workload_index == cc_index)
			cc_case_done(c, "step-done: ", text);
		break;
	default:
		break;
	}
}

static void cc_on_close(struct conn *c, const char *reason, void *arg)
{
	printf("%s: closed: %s\n", cc_name ? cc_name : "-", reason);
	event_base_loopbreak(cc_base);
}

static const struct conn_cbs cc_cbs = {
    .on_message = cc_on_message,
    .on_close = cc_on_close,
};

static void cc_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa, int len,
                      void *arg)
{
	conn_accept(cc_base, arg, fd, "agent", &cc_cbs, NULL);
	evconnlistener_disable(l);
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct error err;
	SSL_CTX *ctx;
	struct evconnlistener *l;
	char addr[64];

	if (argc < 4 || strncmp(argv[3], "case=", 5) != 0) {
		fprintf(stderr, "usage: caps-coordinator PORT TLS_DIR case=NAME "
		                "[prepare.F=V|sim.F=V|step.F=V]... [case=NAME ...]\n");
		return 2;
	}
	log_init("caps-coordinator", LOG_LEVEL_WARN);
	cc_argv = argv;
	cc_argc = argc;
	snprintf(addr, sizeof(addr), "127.0.0.1:%s", argv[1]);
	if (netaddr_parse(addr, &ss, &len, &err) < 0 ||
	    (ctx = tls_ctx_new(argv[2], CERTS_COORDINATOR_NAME, true, &err)) == NULL) {
		fprintf(stderr, "caps-coordinator: %s\n", err.msg);
		return 1;
	}
	cc_base = event_base_new();
	l = evconnlistener_new_bind(cc_base, cc_accept, ctx,
	                            LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_FREE, 4,
	                            (struct sockaddr *)&ss, (int)len);
	if (l == NULL) {
		fprintf(stderr, "caps-coordinator: cannot listen on %s\n", addr);
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	event_base_dispatch(cc_base);
	return event_base_got_break(cc_base) ? 1 : 0;
}
