/* SPDX-License-Identifier: MIT */
/* The CLI's request to the daemon over the control socket: replies, timeouts, limits. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "client.h"
#include "control.h"
#include "frame.h"
#include "xalloc.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *temp_socket(char *dir, size_t len)
{
	snprintf(dir, len, "/tmp/iocurve-client-XXXXXX");
	assert_non_null(mkdtemp(dir));
	return xasprintf("%s/ctl.sock", dir);
}

static void temp_remove(char *dir, char *path)
{
	unlink(path);
	rmdir(dir);
	free(path);
}

/* A socket that takes connections into its backlog and never says a word. */
static int silent_listener(const char *path)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(listen(fd, 4), 0);
	return fd;
}

static void status_request(Iocurve__Envelope *env, Iocurve__StatusRequest *sr)
{
	iocurve__status_request__init(sr);
	env->body_case = IOCURVE__ENVELOPE__BODY_STATUS_REQUEST;
	env->status_request = sr;
}

static void test_silent_daemon_times_out(void **state)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT, *reply = NULL;
	Iocurve__StatusRequest sr;
	char dir[64], want[256];
	char *path = temp_socket(dir, sizeof(dir));
	int fd = silent_listener(path);
	struct error err;
	double t0, took;

	status_request(&env, &sr);
	t0 = now_s();
	assert_int_equal(client_request(path, &env, 1, &reply, &err), -1);
	took = now_s() - t0;
	assert_null(reply);
	snprintf(want, sizeof(want), "the daemon at %s did not answer within 1 s", path);
	assert_string_equal(err.msg, want);
	assert_true(took >= 0.9);
	assert_true(took < 3.0);
	close(fd);
	temp_remove(dir, path);
}

static void test_too_large_request_is_reported(void **state)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT, *reply = NULL;
	Iocurve__Submit sub = IOCURVE__SUBMIT__INIT;
	char dir[64];
	char *path = temp_socket(dir, sizeof(dir));
	int fd = silent_listener(path);
	char *plan = xmalloc(FRAME_MAX_DEFAULT + 1);
	struct error err;
	double t0;

	memset(plan, '#', FRAME_MAX_DEFAULT);
	plan[FRAME_MAX_DEFAULT] = '\0';
	sub.plan = plan;
	sub.name = "huge";
	env.body_case = IOCURVE__ENVELOPE__BODY_SUBMIT;
	env.submit = &sub;
	t0 = now_s();
	assert_int_equal(client_request(path, &env, 5, &reply, &err), -1);
	/* Judged before anything is sent: no wait for the silent daemon. */
	assert_true(now_s() - t0 < 1.0);
	assert_null(reply);
	assert_non_null(strstr(err.msg, "the request (submit, "));
	assert_non_null(strstr(err.msg, " bytes) is over the frame limit of 16777216 bytes"));
	assert_non_null(strstr(err.msg, path));
	free(plan);
	close(fd);
	temp_remove(dir, path);
}

static void test_nobody_listening(void **state)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT, *reply = NULL;
	Iocurve__StatusRequest sr;
	char dir[64], want[256];
	char *path = temp_socket(dir, sizeof(dir));
	struct error err;

	status_request(&env, &sr);
	assert_int_equal(client_request(path, &env, 1, &reply, &err), -1);
	snprintf(want, sizeof(want),
	         "cannot reach the daemon at %s: No such file or directory (is `iocurve serve` "
	         "running?)",
	         path);
	assert_string_equal(err.msg, want);
	temp_remove(dir, path);
}

/* A daemon side on its own thread and event loop: replies, or hangs up when told to. */
struct fake_daemon {
	struct event_base *base;
	struct control *ctl;
	bool hang_up;
	int served;
	pthread_t thread;
};

static void fake_on_message(struct conn *c, Iocurve__Envelope *env, void *arg)
{
	struct fake_daemon *d = arg;
	Iocurve__Envelope out = IOCURVE__ENVELOPE__INIT;
	Iocurve__ControlReply r = IOCURVE__CONTROL_REPLY__INIT;

	d->served++;
	if (!d->hang_up) {
		r.ok = true;
		r.message = env->body_case == IOCURVE__ENVELOPE__BODY_STATUS_REQUEST ? "status seen"
		                                                                     : "other";
		out.body_case = IOCURVE__ENVELOPE__BODY_CONTROL_REPLY;
		out.control_reply = &r;
		assert_int_equal(conn_send(c, &out), 0);
	}
	conn_close(c);
	event_base_loopexit(d->base, &(struct timeval){0, 200000});
}

static const struct conn_cbs fake_cbs = {.on_message = fake_on_message};

static void *fake_run(void *arg)
{
	struct fake_daemon *d = arg;

	event_base_dispatch(d->base);
	return NULL;
}

static void fake_start(struct fake_daemon *d, const char *path, bool hang_up)
{
	struct error err;

	memset(d, 0, sizeof(*d));
	d->hang_up = hang_up;
	d->base = event_base_new();
	d->ctl = control_listen(d->base, path, &fake_cbs, d, &err);
	assert_non_null(d->ctl);
	/* A test that goes wrong does not hang the thread forever. */
	event_base_loopexit(d->base, &(struct timeval){10, 0});
	assert_int_equal(pthread_create(&d->thread, NULL, fake_run, d), 0);
}

static void fake_stop(struct fake_daemon *d)
{
	pthread_join(d->thread, NULL);
	control_free(d->ctl);
	event_base_free(d->base);
}

static void test_reply_comes_back(void **state)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT, *reply = NULL;
	Iocurve__StatusRequest sr;
	struct fake_daemon d;
	char dir[64];
	char *path = temp_socket(dir, sizeof(dir));
	struct error err;

	fake_start(&d, path, false);
	status_request(&env, &sr);
	assert_int_equal(client_request(path, &env, 5, &reply, &err), 0);
	assert_non_null(reply);
	assert_int_equal(reply->body_case, IOCURVE__ENVELOPE__BODY_CONTROL_REPLY);
	assert_true(reply->control_reply->ok);
	assert_string_equal(reply->control_reply->message, "status seen");
	frame_free(reply);
	fake_stop(&d);
	assert_int_equal(d.served, 1);
	temp_remove(dir, path);
}

static void test_hang_up_without_reply(void **state)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT, *reply = NULL;
	Iocurve__StatusRequest sr;
	struct fake_daemon d;
	char dir[64], want[256];
	char *path = temp_socket(dir, sizeof(dir));
	struct error err;

	fake_start(&d, path, true);
	status_request(&env, &sr);
	assert_int_equal(client_request(path, &env, 5, &reply, &err), -1);
	assert_null(reply);
	snprintf(want, sizeof(want),
	         "the daemon at %s closed the connection without a reply (peer closed the "
	         "connection)",
	         path);
	assert_string_equal(err.msg, want);
	fake_stop(&d);
	temp_remove(dir, path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_silent_daemon_times_out),
	    cmocka_unit_test(test_too_large_request_is_reported),
	    cmocka_unit_test(test_nobody_listening),
	    cmocka_unit_test(test_reply_comes_back),
	    cmocka_unit_test(test_hang_up_without_reply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
