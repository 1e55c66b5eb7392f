/* SPDX-License-Identifier: MIT */
/* The agent's link to the coordinator: dial, Hello, heartbeats, clock pings, reconnect. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "caps.h"
#include "clock.h"
#include "conn.h"
#include "frame.h"
#include "link.h"
#include "log.h"
#include "mounts.h"
#include "text.h"
#include "xalloc.h"

#define LINK_BACKOFF_MIN_MS 100
#define LINK_BACKOFF_MAX_MS 10000
/* Defaults until the coordinator's Welcome says otherwise (link_opts). */
#define LINK_HEARTBEAT_MS 1000
#define LINK_MISSES       3
#define LINK_DEADMAN_MS   2000
/* Certificate failures in a row before the agent gives up (agent_usage says so). */
#define LINK_TLS_GIVE_UP 5

struct link {
	const struct agent *a; /* who this agent is: Hello, the clock skew, the event loop */
	struct link_opts o;
	const struct link_cbs *cbs;
	void *arg;
	struct conn *conn;
	bool stopping;   /* link_stop or given up: dial no more */
	bool welcomed;   /* this connection's Welcome came */
	bool handshaken; /* this connection's TLS handshake finished */
	unsigned backoff_ms;
	unsigned tls_failures; /* in a row, of a kind retrying does not mend */
	/* In effect for the session (link_apply_welcome). */
	uint64_t heartbeat_ms;
	uint64_t silence_ms; /* a heartbeat goes after this long without a frame sent */
	uint64_t deadman_ms;
	struct event *reconnect_ev;
	struct event *heartbeat_ev;
};

static void link_dial(struct link *l);

static void link_reconnect_cb(evutil_socket_t fd, short what, void *arg)
{
	link_dial(arg);
}

/* Exponential backoff with +-25% jitter, so a fleet does not reconnect in lockstep. */
static void link_schedule_reconnect(struct link *l)
{
	unsigned ms = l->backoff_ms ? l->backoff_ms : LINK_BACKOFF_MIN_MS;
	unsigned jitter = ms / 2 ? (unsigned)random() % (ms / 2) : 0;
	unsigned delay = ms - ms / 4 + jitter;

	l->backoff_ms = ms * 2 > LINK_BACKOFF_MAX_MS ? LINK_BACKOFF_MAX_MS : ms * 2;
	log_debug("reconnecting to %s in %u ms", l->o.coordinator, delay);
	event_add(l->reconnect_ev,
	          &(struct timeval){delay / 1000, (suseconds_t)(delay % 1000) * 1000});
}

static void link_send_hello(struct link *l)
{
	struct agent *a = (struct agent *)l->a; /* protobuf-c's strings are not const */
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
	link_send(l, &env);
	free(lp);
	for (size_t i = 0; i < a->allow.n; i++)
		free(mounts[i]);
	free(mounts);
}

/*
 * The next heartbeat after silence_ms, armed again at every frame sent: a heartbeat
 * goes only when the agent has said nothing else. In a step the interval reports
 * say it is alive, and the coordinator reads one record an interval from each agent,
 * not two (the coordinator's cost per agent is mostly per record).
 */
static void link_heartbeat_arm(struct link *l)
{
	event_add(l->heartbeat_ev, &(struct timeval){(time_t)(l->silence_ms / 1000),
	                                             (suseconds_t)(l->silence_ms % 1000) * 1000});
}

static void link_heartbeat_cb(evutil_socket_t fd, short what, void *arg)
{
	struct link *l = arg;
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Heartbeat hb = IOCURVE__HEARTBEAT__INIT;

	hb.agent_time = clock_now_ns();
	hb.workers_running = l->cbs->busy(l->arg);
	env.body_case = IOCURVE__ENVELOPE__BODY_HEARTBEAT;
	env.heartbeat = &hb;
	link_send(l, &env);
}

static void link_on_connected(struct conn *c, void *arg)
{
	struct link *l = arg;

	if (strcmp(conn_peer_name(c), "coordinator") != 0) {
		log_error("%s presented a certificate for '%s', not the coordinator; closing",
		          l->o.coordinator, conn_peer_name(c));
		conn_close(c);
		l->conn = NULL;
		link_schedule_reconnect(l);
		return;
	}
	log_info("connected to coordinator at %s (TLS 1.3, mutual)", l->o.coordinator);
	l->handshaken = true;
	link_send_hello(l);
}

