/* SPDX-License-Identifier: MIT */
/* The coordinator's agent port: TLS listener, sessions, Hello, heartbeats, clock rounds' use. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <event2/listener.h>

#include "caps.h"
#include "certs.h"
#include "clock.h"
#include "conn.h"
#include "fdbudget.h"
#include "frame.h"
#include "listenpause.h"
#include "log.h"
#include "netaddr.h"
#include "revoke.h"
#include "strindex.h"
#include "server.h"
#include "server_priv.h"
#include "text.h"
#include "xalloc.h"

/* From accept to an accepted Hello, however slowly the bytes come. */
#define SERVER_HELLO_SECONDS 5
/*
 * Connections not yet welcomed: in all (or a quarter of the descriptor limit, when
 * less), and from one address. Over either, the newcomer takes the place of the
 * oldest connection of the address holding the most (fdbudget_victim).
 */
#define SERVER_MAX_PENDING          128
#define SERVER_PENDING_SHARE        4
#define SERVER_MAX_PENDING_PER_HOST 32
/* Out of descriptors: stop accepting this long, then try again. */
#define SERVER_ACCEPT_PAUSE_MS 1000
/* Before Hello is accepted, frames are small: a Hello needs little, unpacking costs more. */
#define SERVER_HELLO_MAX_FRAME (64u << 10)
#define SERVER_MAX_ALLOWED     64
/* Lines about connections refused before Hello, per window. */
#define SERVER_REFUSED_LOG_LINES     20
#define SERVER_REFUSED_LOG_WINDOW_NS 10000000000ull
/*
 * An agent with more than this queued for it and not acknowledged (ours and the
 * kernel's) has stopped reading: nothing more is queued for it, and it is dropped
 * at the next heartbeat tick. Everything the coordinator sends an agent is small;
 * a healthy one holds a few KiB at most. Tests only: IOCURVE_TEST_SESSION_BACKLOG.
 */
#define SERVER_SESSION_BACKLOG (1u << 20)
/*
 * The kernel's queue for a session is asked every this many heartbeat ticks (an ioctl
 * a session a tick was a sixth of serve's system calls with a fleet idle).
 */
#define SERVER_BACKLOG_TICKS 4
/* The loop's watchdog tick: a stall is measured to within it. */
#define SERVER_STALL_TICK_MS 100

static void server_agent_clear_labels(struct server_agent *a)
{
	label_free(a->labels, a->nlabels);
	a->labels = NULL;
	a->nlabels = 0;
}

static const char *server_agent_name(const void *srv, size_t i)
{
	return ((const struct server *)srv)->agents[i].name;
}

/* The registry entry for a name, or NULL (every Hello asks). */
static struct server_agent *server_agent_find(struct server *srv, const char *name)
{
	long i = strindex_find(&srv->by_name, name);

	return i >= 0 ? &srv->agents[i] : NULL;
}

/* The registry entry for a name, made on first sight. */
static struct server_agent *server_agent_of(struct server *srv, const char *name)
{
	struct server_agent *a = server_agent_find(srv, name);

	if (a != NULL)
		return a;
	srv->agents = xreallocarray(srv->agents, srv->nagents + 1, sizeof(*srv->agents));
	memset(&srv->agents[srv->nagents], 0, sizeof(*srv->agents));
	snprintf(srv->agents[srv->nagents].name, sizeof(srv->agents[0].name), "%s", name);
	strindex_add(&srv->by_name, srv->nagents++);
	return &srv->agents[srv->nagents - 1];
}

const struct server_agent *server_agents(const struct server *srv, size_t *n)
{
	*n = srv->nagents;
	return srv->agents;
}

static void server_session_free(struct session *s)
{
	if (s->welcomed) {
		struct server_agent *a = server_agent_at(s);

		if (a->s == s)
			a->s = NULL;
	}
	TAILQ_REMOVE(&s->srv->sessions, s, entry);
	for (size_t i = 0; i < s->nallowed; i++) {
		free(s->allowed[i]);
		free(s->mounts ? s->mounts[i] : NULL);
	}
	free(s->allowed);
	free(s->mounts);
	label_free(s->labels, s->nlabels);
	free(s);
}

