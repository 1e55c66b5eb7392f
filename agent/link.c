/* SPDX-License-Identifier: MIT */
/* The agent's link to the coordinator: dial, Hello, heartbeats, clock pings, reconnect. */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "agent.h"
#include "caps.h"
#include "clock.h"
#include "conn.h"
#include "frame.h"
#include "log.h"
#include "mounts.h"
#include "text.h"
#include "xalloc.h"

#define LINK_BACKOFF_MIN_MS 100
#define LINK_BACKOFF_MAX_MS 10000
/* Defaults until the coordinator's Welcome says otherwise (agent.h: opt_*). */
#define LINK_HEARTBEAT_MS 1000
#define LINK_MISSES       3
#define LINK_DEADMAN_MS   2000
/* Certificate failures in a row before the agent gives up (agent_usage says so). */
#define LINK_TLS_GIVE_UP 5

static void link_dial(struct agent *a);

static void link_reconnect_cb(evutil_socket_t fd, short what, void *arg)
{
	link_dial(arg);
}

/* Exponential backoff with +-25% jitter, so a fleet does not reconnect in lockstep. */
static void link_schedule_reconnect(struct agent *a)
{
	unsigned ms = a->backoff_ms ? a->backoff_ms : LINK_BACKOFF_MIN_MS;
	unsigned jitter = ms / 2 ? (unsigned)random() % (ms / 2) : 0;
	unsigned delay = ms - ms / 4 + jitter;

	a->backoff_ms = ms * 2 > LINK_BACKOFF_MAX_MS ? LINK_BACKOFF_MAX_MS : ms * 2;
	log_debug("reconnecting to %s in %u ms", a->coordinator, delay);
	event_add(a->reconnect_ev,
	          &(struct timeval){delay / 1000, (suseconds_t)(delay % 1000) * 1000});
}

static void link_send_hello(struct agent *a)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Hello hello = IOCURVE__HELLO__INIT;
	Iocurve__Label **lp = label_to_wire(a->labels, a->nlabels);
	char **mounts = xcalloc(a->allow.n ? a->allow.n : 1, sizeof(*mounts));
	char kernel[160];
	struct utsname u;

	hello.protocol_version = IOCURVE__PROTOCOL_VERSION__PROTOCOL_VERSION_CURRENT;
	hello.capabilities = CAPS_OURS;
	hello.name = a->name;
	hello.host = a->host;
	hello.cpus = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
	hello.software_version = IOCURVE_VERSION;
	hello.n_labels = a->nlabels;
	hello.labels = lp;
	hello.n_allowed_paths = a->allow.n;
	hello.allowed_paths = a->allow.paths;
	/* What the report says the target lives on, and the kernel that ran the I/O. */
	kernel[0] = '\0';
	if (uname(&u) == 0)
		snprintf(kernel, sizeof(kernel), "%s %s", u.sysname, u.release);
	hello.kernel = kernel;
	for (size_t i = 0; i < a->allow.n; i++) {
		char buf[512];

		mounts_of(a->allow.paths[i], buf, sizeof(buf));
		mounts[i] = xstrdup(buf);
	}
	hello.n_allowed_mounts = a->allow.n;
	hello.allowed_mounts = mounts;
	env.body_case = IOCURVE__ENVELOPE__BODY_HELLO;
	env.hello = &hello;
	link_send(a, &env);
	free(lp);
	for (size_t i = 0; i < a->allow.n; i++)
		free(mounts[i]);
	free(mounts);
}

static void link_heartbeat_cb(evutil_socket_t fd, short what, void *arg)
{
	struct agent *a = arg;
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Heartbeat hb = IOCURVE__HEARTBEAT__INIT;

	hb.agent_time = clock_now_ns();
	hb.workers_running = a->pool != NULL;
	env.body_case = IOCURVE__ENVELOPE__BODY_HEARTBEAT;
	env.heartbeat = &hb;
	link_send(a, &env);
}

static void link_on_connected(struct conn *c, void *arg)
{
	struct agent *a = arg;

	if (strcmp(conn_peer_name(c), "coordinator") != 0) {
		log_error("%s presented a certificate for '%s', not the coordinator; closing",
		          a->coordinator, conn_peer_name(c));
		conn_close(c);
		a->conn = NULL;
		link_schedule_reconnect(a);
		return;
	}
	log_info("connected to coordinator at %s (TLS 1.3, mutual)", a->coordinator);
	a->handshaken = true;
	link_send_hello(a);
}

static void link_pong(struct agent *a, const Iocurve__Ping *ping, uint64_t t2)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Pong pong = IOCURVE__PONG__INIT;

	pong.seq = ping->seq;
	pong.t1 = ping->t1;
	pong.t2 = skew_to_wire(&a->skew, t2);
	pong.t3 = skew_to_wire(&a->skew, clock_now_ns());
	env.body_case = IOCURVE__ENVELOPE__BODY_PONG;
	env.pong = &pong;
	link_send(a, &env);
}

