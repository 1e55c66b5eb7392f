/* SPDX-License-Identifier: MIT */
/* The connection core over its Unix transport: frames, close reasons, deferred free, limits. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
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
#include "clock.h"
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
	enum conn_failure failure; /* conn_failure() in on_close */
	char peer[128];            /* TLS: the peer's CN once connected */
	uint64_t heard_ns, got_ns; /* the last message's conn_heard_ns and its handing out */
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
	e->heard_ns = conn_heard_ns(c);
	e->got_ns = clock_now_ns();
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
	e->failure = conn_failure(c);
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

/* A Hello named name, queued for the pass (now: written at once, conn_send_now). */
static void put_hello(struct conn *c, const char *name, bool now)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Hello h = IOCURVE__HELLO__INIT;

	h.name = (char *)name;
	env.body_case = IOCURVE__ENVELOPE__BODY_HELLO;
	env.hello = &h;
	assert_int_equal((now ? conn_send_now : conn_send)(c, &env), 0);
}

static void send_hello(struct conn *c, const char *name)
{
	put_hello(c, name, false);
}

static void send_hello_now(struct conn *c, const char *name)
{
	put_hello(c, name, true);
}

/* A Hello whose name is n bytes of ch: a frame of a little more. */
static void send_big_hello(struct conn *c, size_t n, char ch)
{
	char *name = xmalloc(n + 1);

	memset(name, ch, n);
	name[n] = '\0';
	send_hello(c, name);
	free(name);
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
	/* A frame of 4 MiB, more than the socket holds: written and read over many passes. */
	send_big_hello(p.a.c, 4u << 20, 'y');
	send_hello(p.a.c, "four");
	p.b.want = 5;
	pair_run(&p);
	assert_int_equal(p.b.ngot, 5);
	assert_int_equal(strspn(p.b.got[3], "y"), sizeof(p.b.got[3]) - 1);
	assert_string_equal(p.b.got[4], "four");
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

	/*
	 * Two TLS records in the socket when the server reads: the first written in a
	 * pass of its own, the second (two frames) queued before the next pass writes it,
	 * ahead of the server's read. One read(2) takes both (TLS reads ahead) and OpenSSL
	 * decrypts one an SSL_read: the second must be delivered then, not wait in OpenSSL
	 * for bytes the peer never sends (conn_read: SSL_has_pending).
	 */
	send_hello(p.a.c, "over tls");
	event_base_loop(p.base, EVLOOP_NONBLOCK);
	send_hello(p.a.c, "second");
	send_hello(p.a.c, "third");
	p.b.want = 3;
	pair_run(&p);
	assert_int_equal(p.b.ngot, 3);
	assert_string_equal(p.b.got[0], "over tls");
	assert_string_equal(p.b.got[2], "third");
	/*
	 * A frame of a MiB between two small ones: 65 records and more reads than a
	 * pass takes, its first bytes read after "before" in one buffer, the rest
	 * gathered in the connection's own; "after" follows it in its last record.
	 */
	send_hello(p.a.c, "before");
	send_big_hello(p.a.c, 1u << 20, 'x');
	send_hello(p.a.c, "after");
	p.b.want = 6;
	pair_run(&p);
	assert_int_equal(p.b.ngot, 6);
	assert_string_equal(p.b.got[3], "before");
	assert_int_equal(strspn(p.b.got[4], "x"), sizeof(p.b.got[4]) - 1);
	assert_string_equal(p.b.got[5], "after");
	assert_int_equal(p.b.closes, 0);
	/*
	 * conn_send_now writes before it returns, and the reader's conn_heard_ns is when
	 * the bytes arrived, not when its loop got round to reading them (200 ms later
	 * here): the kernel's stamp. Before, the frame waited for a.c's pass and the
	 * only time known was the read's.
	 */
	{
		uint64_t before = clock_now_ns(), sent;

		p.b.heard_ns = 0;
		send_hello_now(p.a.c, "stamped");
		sent = clock_now_ns();
		usleep(200000);
		p.b.want = 7;
		pair_run(&p);
		assert_string_equal(p.b.got[6], "stamped");
		assert_true(p.b.heard_ns >= before);
		assert_true(p.b.heard_ns < sent + 100 * NSEC_PER_MSEC);
		assert_true(p.b.heard_ns + 100 * NSEC_PER_MSEC < p.b.got_ns);
	}
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

/* A test CA with an agent's certificate, and the agent's client context. */
struct tlsdir {
	char dir[32];
	SSL_CTX *cctx;
};

static void tlsdir_make(struct tlsdir *t)
{
	struct error err;

	snprintf(t->dir, sizeof(t->dir), "/tmp/iocurve-conn-XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	assert_int_equal(certs_init(t->dir, &err), 0);
	assert_int_equal(certs_issue_agent(t->dir, "agent1", &err), 0);
	t->cctx = tls_ctx_new(t->dir, "agent1", false, &err);
	assert_non_null(t->cctx);
}

static void tlsdir_free(struct tlsdir *t)
{
	char *cmd = xasprintf("rm -rf %s", t->dir);

	SSL_CTX_free(t->cctx);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* A TCP socket listening on loopback, its address in *sin; backlog of one. */
static int listen_loopback(struct sockaddr_in *sin)
{
	socklen_t len = sizeof(*sin);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)sin, sizeof(*sin)), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)sin, &len), 0);
	return fd;
}