/* One more frame of env's body read (sent false) or queued (true). */
static void server_count(struct server *srv, bool sent, unsigned body_case)
{
	srv->frames[sent][body_case < SERVER_FRAME_KINDS ? body_case : 0]++;
}

uint64_t server_frames(const struct server *srv, bool sent, unsigned body_case)
{
	return body_case < SERVER_FRAME_KINDS ? srv->frames[sent][body_case] : 0;
}

int server_send(struct session *s, const Iocurve__Envelope *env)
{
	/* Ours only here (no system call a frame); the heartbeat tick counts the kernel's. */
	if (s->conn == NULL || conn_pending(s->conn) > s->srv->backlog_max ||
	    conn_send(s->conn, env) < 0)
		return -1;
	server_count(s->srv, true, (unsigned)env->body_case);
	return 0;
}

static void server_session_lost(struct session *s, const char *reason);

/*
 * Drop a session that stopped reading; true when it was dropped (s is freed). What we
 * hold for it is counted every tick; what the kernel holds (a system call a session)
 * every SERVER_BACKLOG_TICKS ticks, at each session's own tick of them.
 */
static bool server_drop_if_stuck(struct session *s)
{
	size_t queued = s->conn != NULL ? conn_pending(s->conn) : 0;
	char reason[160];

	if (queued <= s->srv->backlog_max && s->conn != NULL &&
	    ++s->backlog_ticks >= SERVER_BACKLOG_TICKS) {
		s->backlog_ticks = 0;
		queued = conn_backlog(s->conn);
	}
	if (queued <= s->srv->backlog_max)
		return false;
	snprintf(reason, sizeof(reason),
	         "not reading what the coordinator sends: %zu bytes queued for it (limit %zu); "
	         "dropped so that it holds no memory",
	         queued, s->srv->backlog_max);
	conn_abort(s->conn);
	s->conn = NULL;
	server_session_lost(s, reason);
	return true;
}