/*
 * The session's liveness: the coordinator's heartbeat interval and misses, unless
 * this agent was given its own. The agent sends at least as often as the
 * coordinator does; the coordinator is lost after its interval x misses of silence;
 * workers stop when it has not been heard for the dead-man, which must outlast one
 * heartbeat interval.
 */
static void link_apply_welcome(struct agent *a, struct conn *c, const Iocurve__Welcome *w)
{
	uint64_t peer_ms = w->heartbeat_ms ? w->heartbeat_ms : LINK_HEARTBEAT_MS;
	uint32_t misses = a->opt_misses         ? a->opt_misses
	                  : w->heartbeat_misses ? w->heartbeat_misses
	                                        : LINK_MISSES;

	a->heartbeat_ms =
	    a->opt_heartbeat_ms && a->opt_heartbeat_ms < peer_ms ? a->opt_heartbeat_ms : peer_ms;
	a->deadman_ms = a->opt_deadman_ms ? a->opt_deadman_ms
	                : w->deadman_ms   ? w->deadman_ms
	                                  : LINK_DEADMAN_MS;
	if (a->deadman_ms <= peer_ms) {
		log_warn("dead-man %llu ms does not outlast the coordinator's heartbeat (%llu ms): "
		         "using %llu ms",
		         (unsigned long long)a->deadman_ms, (unsigned long long)peer_ms,
		         (unsigned long long)(2 * peer_ms));
		a->deadman_ms = 2 * peer_ms;
	}
	log_info("heartbeat every %llu ms, coordinator lost after %u missed, dead-man %llu ms",
	         (unsigned long long)a->heartbeat_ms, misses, (unsigned long long)a->deadman_ms);
	conn_set_idle_timeout_ms(c, (unsigned)(peer_ms * misses));
	event_add(a->heartbeat_ev, &(struct timeval){(time_t)(a->heartbeat_ms / 1000),
	                                             (suseconds_t)(a->heartbeat_ms % 1000) * 1000});
}

/*
 * What the coordinator lacks of ours is logged and left out. This agent sends what
 * it has either way: a coordinator of 0.1.0 (no version in its Welcome) ignores
 * the fields it does not know.
 */
static void link_agree(const Iocurve__Welcome *w)
{
	char version[32], peer[64];

	text_clean(w->software_version[0] ? w->software_version : "0.1.0", version, sizeof(version),
	           false);
	snprintf(peer, sizeof(peer), "the coordinator (%s)", version);
	caps_agree(CAPS_OURS, w->capabilities, peer);
}

/* A refusal that can clear by itself (a name still held by a stale session...) is retried. */
static void link_refused(struct agent *a, struct conn *c, const Iocurve__Refuse *r)
{
	conn_close(c);
	a->conn = NULL;
	if (!r->permanent) {
		log_error("the coordinator refused this agent: %s; trying again", r->reason);
		link_schedule_reconnect(a);
		return;
	}
	log_error("the coordinator refused this agent: %s", r->reason);
	a->exit_status = 1;
	a->stopping = true;
	event_base_loopexit(a->base, NULL);
}

static void link_on_message(struct conn *c, Iocurve__Envelope *env, void *arg)
{
	struct agent *a = arg;
	uint64_t now = clock_now_ns();

	/* Every frame says the coordinator is there: the workers may go on. */
	plan_alive(a, now);
	switch (env->body_case) {
	case IOCURVE__ENVELOPE__BODY_WELCOME:
		a->welcomed = true;
		a->backoff_ms = 0;
		a->tls_failures = 0;
		log_info("welcomed by the coordinator as '%s'", env->welcome->agent_name);
		link_agree(env->welcome);
		link_apply_welcome(a, c, env->welcome);
		break;
	case IOCURVE__ENVELOPE__BODY_REFUSE:
		link_refused(a, c, env->refuse);
		break;
	case IOCURVE__ENVELOPE__BODY_PING:
		link_pong(a, env->ping, now);
		break;
	case IOCURVE__ENVELOPE__BODY_HEARTBEAT:
		break;
	default:
		if (!a->welcomed) {
			log_warn("ignoring %s before Welcome", frame_body_name(env));
			break;
		}
		plan_handle(a, env);
		break;
	}
}

/*
 * What to do about a connection that never came up, in words: the failure and
 * its fix. Returns whether retrying can mend it (a coordinator not started yet
 * can; a certificate from another CA cannot, until someone changes the files).
 */