static void link_put(struct link *l, const Iocurve__Envelope *env, bool now);

static void link_pong(struct link *l, const Iocurve__Ping *ping, uint64_t t2)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Pong pong = IOCURVE__PONG__INIT;

	pong.seq = ping->seq;
	pong.t1 = ping->t1;
	pong.t2 = skew_to_wire(&l->a->skew, t2);
	pong.t3 = skew_to_wire(&l->a->skew, clock_now_ns());
	env.body_case = IOCURVE__ENVELOPE__BODY_PONG;
	env.pong = &pong;
	link_put(l, &env, true); /* t3 is taken just before its write */
}

/*
 * The session's liveness: the coordinator's heartbeat interval and misses, unless
 * this agent was given its own. The agent sends at least as often as the
 * coordinator does; the coordinator is lost after its interval x misses of silence;
 * workers stop when it has not been heard for the dead-man, which must outlast one
 * heartbeat interval.
 */
static void link_apply_welcome(struct link *l, struct conn *c, const Iocurve__Welcome *w)
{
	uint64_t peer_ms = w->heartbeat_ms ? w->heartbeat_ms : LINK_HEARTBEAT_MS;
	uint32_t peer_misses = w->heartbeat_misses ? w->heartbeat_misses : LINK_MISSES;
	uint32_t misses = l->o.misses ? l->o.misses : peer_misses;

	l->heartbeat_ms =
	    l->o.heartbeat_ms && l->o.heartbeat_ms < peer_ms ? l->o.heartbeat_ms : peer_ms;
	/*
	 * A quarter of an interval of slack when the coordinator waits two intervals or
	 * more: reports due every interval then always come before the heartbeat would
	 * (with none, the two raced, and half the heartbeats went beside the reports).
	 */
	l->silence_ms = l->heartbeat_ms + (peer_misses >= 2 ? l->heartbeat_ms / 4 : 0);
	l->deadman_ms = l->o.deadman_ms ? l->o.deadman_ms
	                : w->deadman_ms ? w->deadman_ms
	                                : LINK_DEADMAN_MS;
	if (l->deadman_ms <= peer_ms) {
		log_warn("dead-man %llu ms does not outlast the coordinator's heartbeat (%llu ms): "
		         "using %llu ms",
		         (unsigned long long)l->deadman_ms, (unsigned long long)peer_ms,
		         (unsigned long long)(2 * peer_ms));
		l->deadman_ms = 2 * peer_ms;
	}
	log_info("heartbeat every %llu ms, coordinator lost after %u missed, dead-man %llu ms "
	         "(a heartbeat goes after %llu ms without another frame)",
	         (unsigned long long)l->heartbeat_ms, misses, (unsigned long long)l->deadman_ms,
	         (unsigned long long)l->silence_ms);
	conn_set_idle_timeout_ms(c, (unsigned)(peer_ms * misses));
	link_heartbeat_arm(l);
}

/* Stop dialling and tell the owner: the agent cannot go on. */
static void link_give_up(struct link *l)
{
	l->stopping = true;
	l->cbs->on_give_up(l->arg);
}

/*
 * What the coordinator lacks of ours is logged and left out. This agent sends what
 * it has either way (a coordinator of 0.1.0, no version in its Welcome, ignores the
 * fields it does not know), but for read and write apart, whose histograms are
 * only sent to a coordinator with CAPABILITY_KINDS (plan_set_caps). Returns the
 * capabilities both have.
 */
static uint64_t link_agree(const Iocurve__Welcome *w)
{
	char version[32], peer[64];

	text_clean(w->software_version[0] ? w->software_version : "0.1.0", version, sizeof(version),
	           false);
	snprintf(peer, sizeof(peer), "the coordinator (%s)", version);
	return caps_agree(CAPS_OURS, w->capabilities, peer);
}

