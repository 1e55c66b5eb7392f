/* SPDX-License-Identifier: MIT */
/* The connection core over its Unix transport: frames, close reasons, deferred free, limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>

#include <cmocka.h>

#include "certs.h"
#include "conn.h"
#include "frame.h"
#include "tls.h"
#include "xalloc.h"

/* One end of a socket pair, and what happened to it. */
struct end {
	struct event_base *base;
	struct conn *c;
	char got[8][64]; /* names of the Hellos received */
	int ngot;
	int want;            /* break the loop after this many messages; 0: never */
	bool close_on_first; /* conn_close from inside on_message */
	int closes, frees;
	char reason[256];
	char peer[128]; /* TLS: the peer's CN once connected */
};

static void end_on_connected(struct conn *c, void *arg)
{
	struct end *e = arg;

	snprintf(e->peer, sizeof(e->peer), "%s", conn_peer_name(c));
	if (e->want == 0)
		event_base_loopbreak(e->base);
}

static void end_on_message(struct conn *c, Iocurve__Envelope *env, void *arg)
{
	struct end *e = arg;

	assert_int_equal(env->body_case, IOCURVE__ENVELOPE__BODY_HELLO);
	if (e->ngot < 8)
		snprintf(e->got[e->ngot], sizeof(e->got[0]), "%s", env->hello->name);
	e->ngot++;
	if (e->close_on_first) {
		conn_close(c); /* freed after this callback returns, not now */
		e->c = NULL;
	}
	if (e->want && e->ngot == e->want)
		event_base_loopbreak(e->base);
}

static void end_on_close(struct conn *c, const char *reason, void *arg)
{
	struct end *e = arg;

	e->closes++;
	snprintf(e->reason, sizeof(e->reason), "%s", reason);
	e->c = NULL;
	event_base_loopbreak(e->base);
}

static void end_on_free(struct conn *c, void *arg)
{
	struct end *e = arg;

	e->frees++;
}

static const struct conn_cbs end_cbs = {
    .on_connected = end_on_connected,
    .on_message = end_on_message,
    .on_close = end_on_close,
    .on_free = end_on_free,
};

struct pair {
	struct event_base *base;
	struct end a, b;
};

static void pair_open(struct pair *p)
{
	int sv[2];

	memset(p, 0, sizeof(*p));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	p->base = event_base_new();
	p->a.base = p->b.base = p->base;
	p->a.c = conn_unix(p->base, sv[0], "end a", &end_cbs, &p->a);
	p->b.c = conn_unix(p->base, sv[1], "end b", &end_cbs, &p->b);
	assert_non_null(p->a.c);
	assert_non_null(p->b.c);
}

/* Run the loop until a callback breaks it; a test that hangs fails instead. */
static void pair_run(struct pair *p)
{
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	event_base_loopexit(p->base, &(struct timeval){5, 0});
	event_base_dispatch(p->base);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(t1.tv_sec - t0.tv_sec < 5);
}

static void pair_close(struct pair *p)
{
	conn_abort(p->a.c);
	conn_abort(p->b.c);
	event_base_free(p->base);
}

static void send_hello(struct conn *c, const char *name)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Hello h = IOCURVE__HELLO__INIT;

	h.name = (char *)name;
	env.body_case = IOCURVE__ENVELOPE__BODY_HELLO;
	env.hello = &h;
	assert_int_equal(conn_send(c, &env), 0);
}

static void test_delivers_frames_in_order(void **state)
{
	struct pair p;

	pair_open(&p);
	send_hello(p.a.c, "one");
	send_hello(p.a.c, "two");
	send_hello(p.a.c, "three");
	p.b.want = 3;
	pair_run(&p);
	assert_int_equal(p.b.ngot, 3);
	assert_string_equal(p.b.got[0], "one");
	assert_string_equal(p.b.got[1], "two");
	assert_string_equal(p.b.got[2], "three");
	assert_int_equal(p.b.closes, 0);
	/* And the other way. */
	send_hello(p.b.c, "back");
	p.a.want = 1;
	pair_run(&p);
	assert_string_equal(p.a.got[0], "back");
	pair_close(&p);
}

static void test_peer_close_is_reported(void **state)
{
	struct pair p;

	pair_open(&p);
	send_hello(p.a.c, "last words");
	conn_close(p.a.c); /* flushes first: the frame still arrives */
	p.a.c = NULL;
	pair_run(&p);
	assert_int_equal(p.b.ngot, 1);
	assert_string_equal(p.b.got[0], "last words");
	assert_int_equal(p.b.closes, 1);
	assert_string_equal(p.b.reason, "peer closed the connection");
	assert_int_equal(p.b.frees, 1);
	/* The owner's close makes no on_close, but the memory does go. */
	assert_int_equal(p.a.closes, 0);
	assert_int_equal(p.a.frees, 1);
	pair_close(&p);
}