static bool link_advice(const struct agent *a, struct conn *c, const char *reason, char *buf,
                        size_t len)
{
	enum conn_failure f = conn_failure(c);

	/*
	 * In TLS 1.3 the client's handshake ends before the server has checked the
	 * client's certificate; the server's alert often arrives as a reset instead.
	 * Closed after the handshake, before any Welcome or Refuse: that is the
	 * coordinator refusing the certificate (its log says so).
	 */
	if (f == CONN_FAILURE_CLOSED && a->handshaken && !a->welcomed)
		f = CONN_FAILURE_OUR_CERT;
	switch (f) {
	case CONN_FAILURE_REFUSED:
		snprintf(buf, len,
		         "nothing listens at %s (%s): start `iocurve serve --listen` there, or "
		         "check --coordinator",
		         a->coordinator, reason);
		return true;
	case CONN_FAILURE_UNREACHABLE:
		snprintf(buf, len, "%s is unreachable (%s): check the address and the network",
		         a->coordinator, reason);
		return true;
	case CONN_FAILURE_PEER_CERT:
		snprintf(buf, len,
		         "the coordinator at %s has a certificate this agent does not trust "
		         "(%s): %s/ca.crt is not the CA that signed it; copy ca.crt from the "
		         "coordinator's certificate directory (`iocurve certs init DIR`)",
		         a->coordinator, reason, a->tls_dir);
		return false;
	case CONN_FAILURE_OUR_CERT:
		snprintf(buf, len,
		         "the coordinator at %s does not accept this agent's certificate (%s; its "
		         "log says why): "
		         "make it in the coordinator's directory with `iocurve certs agent DIR %s` "
		         "and copy %s.crt, %s.key and ca.crt to %s",
		         a->coordinator, reason, a->name, a->name, a->name, a->tls_dir);
		return false;
	default:
		snprintf(buf, len, "connection to coordinator %s lost: %s", a->coordinator, reason);
		return true;
	}
}

static void link_on_close(struct conn *c, const char *reason, void *arg)
{
	struct agent *a = arg;
	char advice[1024];
	bool mendable = link_advice(a, c, reason, advice, sizeof(advice));

	if (mendable) {
		a->tls_failures = 0;
		log_warn("%s", advice);
	} else if (++a->tls_failures >= LINK_TLS_GIVE_UP) {
		log_error("%s; giving up after %u attempts", advice, a->tls_failures);
		a->exit_status = 1;
		a->stopping = true;
		event_base_loopexit(a->base, NULL);
	} else {
		log_error("%s (attempt %u of %u)", advice, a->tls_failures, LINK_TLS_GIVE_UP);
	}
	a->conn = NULL;
	a->welcomed = false;
	a->handshaken = false;
	event_del(a->heartbeat_ev);
	/* Dead-man: no coordinator, no I/O. */
	plan_stop(a, "lost the coordinator");
	if (!a->stopping)
		link_schedule_reconnect(a);
}

static const struct conn_cbs link_cbs = {
    .on_connected = link_on_connected,
    .on_message = link_on_message,
    .on_close = link_on_close,
};

static void link_dial(struct agent *a)
{
	if (a->stopping)
		return;
	a->conn = conn_connect(a->base, a->ssl_ctx, (struct sockaddr *)&a->addr, (int)a->addrlen,
	                       a->coordinator, &link_cbs, a);
	if (a->conn == NULL) {
		log_warn("cannot connect to %s", a->coordinator);
		link_schedule_reconnect(a);
		return;
	}
	conn_set_idle_timeout_ms(
	    a->conn, (unsigned)((a->opt_heartbeat_ms ? a->opt_heartbeat_ms : LINK_HEARTBEAT_MS) *
	                        (a->opt_misses ? a->opt_misses : LINK_MISSES)));
	if (a->max_frame)
		conn_set_max_frame(a->conn, a->max_frame);
}

void link_start(struct agent *a)
{
	a->reconnect_ev = evtimer_new(a->base, link_reconnect_cb, a);
	a->heartbeat_ev = event_new(a->base, -1, EV_PERSIST, link_heartbeat_cb, a);
	link_dial(a);
}

void link_stop(struct agent *a)
{
	a->stopping = true;
	if (a->conn != NULL) {
		conn_close(a->conn);
		a->conn = NULL;
	}
	if (a->reconnect_ev != NULL) {
		event_free(a->reconnect_ev);
		a->reconnect_ev = NULL;
	}
	if (a->heartbeat_ev != NULL) {
		event_free(a->heartbeat_ev);
		a->heartbeat_ev = NULL;
	}
}

void link_send(struct agent *a, const Iocurve__Envelope *env)
{
	if (a->conn == NULL) {
		log_debug("not connected: dropping %s", frame_body_name(env));
		return;
	}
	conn_send(a->conn, env);
}