/*
 * Run the loop until nothing is left in it: a connection that ended must leave no
 * timer or event behind (one left armed would keep the loop running to its time and
 * then fire on freed memory). No bound is set here, as a bound is itself an event.
 */
static void run_until_empty(struct event_base *base)
{
	int rc;

	while ((rc = event_base_dispatch(base)) == 0) /* 0: a callback broke the loop */
		;
	assert_int_equal(rc, 1); /* 1: no events were left */
	assert_int_equal(event_base_get_num_events(base, EVENT_BASE_COUNT_ADDED |
	                                                     EVENT_BASE_COUNT_ACTIVE |
	                                                     EVENT_BASE_COUNT_VIRTUAL),
	                 0);
}

/*
 * No route (a TCP connect to the broadcast address fails at once with ENETUNREACH,
 * like one from a network namespace with only loopback up): conn_connect says so in
 * errno, and nothing of the attempt stays in the loop. It once left the handshake's
 * 5 s deadline armed on the freed connection, which then fired (use after free).
 */
static void test_connect_fails_at_once_leaves_nothing(void **state)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(9)};
	struct tlsdir t;
	struct end e = {0};
	struct conn *c;

	tlsdir_make(&t);
	sin.sin_addr.s_addr = htonl(INADDR_BROADCAST);
	e.base = event_base_new();
	errno = 0;
	c = conn_connect(e.base, t.cctx, (struct sockaddr *)&sin, (int)sizeof(sin),
	                 "255.255.255.255:9", &end_cbs, &e);
	assert_null(c);
	assert_int_equal(errno, ENETUNREACH);
	run_until_empty(e.base);
	/* No callback came for a connection that never was. */
	assert_int_equal(e.closes, 0);
	assert_int_equal(e.frees, 0);
	event_base_free(e.base);
	tlsdir_free(&t);
}

/* A closed port: the refusal comes later, in on_close; the deadline goes with the conn. */
static void test_connect_refused_ends_in_on_close(void **state)
{
	struct sockaddr_in sin;
	struct tlsdir t;
	struct end e = {0};
	int lfd;

	tlsdir_make(&t);
	lfd = listen_loopback(&sin);
	close(lfd); /* nothing listens there now */
	e.base = event_base_new();
	e.c = conn_connect(e.base, t.cctx, (struct sockaddr *)&sin, (int)sizeof(sin), "closed",
	                   &end_cbs, &e);
	assert_non_null(e.c);
	run_until_empty(e.base);
	assert_int_equal(e.closes, 1);
	assert_string_equal(e.reason, "Connection refused");
	assert_int_equal(e.failure, CONN_FAILURE_REFUSED);
	assert_int_equal(e.frees, 1);
	event_base_free(e.base);
	tlsdir_free(&t);
}

/*
 * A peer whose kernel accepts the TCP connection but that never speaks TLS: the
 * handshake deadline ends it, once, and leaves nothing behind.
 */