static void server_refuse(struct session *s, bool permanent, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* permanent: the agent cannot be accepted as it is (it stays down); else it dials again. */
static void server_refuse(struct session *s, bool permanent, const char *fmt, ...)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Refuse r = IOCURVE__REFUSE__INIT;
	char reason[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	log_warn("refusing agent %s at %s: %s", s->name, s->addr, reason);
	r.reason = reason;
	r.permanent = permanent;
	env.body_case = IOCURVE__ENVELOPE__BODY_REFUSE;
	env.refuse = &r;
	server_send(s, &env);
	conn_close(s->conn);
	s->conn = NULL;
	if (s->welcomed)
		server_session_lost(s, reason);
	else
		server_session_free(s);
}

/* What a Hello may declare, checked before anything of it is kept. */
static int server_hello_bounded(const Iocurve__Hello *h, struct error *err)
{
	if (label_check_wire(h->labels, h->n_labels, err) < 0)
		return -1;
	if (h->n_allowed_paths > SERVER_MAX_ALLOWED) {
		error_set(err, "%zu allowed paths, at most %d", h->n_allowed_paths,
		          SERVER_MAX_ALLOWED);
		return -1;
	}
	if (h->n_allowed_mounts != 0 && h->n_allowed_mounts != h->n_allowed_paths) {
		error_set(err, "%zu allowed mounts for %zu allowed paths", h->n_allowed_mounts,
		          h->n_allowed_paths);
		return -1;
	}
	for (size_t i = 0; i < h->n_allowed_mounts; i++)
		if (strlen(h->allowed_mounts[i]) >= PATH_MAX) {
			error_set(err, "allowed mount %zu is longer than %d bytes", i, PATH_MAX);
			return -1;
		}
	for (size_t i = 0; i < h->n_allowed_paths; i++)
		if (strlen(h->allowed_paths[i]) >= PATH_MAX) {
			error_set(err, "allowed path %zu is longer than %d bytes", i, PATH_MAX);
			return -1;
		}
	return 0;
}

/*
 * What a clock call gave: its Pings counted (each has a sequence number of its own,
 * from ping_seq before the call), a round's end in the registry's copy, the log, and
 * a first sync's ready.
 */
static void server_clocked(struct session *s, uint64_t seq, enum server_clock_outcome out,
                           uint64_t now)
{
	struct server_agent *a = server_agent_at(s);
	const struct clocksync *m = &s->clock.model;

	s->srv->frames[true][IOCURVE__ENVELOPE__BODY_PING] += s->clock.ping_seq - seq;

	if (out == SERVER_CLOCK_GOING)
		return;
	if (out == SERVER_CLOCK_NO_SAMPLE) {
		a->clock.rejected = m->rejected;
		log_warn("agent %s: no usable clock sample in this round (%u refused so far)",
		         s->name, m->rejected);
		return;
	}
	a->clock = *m;
	a->rtt_ms = (double)m->rtt_ns / 1e6;
	a->offset_ms = (double)clocksync_offset_at(m, now) / 1e6;
	if (out == SERVER_CLOCK_REFITTED) {
		log_debug("agent %s: clock offset %+.3f ms, drift %+.2f ppm, round trip %.3f ms",
		          s->name, a->offset_ms, m->drift_ppm, a->rtt_ms);
		return;
	}
	log_info("agent %s: clock offset %+.3f ms, round trip %.3f ms", s->name, a->offset_ms,
	         a->rtt_ms);
	if (s->srv->cbs && s->srv->cbs->on_agent_ready)
		s->srv->cbs->on_agent_ready(s, s->srv->arg);
}

static void server_hello(struct session *s, const Iocurve__Hello *h)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Welcome w = IOCURVE__WELCOME__INIT;
	static char path[4 * PATH_MAX];
	struct server_agent *a;
	struct session *o;
	struct error err;
	uint64_t seq;

	if (h->protocol_version < CAPS_PROTOCOL_MIN ||
	    h->protocol_version > IOCURVE__PROTOCOL_VERSION__PROTOCOL_VERSION_CURRENT) {
		server_refuse(s, true,
		              "agent speaks protocol version %u, this coordinator speaks %u to %u; "
		              "run an iocurve-agent at most one release apart from the coordinator",
		              h->protocol_version, CAPS_PROTOCOL_MIN,
		              IOCURVE__PROTOCOL_VERSION__PROTOCOL_VERSION_CURRENT);
		return;
	}
	/* The same rule as `iocurve certs agent`, whoever signed the certificate. */
	if (!certs_name_valid(s->name)) {
		server_refuse(s, true, "certificate name '%s' is not a valid agent name",
		              text_clean(s->name, path, sizeof(path), false));
		return;
	}
	if (revoke_match(s->srv->revoked, s->name, s->serial)) {
		server_refuse(s, true, "certificate revoked (serial %s)", s->serial);
		return;
	}
	if (server_hello_bounded(h, &err) < 0) {
		server_refuse(s, true, "Hello out of bounds: %s", err.msg);
		return;
	}
	/*
	 * A certificate is one agent's: a Hello naming another (a node holding a copy of
	 * a neighbour's key, or a hand-made client) is refused before it can replace
	 * anyone's session. The real agent checks the same before it dials.
	 */
	if (h->name == NULL || strcmp(h->name, s->name) != 0) {
		server_refuse(
		    s, true,
		    "certificate identity '%s' does not match the claimed name '%s'; an "
		    "agent joins only under its own certificate's name",
		    s->name, text_clean(h->name != NULL ? h->name : "", path, sizeof(path), false));
		return;
	}
	/*
	 * The same certificate again: its host vanished without a FIN and the agent came
	 * back, or it was restarted. The newer authenticated session wins.
	 */
	a = server_agent_find(s->srv, s->name);
	o = a != NULL ? a->s : NULL;
	if (o != NULL && o != s && o->welcomed) {
		char why[256];

		snprintf(why, sizeof(why), "replaced by a new session from %s", s->addr);
		conn_close(o->conn);
		o->conn = NULL;
		server_session_lost(o, why);
	}
	text_clean(h->host, s->host, sizeof(s->host), false);
	s->cpus = h->cpus;
	s->nallowed = h->n_allowed_paths;
	s->allowed = xcalloc(h->n_allowed_paths, sizeof(*s->allowed));
	s->mounts = xcalloc(h->n_allowed_paths, sizeof(*s->mounts));
	for (size_t i = 0; i < h->n_allowed_paths; i++) {
		s->allowed[i] = xstrdup(text_clean(h->allowed_paths[i], path, sizeof(path), false));
		s->mounts[i] =
		    xstrdup(i < h->n_allowed_mounts
		                ? text_clean(h->allowed_mounts[i], path, sizeof(path), false)
		                : "");
	}
	text_clean(h->kernel, s->kernel, sizeof(s->kernel), false);
	text_clean(h->software_version, s->version, sizeof(s->version), false);
	s->labels = label_from_wire(h->labels, h->n_labels);
	s->nlabels = h->n_labels;
	s->welcomed = true;
	/* Sessions still to say Hello stay at the head of the list, the welcomed follow. */
	TAILQ_REMOVE(&s->srv->sessions, s, entry);
	TAILQ_INSERT_TAIL(&s->srv->sessions, s, entry);
	/* Welcomed: no Hello deadline any more, and frames up to the port's limit. */
	conn_set_deadline(s->conn, 0, NULL);
	conn_set_max_frame(s->conn, s->srv->max_frame ? s->srv->max_frame : FRAME_MAX_DEFAULT);
	{
		a = server_agent_of(s->srv, s->name);
		s->agent = (size_t)(a - s->srv->agents);
		a->s = s;
		snprintf(a->host, sizeof(a->host), "%s", s->host);
		text_clean(h->software_version, a->version, sizeof(a->version), false);
		server_agent_clear_labels(a);
		a->labels = label_copy(s->labels, s->nlabels);
		a->nlabels = s->nlabels;
		a->last_seen_ns = clock_now_ns();
	}
	w.protocol_version = IOCURVE__PROTOCOL_VERSION__PROTOCOL_VERSION_CURRENT;
	w.capabilities = CAPS_OURS;
	w.software_version = IOCURVE_VERSION;
	w.agent_name = s->name;
	w.heartbeat_ms = s->srv->live.heartbeat_ms;
	w.heartbeat_misses = s->srv->live.misses;
	w.deadman_ms = s->srv->live.deadman_ms;
	env.body_case = IOCURVE__ENVELOPE__BODY_WELCOME;
	env.welcome = &w;
	server_send(s, &env);
	log_info("agent %s joined from %s (host %s, %u CPUs, %zu allowed path(s))", s->name,
	         s->addr, s->host, s->cpus, s->nallowed);
	snprintf(path, sizeof(path), "agent %s (%s)", s->name, s->version[0] ? s->version : "?");
	s->caps = caps_agree(CAPS_OURS, h->capabilities, path);
	seq = s->clock.ping_seq;
	server_clock_start(&s->clock, s->conn, clock_now_ns());
	server_clocked(s, seq, SERVER_CLOCK_GOING, 0);
}