static void test_over_limit_frame_closes_with_reason(void **state)
{
	char name[200];
	struct pair p;

	pair_open(&p);
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	conn_set_max_frame(p.b.c, 64);
	send_hello(p.a.c, name);
	pair_run(&p);
	assert_int_equal(p.b.ngot, 0);
	assert_int_equal(p.b.closes, 1);
	assert_non_null(strstr(p.b.reason, "bad frame: frame of "));
	assert_non_null(strstr(p.b.reason, " bytes is over the limit of 64 bytes"));
	assert_int_equal(p.b.frees, 1);
	/* b is gone, its input unread: a hears of it as a reset or a close. */
	pair_run(&p);
	assert_int_equal(p.a.closes, 1);
	assert_true(strcmp(p.a.reason, "peer closed the connection") == 0 ||
	            strcmp(p.a.reason, "Connection reset by peer") == 0);
	pair_close(&p);
}

static void test_send_over_limit_is_refused(void **state)
{
	char name[200];
	struct pair p;
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Hello h = IOCURVE__HELLO__INIT;

	pair_open(&p);
	memset(name, 'y', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	h.name = name;
	env.body_case = IOCURVE__ENVELOPE__BODY_HELLO;
	env.hello = &h;
	conn_set_max_frame(p.a.c, 64);
	assert_int_equal(conn_send(p.a.c, &env), -1);
	assert_int_equal(conn_pending(p.a.c), 0);
	pair_close(&p);
}

static void test_close_from_inside_a_callback(void **state)
{
	struct pair p;

	pair_open(&p);
	send_hello(p.a.c, "first");
	send_hello(p.a.c, "second");
	p.b.close_on_first = true;
	pair_run(&p); /* a's on_close breaks the loop */
	/* b stopped at the first frame, was freed once, and made no on_close. */
	assert_int_equal(p.b.ngot, 1);
	assert_string_equal(p.b.got[0], "first");
	assert_int_equal(p.b.closes, 0);
	assert_int_equal(p.b.frees, 1);
	assert_int_equal(p.a.closes, 1);
	assert_string_equal(p.a.reason, "peer closed the connection");
	pair_close(&p);
}

static void test_idle_timeout_closes_with_reason(void **state)
{
	struct timespec t0, t1;
	struct pair p;

	pair_open(&p);
	conn_set_idle_timeout(p.b.c, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pair_run(&p);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_int_equal(p.b.closes, 1);
	assert_string_equal(p.b.reason, "peer silent past the idle timeout");
	assert_true(t1.tv_sec - t0.tv_sec >= 0 && t1.tv_sec - t0.tv_sec <= 3);
	pair_close(&p);
}

/* The same core over mutual TLS on loopback TCP: names, frames, a clean close. */
static void test_tls_transport(void **state)
{
	char dir[] = "/tmp/iocurve-conn-XXXXXX";
	struct sockaddr_in sin = {.sin_family = AF_INET};
	socklen_t len = sizeof(sin);
	SSL_CTX *sctx, *cctx;
	struct error err;
	struct pair p;
	int lfd, fd;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(certs_init(dir, &err), 0);
	assert_int_equal(certs_issue_agent(dir, "agent1", &err), 0);
	sctx = tls_ctx_new(dir, "coordinator", true, &err);
	cctx = tls_ctx_new(dir, "agent1", false, &err);
	assert_non_null(sctx);
	assert_non_null(cctx);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(listen(lfd, 1), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&sin, &len), 0);

	memset(&p, 0, sizeof(p));
	p.base = event_base_new();
	p.a.base = p.b.base = p.base;
	p.a.c = conn_connect(p.base, cctx, (struct sockaddr *)&sin, (int)len, "coordinator",
	                     &end_cbs, &p.a);
	assert_non_null(p.a.c);
	fd = accept(lfd, NULL, NULL); /* the kernel has the connection in its backlog */
	assert_true(fd >= 0);
	evutil_make_socket_nonblocking(fd);
	p.b.c = conn_accept(p.base, sctx, fd, "agent", &end_cbs, &p.b);
	assert_non_null(p.b.c);
	while (p.a.peer[0] == '\0' || p.b.peer[0] == '\0')
		pair_run(&p);
	assert_string_equal(p.a.peer, "coordinator");
	assert_string_equal(p.b.peer, "agent1");

	send_hello(p.a.c, "over tls");
	p.b.want = 1;
	pair_run(&p);
	assert_int_equal(p.b.ngot, 1);
	assert_string_equal(p.b.got[0], "over tls");
	conn_close(p.a.c); /* close_notify, then the socket goes */
	p.a.c = NULL;
	pair_run(&p);
	assert_int_equal(p.b.closes, 1);
	assert_string_equal(p.b.reason, "peer closed the connection");
	assert_int_equal(p.a.closes, 0);
	assert_int_equal(p.a.frees, 1);
	pair_close(&p);
	close(lfd);
	SSL_CTX_free(sctx);
	SSL_CTX_free(cctx);
	{
		char *cmd = xasprintf("rm -rf %s", dir);

		assert_int_equal(system(cmd), 0);
		free(cmd);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_delivers_frames_in_order),
	    cmocka_unit_test(test_peer_close_is_reported),
	    cmocka_unit_test(test_over_limit_frame_closes_with_reason),
	    cmocka_unit_test(test_send_over_limit_is_refused),
	    cmocka_unit_test(test_close_from_inside_a_callback),
	    cmocka_unit_test(test_idle_timeout_closes_with_reason),
	    cmocka_unit_test(test_tls_transport),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