static void test_silent_peer_meets_the_handshake_deadline(void **state)
{
	struct sockaddr_in sin;
	struct tlsdir t;
	struct end e = {0};
	int lfd;

	tlsdir_make(&t);
	lfd = listen_loopback(&sin); /* never accepted: the ClientHello stays unanswered */
	e.base = event_base_new();
	e.c = conn_connect(e.base, t.cctx, (struct sockaddr *)&sin, (int)sizeof(sin), "silent",
	                   &end_cbs, &e);
	assert_non_null(e.c);
	run_until_empty(e.base);
	assert_int_equal(e.closes, 1);
	assert_string_equal(e.reason, "TLS handshake not done in time (5 s deadline)");
	assert_int_equal(e.frees, 1);
	event_base_free(e.base);
	close(lfd);
	tlsdir_free(&t);
}

/* A peer that closes during the handshake: on_close at once, and no deadline left. */
static void test_close_during_handshake_leaves_nothing(void **state)
{
	struct sockaddr_in sin;
	struct tlsdir t;
	struct end e = {0};
	int lfd, fd;

	tlsdir_make(&t);
	lfd = listen_loopback(&sin);
	e.base = event_base_new();
	e.c = conn_connect(e.base, t.cctx, (struct sockaddr *)&sin, (int)sizeof(sin), "closer",
	                   &end_cbs, &e);
	assert_non_null(e.c);
	fd = accept(lfd, NULL, NULL);
	assert_true(fd >= 0);
	close(fd);
	run_until_empty(e.base);
	assert_int_equal(e.closes, 1);
	print_message("# closed during the handshake: %s\n", e.reason);
	assert_true(strcmp(e.reason, "TLS handshake failed: connection closed by peer") == 0 ||
	            strcmp(e.reason, "TLS handshake failed: unexpected eof while reading") == 0 ||
	            strcmp(e.reason, "TLS handshake failed: Connection reset by peer") == 0);
	assert_int_equal(e.failure, CONN_FAILURE_CLOSED);
	assert_int_equal(e.frees, 1);
	event_base_free(e.base);
	close(lfd);
	tlsdir_free(&t);
}

static void abort_on_message(struct conn *c, Iocurve__Envelope *env, void *arg)
{
	struct end *e = arg;

	e->ngot++;
	conn_abort(c); /* from inside its own callback: freed when the callback returns */
	e->c = NULL;
}

static const struct conn_cbs abort_cbs = {
    .on_message = abort_on_message,
    .on_close = end_on_close,
    .on_free = end_on_free,
};

/* The owner's abort from inside a callback waits for it to return; nothing follows. */
static void test_abort_from_inside_a_callback(void **state)
{
	struct pair p;
	int sv[2];

	memset(&p, 0, sizeof(p));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	p.base = event_base_new();
	p.a.base = p.b.base = p.base;
	p.a.c = conn_unix(p.base, sv[0], "end a", &end_cbs, &p.a);
	p.b.c = conn_unix(p.base, sv[1], "end b", &abort_cbs, &p.b);
	conn_set_deadline(p.b.c, 30, "test deadline"); /* armed: the abort must end it too */
	send_hello(p.a.c, "first");
	send_hello(p.a.c, "second");
	pair_run(&p); /* a's on_close breaks the loop */
	assert_int_equal(p.b.ngot, 1);
	assert_int_equal(p.b.closes, 0);
	assert_int_equal(p.b.frees, 0); /* conn_abort: no on_free */
	assert_int_equal(p.a.closes, 1);
	assert_null(p.a.c);
	run_until_empty(p.base);
	event_base_free(p.base);
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
	    cmocka_unit_test(test_connect_fails_at_once_leaves_nothing),
	    cmocka_unit_test(test_connect_refused_ends_in_on_close),
	    cmocka_unit_test(test_silent_peer_meets_the_handshake_deadline),
	    cmocka_unit_test(test_close_during_handshake_leaves_nothing),
	    cmocka_unit_test(test_abort_from_inside_a_callback),
	};

	/* As in both programs: a write to a reset peer is an error, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