static void server_on_connected(struct conn *c, void *arg)
{
	struct session *s = arg;

	snprintf(s->name, sizeof(s->name), "%s", conn_peer_name(c));
	snprintf(s->serial, sizeof(s->serial), "%s", conn_peer_serial(c));
	log_info("TLS session from %s, certificate CN '%s', serial %s", s->addr, s->name,
	         s->serial);
}

/*
 * A welcomed agent's message to the session's owner, cut where it enters to the
 * capabilities the session agreed (caps_report): what an agent sends beyond them
 * never reaches the runner.
 */
static void server_deliver(struct session *s, const Iocurve__Envelope *env)
{
	Iocurve__Envelope cut;
	Iocurve__IntervalReport ir;

	if (s->srv->cbs == NULL || s->srv->cbs->on_agent_message == NULL)
		return;
	if (env->body_case == IOCURVE__ENVELOPE__BODY_INTERVAL_REPORT) {
		cut = *env;
		cut.interval_report =
		    (Iocurve__IntervalReport *)caps_report(env->interval_report, s->caps, &ir);
		env = &cut;
	}
	s->srv->cbs->on_agent_message(s, env, s->srv->arg);
}

static void server_on_message(struct conn *c, Iocurve__Envelope *env, void *arg)
{
	struct session *s = arg;
	uint64_t now = clock_now_ns(), seq = s->clock.ping_seq;

	server_count(s->srv, false, (unsigned)env->body_case);
	if (s->welcomed)
		server_agent_at(s)->last_seen_ns = now;
	if (!s->welcomed) {
		if (env->body_case == IOCURVE__ENVELOPE__BODY_HELLO)
			server_hello(s, env->hello); /* may free s (Refuse) */
		else
			server_refuse(s, true, "expected Hello first, got %s",
			              frame_body_name(env));
		return;
	}
	switch (env->body_case) {
	case IOCURVE__ENVELOPE__BODY_PONG:
		server_clocked(
		    s, seq,
		    server_clock_pong(&s->clock, s->conn, s->name, env->pong, conn_heard_ns(c)),
		    now);
		break;
	case IOCURVE__ENVELOPE__BODY_HEARTBEAT:
		break;
	case IOCURVE__ENVELOPE__BODY_HELLO: {
		uint64_t n = session_noise(s);

		if (n > 0)
			log_warn("agent %s: second Hello ignored (%llu lines of its so far)",
			         s->name, (unsigned long long)n);
		break;
	}
	default:
		server_deliver(s, env);
		break;
	}
}