/* A refusal that can clear by itself (a name still held by a stale session...) is retried. */
static void link_refused(struct link *l, struct conn *c, const Iocurve__Refuse *r)
{
	conn_close(c);
	l->conn = NULL;
	if (!r->permanent) {
		log_error("the coordinator refused this agent: %s; trying again", r->reason);
		link_schedule_reconnect(l);
		return;
	}
	log_error("the coordinator refused this agent: %s", r->reason);
	link_give_up(l);
}

static void link_on_message(struct conn *c, Iocurve__Envelope *env, void *arg)
{
	struct link *l = arg;
	uint64_t now = clock_now_ns(), caps;

	/* Every frame says the coordinator is there: the workers may go on. */
	l->cbs->on_heard(l->arg, now);
	switch (env->body_case) {
	case IOCURVE__ENVELOPE__BODY_WELCOME:
		l->welcomed = true;
		l->backoff_ms = 0;
		l->tls_failures = 0;
		log_info("welcomed by the coordinator as '%s'", env->welcome->agent_name);
		caps = link_agree(env->welcome);
		link_apply_welcome(l, c, env->welcome);
		l->cbs->on_welcome(l->arg, l->deadman_ms, caps);
		break;
	case IOCURVE__ENVELOPE__BODY_REFUSE:
		link_refused(l, c, env->refuse);
		break;
	case IOCURVE__ENVELOPE__BODY_PING:
		link_pong(l, env->ping, conn_heard_ns(c));
		break;
	case IOCURVE__ENVELOPE__BODY_HEARTBEAT:
		break;
	default:
		if (!l->welcomed) {
			log_warn("ignoring %s before Welcome", frame_body_name(env));
			break;
		}
		l->cbs->on_message(l->arg, env);
		break;
	}
}

/*
 * What to do about a connection that never came up, in words: the failure and
 * its fix. Returns whether retrying can mend it (a coordinator not started yet
 * can; a certificate from another CA cannot, until someone changes the files).
 */
static bool link_advice(const struct link *l, struct conn *c, const char *reason, char *buf,
                        size_t len)
{
	const char *coordinator = l->o.coordinator, *name = l->a->name;

	/*
	 * A coordinator that rejects this agent's certificate says so in an alert, which
	 * the connection reads even when a reset came after it (CONN_FAILURE_OUR_CERT).
	 * A close without one, after the handshake and before Welcome or Refuse, is a
	 * coordinator going away (a restart, a crash): that mends by itself.
	 */
	switch (conn_failure(c)) {
	case CONN_FAILURE_REFUSED:
		snprintf(buf, len,
		         "nothing listens at %s (%s): start `iocurve serve --listen` there, or "
		         "check --coordinator",
		         coordinator, reason);
		return true;
	case CONN_FAILURE_UNREACHABLE:
		snprintf(buf, len, "%s is unreachable (%s): check the address and the network",
		         coordinator, reason);
		return true;
	case CONN_FAILURE_PEER_CERT:
		snprintf(buf, len,
		         "the coordinator at %s has a certificate this agent does not trust "
		         "(%s): %s/ca.crt is not the CA that signed it; copy ca.crt from the "
		         "coordinator's certificate directory (`iocurve certs init DIR`)",
		         coordinator, reason, l->o.tls_dir);
		return false;
	case CONN_FAILURE_OUR_CERT:
		snprintf(buf, len,
		         "the coordinator at %s does not accept this agent's certificate (%s; its "
		         "log says why): "
		         "make it in the coordinator's directory with `iocurve certs agent DIR %s` "
		         "and copy %s.crt, %s.key and ca.crt to %s",
		         coordinator, reason, name, name, name, l->o.tls_dir);
		return false;
	case CONN_FAILURE_CLOSED:
		if (l->handshaken && !l->welcomed) {
			snprintf(
			    buf, len,
			    "the coordinator at %s closed the connection before welcoming this "
			    "agent (%s)",
			    coordinator, reason);
			return true;
		}
		/* fall through */
	default:
		snprintf(buf, len, "connection to coordinator %s lost: %s", coordinator, reason);
		return true;
	}
}

