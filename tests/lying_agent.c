/* SPDX-License-Identifier: MIT */
/*
 * A hostile agent for the tests: speaks the real protocol over mutual TLS (Hello,
 * Heartbeats) but answers every Ping with t3 = t2 - 2^61, a 292-year round trip.
 * lying-agent HOST:PORT TLS_DIR NAME [LABEL=VALUE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "conn.h"
#include "label.h"
#include "log.h"
#include "netaddr.h"
#include "tls.h"

static char *lying_name;
static struct label *lying_labels;
static size_t lying_nlabels;

static void lying_on_connected(struct conn *c, void *arg)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Hello h = IOCURVE__HELLO__INIT;
	char *allowed[] = {"/nonexistent"};

	h.protocol_version = IOCURVE__PROTOCOL_VERSION__PROTOCOL_VERSION_CURRENT;
	h.name = lying_name;
	h.host = "liar";
	h.cpus = 1;
	h.software_version = IOCURVE_VERSION;
	h.n_labels = lying_nlabels;
	h.labels = label_to_wire(lying_labels, lying_nlabels);
	h.n_allowed_paths = 1;
	h.allowed_paths = allowed;
	env.body_case = IOCURVE__ENVELOPE__BODY_HELLO;
	env.hello = &h;
	conn_send(c, &env);
	free(h.labels);
}

static void lying_on_message(struct conn *c, Iocurve__Envelope *in, void *arg)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Pong p = IOCURVE__PONG__INIT;
	Iocurve__Heartbeat hb = IOCURVE__HEARTBEAT__INIT;

	if (in->body_case == IOCURVE__ENVELOPE__BODY_PING) {
		p.seq = in->ping->seq;
		p.t1 = in->ping->t1;
		p.t2 = clock_now_ns();
		p.t3 = p.t2 - (1ull << 61); /* wraps: as the audit sent it */
		env.body_case = IOCURVE__ENVELOPE__BODY_PONG;
		env.pong = &p;
		conn_send(c, &env);
	} else if (in->body_case == IOCURVE__ENVELOPE__BODY_HEARTBEAT) {
		/* Stay connected: the coordinator drops agents silent for 10 s. */
		hb.agent_time = clock_now_ns();
		env.body_case = IOCURVE__ENVELOPE__BODY_HEARTBEAT;
		env.heartbeat = &hb;
		conn_send(c, &env);
	}
}

static void lying_on_close(struct conn *c, const char *reason, void *arg)
{
	fprintf(stderr, "lying-agent: closed: %s\n", reason);
	event_base_loopexit(arg, NULL);
}

static const struct conn_cbs lying_cbs = {
    .on_connected = lying_on_connected,
    .on_message = lying_on_message,
    .on_close = lying_on_close,
};

int main(int argc, char **argv)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct error err;
	struct event_base *base;
	SSL_CTX *ctx;

	if (argc < 4) {
		fprintf(stderr, "usage: lying-agent HOST:PORT TLS_DIR NAME [LABEL=VALUE]\n");
		return 2;
	}
	log_init("lying-agent", LOG_LEVEL_INFO);
	lying_name = argv[3];
	if (netaddr_parse(argv[1], &ss, &len, &err) < 0 ||
	    (ctx = tls_ctx_new(argv[2], argv[3], false, &err)) == NULL ||
	    (argc > 4 && label_parse(argv[4], &lying_labels, &lying_nlabels, &err) < 0)) {
		fprintf(stderr, "lying-agent: %s\n", err.msg);
		return 1;
	}
	base = event_base_new();
	if (conn_connect(base, ctx, (struct sockaddr *)&ss, (int)len, argv[1], &lying_cbs, base) ==
	    NULL)
		return 1;
	event_base_dispatch(base);
	return 0;
}