/* Unauthenticated peers decide how often this happens: at most a few lines per 10 s. */
static void server_log_refused(struct server *srv, const char *addr, const char *reason)
{
	uint64_t now = clock_now_ns();

	if (now - srv->refused_window_ns >= SERVER_REFUSED_LOG_WINDOW_NS) {
		if (srv->refused_unlogged)
			log_warn(
			    "%llu more connections refused before Hello, not logged one by one",
			    (unsigned long long)srv->refused_unlogged);
		srv->refused_window_ns = now;
		srv->refused_logged = 0;
		srv->refused_unlogged = 0;
	}
	if (srv->refused_logged++ < SERVER_REFUSED_LOG_LINES)
		log_warn("connection from %s refused: %s", addr, reason);
	else
		srv->refused_unlogged++;
}

/* The session is over (its conn closed or gone): tell the owner, then free it. */
static void server_session_lost(struct session *s, const char *reason)
{
	if (!s->welcomed) {
		server_log_refused(s->srv, s->addr, reason);
	} else {
		log_warn("agent %s (%s) lost: %s", s->name, s->addr, reason);
		if (s->srv->cbs && s->srv->cbs->on_agent_lost)
			s->srv->cbs->on_agent_lost(s, reason, s->srv->arg);
	}
	server_session_free(s);
}

static void server_stall_check(struct server *srv, uint64_t now);

static void server_on_close(struct conn *c, const char *reason, void *arg)
{
	struct session *s = arg;
	struct server *srv = s->srv;
	char why[512];

	s->conn = NULL;
	/* An agent that gave up on us while we were frozen: the loss says whose stall it was. */
	server_stall_check(srv, clock_now_ns());
	if (clock_now_ns() < srv->grace_until_ns) {
		snprintf(why, sizeof(why),
		         "%s, just after the coordinator itself was stalled for %.1f s", reason,
		         (double)srv->stall_ns / 1e9);
		reason = why;
	}
	server_session_lost(s, reason);
}