static void link_on_close(struct conn *c, const char *reason, void *arg)
{
	struct link *l = arg;
	char advice[1024];
	bool mendable = link_advice(l, c, reason, advice, sizeof(advice));

	if (mendable) {
		l->tls_failures = 0;
		log_warn("%s", advice);
	} else if (++l->tls_failures >= LINK_TLS_GIVE_UP) {
		log_error("%s; giving up after %u attempts", advice, l->tls_failures);
		link_give_up(l);
	} else {
		log_error("%s (attempt %u of %u)", advice, l->tls_failures, LINK_TLS_GIVE_UP);
	}
	l->conn = NULL;
	l->welcomed = false;
	l->handshaken = false;
	event_del(l->heartbeat_ev);
	/* Dead-man: no coordinator, no I/O. */
	l->cbs->on_lost(l->arg);
	if (!l->stopping)
		link_schedule_reconnect(l);
}

/*
 * The coordinator silent past the idle timeout: not when this agent's own loop could
 * not run for over a heartbeat meanwhile (starved, stopped): the coordinator's word
 * may wait unread. It gets a fresh idle timeout; the workers' dead-man has already
 * said whether the step could go on.
 */
static bool link_on_idle(struct conn *c, void *arg)
{
	struct link *l = arg;
	uint64_t now = clock_now_ns();
	uint64_t stalled = stall_recent(l->a->stall, now, l->heartbeat_ms * NSEC_PER_MSEC);

	if (stalled <= l->heartbeat_ms * NSEC_PER_MSEC)
		return false;
	log_warn("the agent itself was stalled for %.1f s (its event loop did not run): the "
	         "coordinator is not blamed for the silence",
	         (double)stalled / 1e9);
	return true;
}

static const struct conn_cbs link_conn_cbs = {
    .on_connected = link_on_connected,
    .on_message = link_on_message,
    .on_close = link_on_close,
    .on_idle = link_on_idle,
};

static void link_dial(struct link *l)
{
	if (l->stopping)
		return;
	l->conn = conn_connect(l->a->base, l->o.ssl_ctx, (struct sockaddr *)&l->o.addr,
	                       (int)l->o.addrlen, l->o.coordinator, &link_conn_cbs, l);
	if (l->conn == NULL) {
		/* Nothing of the attempt is left (conn_connect): only the retry. */
		log_warn("cannot connect to %s: %s", l->o.coordinator, strerror(errno));
		link_schedule_reconnect(l);
		return;
	}
	conn_set_idle_timeout_ms(
	    l->conn, (unsigned)((l->o.heartbeat_ms ? l->o.heartbeat_ms : LINK_HEARTBEAT_MS) *
	                        (l->o.misses ? l->o.misses : LINK_MISSES)));
	if (l->o.max_frame)
		conn_set_max_frame(l->conn, l->o.max_frame);
}

struct link *link_new(const struct agent *a, const struct link_opts *opts,
                      const struct link_cbs *cbs, void *arg)
{
	struct link *l = xcalloc(1, sizeof(*l));

	l->a = a;
	l->o = *opts;
	l->cbs = cbs;
	l->arg = arg;
	return l;
}

void link_start(struct link *l)
{
	l->reconnect_ev = evtimer_new(l->a->base, link_reconnect_cb, l);
	l->heartbeat_ev = event_new(l->a->base, -1, EV_PERSIST, link_heartbeat_cb, l);
	link_dial(l);
}

void link_stop(struct link *l)
{
	l->stopping = true;
	if (l->conn != NULL) {
		conn_close(l->conn);
		l->conn = NULL;
	}
	if (l->reconnect_ev != NULL) {
		event_free(l->reconnect_ev);
		l->reconnect_ev = NULL;
	}
	if (l->heartbeat_ev != NULL) {
		event_free(l->heartbeat_ev);
		l->heartbeat_ev = NULL;
	}
}

void link_free(struct link *l)
{
	if (l == NULL)
		return;
	link_stop(l);
	free(l);
}

/* now: written at once (conn_send_now), not later in the pass. */
static void link_put(struct link *l, const Iocurve__Envelope *env, bool now)
{
	if (l->conn == NULL) {
		log_debug("not connected: dropping %s", frame_body_name(env));
		return;
	}
	(now ? conn_send_now : conn_send)(l->conn, env);
	if (l->welcomed && l->heartbeat_ms > 0)
		link_heartbeat_arm(l);
}

void link_send(struct link *l, const Iocurve__Envelope *env)
{
	link_put(l, env, false);
}