/*
 * Whether the loop itself stalled (the process stopped, or starved of CPU) for longer
 * than a heartbeat interval: the tick was due SERVER_STALL_TICK_MS after it last ran
 * and ran late by the stall. Every agent sends a heartbeat an interval, so part of any
 * silence the idle timeout then sees was ours, and a stall as long as the idle
 * timeout is all of it: said once, and every agent gets a fresh idle timeout from now
 * before it counts as silent.
 */
static void server_stall_check(struct server *srv, uint64_t now)
{
	uint64_t idle_ns = srv->live.heartbeat_ms * srv->live.misses * NSEC_PER_MSEC;
	uint64_t due = srv->tick_ns + SERVER_STALL_TICK_MS * NSEC_PER_MSEC;

	if (srv->tick_ns == 0 || now <= due || now - due <= srv->live.heartbeat_ms * NSEC_PER_MSEC)
		return;
	srv->stall_ns = now - due;
	if (now >= srv->grace_until_ns)
		log_warn("the coordinator itself was stalled for %.1f s (its event loop did not "
		         "run: the process stopped or starved of CPU): no agent is blamed for the "
		         "silence; each has %.1f s again to be heard",
		         (double)srv->stall_ns / 1e9, (double)idle_ns / 1e9);
	srv->grace_until_ns = now + idle_ns;
	srv->tick_ns = now;
}

static void server_stall_cb(evutil_socket_t fd, short what, void *arg)
{
	struct server *srv = arg;
	uint64_t now = clock_now_ns();

	server_stall_check(srv, now);
	srv->tick_ns = now;
}

/* An agent silent past its idle timeout: not when the silence was our own stall. */
static bool server_on_idle(struct conn *c, void *arg)
{
	struct session *s = arg;
	struct server *srv = s->srv;
	uint64_t now = clock_now_ns();

	server_stall_check(srv, now);
	return now < srv->grace_until_ns;
}

static const struct conn_cbs server_conn_cbs = {
    .on_connected = server_on_connected,
    .on_message = server_on_message,
    .on_close = server_on_close,
    .on_idle = server_on_idle,
};

/* The address part of "host:port" or "[host]:port", into buf. */
static const char *server_host(const char *addr, char *buf, size_t len)
{
	const char *colon = strrchr(addr, ':');
	int n = colon != NULL ? (int)(colon - addr) : (int)strlen(addr);

	snprintf(buf, len, "%.*s", n, addr);
	return buf;
}

/* The sessions still to say Hello, oldest first, with their addresses: for fdbudget_victim. */
struct server_pending {
	struct session *s[SERVER_MAX_PENDING];
	char host[SERVER_MAX_PENDING][64];
	size_t n;
};

static const char *server_pending_source(size_t i, void *arg)
{
	return ((struct server_pending *)arg)->host[i];
}

/*
 * Room for a connection from host: over the cap, in all or for host, or landing in
 * the descriptor reserve, the oldest not-yet-welcomed connection of the address
 * holding the most goes (host's own when it holds the most). Returns false when
 * the newcomer must go instead (the reserve is reached and nobody is pending).
 */
static bool server_make_room(struct server *srv, int fd, const char *host)
{
	static struct server_pending p;
	size_t cap = fdbudget_cap(SERVER_MAX_PENDING, SERVER_PENDING_SHARE), here = 0;
	struct session *s;
	char why[256];
	long v;

	p.n = 0;
	/* Those still to say Hello are at the head of the list, newest first. */
	TAILQ_FOREACH(s, &srv->sessions, entry)
	{
		if (s->welcomed || p.n == SERVER_MAX_PENDING)
			break;
		p.s[p.n++] = s;
	}
	for (size_t i = 0; i < p.n / 2; i++) {
		s = p.s[i];
		p.s[i] = p.s[p.n - 1 - i];
		p.s[p.n - 1 - i] = s;
	}
	for (size_t i = 0; i < p.n; i++) {
		server_host(p.s[i]->addr, p.host[i], sizeof(p.host[i]));
		here += strcmp(p.host[i], host) == 0;
	}
	if (p.n < cap && here < SERVER_MAX_PENDING_PER_HOST && !fdbudget_in_reserve(fd))
		return true;
	v = fdbudget_victim(p.n, server_pending_source, &p, host);
	if (v < 0)
		return !fdbudget_in_reserve(fd) || p.n == 0;
	s = p.s[v];
	snprintf(why, sizeof(why),
	         "dropped: too many connections still to say Hello (%zu, cap %zu, %zu from %s); "
	         "the oldest of the address holding the most goes",
	         p.n, cap, here, host);
	if (srv->pending_refused++ % 1000 == 0)
		log_warn("connection from %s %s (%llu so far)", s->addr, why,
		         (unsigned long long)srv->pending_refused);
	conn_abort(s->conn);
	s->conn = NULL;
	server_session_free(s);
	listenpause_next_turn(srv->pause);
	return true;
}

static void server_accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
                             int salen, void *arg)
{
	struct server *srv = arg;
	struct session *s;
	char addr[64], host[64];

	netaddr_format(sa, addr, sizeof(addr));
	if (!server_make_room(srv, fd, server_host(addr, host, sizeof(host)))) {
		if (srv->pending_refused++ % 1000 == 0)
			log_warn("connection from %s refused: too many connections still to say "
			         "Hello, and the descriptor reserve reached (%llu so far)",
			         addr, (unsigned long long)srv->pending_refused);
		evutil_closesocket(fd);
		return;
	}
	s = xcalloc(1, sizeof(*s));
	s->srv = srv;
	s->backlog_ticks = (unsigned)fd % SERVER_BACKLOG_TICKS; /* spread over the ticks */
	snprintf(s->addr, sizeof(s->addr), "%s", addr);
	TAILQ_INSERT_HEAD(&srv->sessions, s, entry);
	s->conn = conn_accept(srv->base, srv->ctx, fd, s->addr, &server_conn_cbs, s);
	if (s->conn == NULL) {
		log_error("cannot set up TLS for %s", s->addr);
		evutil_closesocket(fd);
		server_session_free(s);
		return;
	}
	conn_set_deadline(s->conn, SERVER_HELLO_SECONDS, "no Hello");
	conn_set_idle_timeout_ms(s->conn, (unsigned)(srv->live.heartbeat_ms * srv->live.misses));
	conn_set_max_frame(s->conn, srv->max_frame && srv->max_frame < SERVER_HELLO_MAX_FRAME
	                                ? srv->max_frame
	                                : SERVER_HELLO_MAX_FRAME);
}

static void server_heartbeat_cb(evutil_socket_t fd, short what, void *arg)
{
	struct server *srv = arg;
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Heartbeat hb = IOCURVE__HEARTBEAT__INIT;
	struct session *s, *next;

	uint64_t now = clock_now_ns();

	hb.agent_time = now;
	env.body_case = IOCURVE__ENVELOPE__BODY_HEARTBEAT;
	env.heartbeat = &hb;
	for (s = TAILQ_FIRST(&srv->sessions); s != NULL; s = next) {
		next = TAILQ_NEXT(s, entry);
		if (!s->welcomed || server_drop_if_stuck(s))
			continue;
		uint64_t seq = s->clock.ping_seq;

		server_send(s, &env);
		server_clocked(s, seq, server_clock_tick(&s->clock, s->conn, s->name, now), now);
	}
}

struct server *server_new(struct event_base *base, SSL_CTX *ctx, const char *listen,
                          struct error *err)
{
	struct server *srv = xcalloc(1, sizeof(*srv));
	struct sockaddr_storage ss;
	socklen_t len;

	if (netaddr_parse(listen, &ss, &len, err) < 0) {
		free(srv);
		return NULL;
	}
	srv->base = base;
	srv->ctx = ctx;
	srv->backlog_max = SERVER_SESSION_BACKLOG;
	if (getenv("IOCURVE_TEST_SESSION_BACKLOG") != NULL)
		srv->backlog_max = strtoul(getenv("IOCURVE_TEST_SESSION_BACKLOG"), NULL, 10);
	TAILQ_INIT(&srv->sessions);
	strindex_init(&srv->by_name, server_agent_name, srv);
	srv->listener = evconnlistener_new_bind(base, server_accept_cb, srv,
	                                        LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE |
	                                            LEV_OPT_CLOSE_ON_EXEC,
	                                        64, (struct sockaddr *)&ss, (int)len);
	if (srv->listener == NULL) {
		error_set(err, "cannot listen on %s: %s", listen, strerror(errno));
		free(srv);
		return NULL;
	}
	srv->pause = listenpause_new(base, srv->listener, "agent port", SERVER_ACCEPT_PAUSE_MS);
	len = sizeof(ss);
	getsockname(evconnlistener_get_fd(srv->listener), (struct sockaddr *)&ss, &len);
	netaddr_format((struct sockaddr *)&ss, srv->address, sizeof(srv->address));
	srv->heartbeat_ev = event_new(base, -1, EV_PERSIST, server_heartbeat_cb, srv);
	srv->stall_ev = event_new(base, -1, EV_PERSIST, server_stall_cb, srv);
	srv->tick_ns = clock_now_ns();
	event_add(srv->stall_ev, &(struct timeval){0, SERVER_STALL_TICK_MS * 1000});
	server_set_liveness(
	    srv, &(struct server_liveness){SERVER_HEARTBEAT_MS, SERVER_MISSES, SERVER_DEADMAN_MS});
	log_info("listening for agents on %s (mutual TLS 1.3)", srv->address);
	return srv;
}

void server_set_cbs(struct server *srv, const struct server_cbs *cbs, void *arg)
{
	srv->cbs = cbs;
	srv->arg = arg;
}

void server_set_liveness(struct server *srv, const struct server_liveness *live)
{
	srv->live = *live;
	event_add(srv->heartbeat_ev,
	          &(struct timeval){(time_t)(live->heartbeat_ms / 1000),
	                            (suseconds_t)(live->heartbeat_ms % 1000) * 1000});
}

void server_set_max_frame(struct server *srv, size_t max)
{
	srv->max_frame = max;
}

int server_load_revoked(struct server *srv, const char *path, struct error *err)
{
	struct revoke *rv = revoke_load(path, err);
	struct session *s, *next;

	if (rv == NULL)
		return -1;
	revoke_free(srv->revoked);
	srv->revoked = rv;
	log_info("revocation list %s: %zu entr%s", path, revoke_count(rv),
	         revoke_count(rv) == 1 ? "y" : "ies");
	/* Connected agents on the list go now; they are refused when they dial again. */
	for (s = TAILQ_FIRST(&srv->sessions); s != NULL; s = next) {
		next = TAILQ_NEXT(s, entry);
		if (s->conn != NULL && s->name[0] != '\0' && revoke_match(rv, s->name, s->serial))
			server_refuse(s, true, "certificate revoked (serial %s)", s->serial);
	}
	return (int)revoke_count(rv);
}

const char *server_address(const struct server *srv)
{
	return srv->address;
}

void server_free(struct server *srv)
{
	struct session *s;

	if (srv == NULL)
		return;
	while ((s = TAILQ_FIRST(&srv->sessions)) != NULL) {
		conn_close(s->conn);
		server_session_free(s);
	}
	event_free(srv->heartbeat_ev);
	event_free(srv->stall_ev);
	evconnlistener_free(srv->listener);
	listenpause_free(srv->pause);
	revoke_free(srv->revoked);
	for (size_t i = 0; i < srv->nagents; i++)
		server_agent_clear_labels(&srv->agents[i]);
	free(srv->agents);
	strindex_free(&srv->by_name);
	free(srv);
}
