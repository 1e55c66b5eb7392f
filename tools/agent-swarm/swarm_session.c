/* SPDX-License-Identifier: MIT */
/* One swarm agent session: the agent's side of the protocol, without workers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "clock.h"
#include "conn.h"
#include "log.h"
#include "swarm.h"
#include "xalloc.h"

/* now: written at once (conn_send_now), as the agent sends its Pongs. */
static void swarm_put(struct swarm_session *ss, Iocurve__Envelope *env, bool now)
{
	if (ss->conn != NULL) {
		(now ? conn_send_now : conn_send)(ss->conn, env);
		ss->sent_ns = clock_now_ns();
	}
}

static void swarm_send(struct swarm_session *ss, Iocurve__Envelope *env)
{
	swarm_put(ss, env, false);
}

static void swarm_hello(struct swarm_session *ss)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Hello h = IOCURVE__HELLO__INIT;
	char host[80];
	char *allowed[1] = {"/swarm"}, *mounts[1] = {"swarm tmpfs rw"};

	snprintf(host, sizeof(host), "swarm-host-%u", ss->index / 16);
	h.protocol_version = IOCURVE__PROTOCOL_VERSION__PROTOCOL_VERSION_CURRENT;
	h.capabilities = ss->sw->o.caps; /* its records fill every counter this build has */
	h.name = ss->name;
	h.host = host;
	h.cpus = 2;
	h.software_version = "swarm";
	h.kernel = "Linux swarm";
	h.n_allowed_paths = 1;
	h.allowed_paths = allowed;
	h.n_allowed_mounts = 1;
	h.allowed_mounts = mounts;
	env.body_case = IOCURVE__ENVELOPE__BODY_HELLO;
	env.hello = &h;
	swarm_send(ss, &env);
}

/*
 * The Welcome's heartbeat, when it is more often than ours: every session follows it.
 * The tick runs four times an interval (swarm_heartbeat_tick_ms).
 */
static void swarm_heartbeat_every(struct swarm *sw, uint64_t ms)
{
	uint64_t tick;

	if (ms == 0 || ms >= sw->heartbeat_ms)
		return;
	sw->heartbeat_ms = ms;
	tick = swarm_heartbeat_tick_ms(sw);
	event_add(sw->hb_ev,
	          &(struct timeval){(time_t)(tick / 1000), (suseconds_t)(tick % 1000) * 1000});
}

/*
 * A heartbeat when the session has sent nothing for an interval and a quarter, as an
 * agent does (agent/link.c, silence_ms): in a step its reports, a second apart, say it
 * is alive, and a report a little late does not race a heartbeat. Ticks a quarter of
 * an interval apart: silent at most an interval and a half.
 */
void swarm_session_heartbeat(struct swarm_session *ss, uint64_t now)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Heartbeat hb = IOCURVE__HEARTBEAT__INIT;
	uint64_t silence_ms = ss->sw->heartbeat_ms + ss->sw->heartbeat_ms / 4;

	if (!ss->welcomed || now - ss->sent_ns < silence_ms * NSEC_PER_MSEC)
		return;
	hb.agent_time = clock_now_ns();
	hb.workers_running = ss->workers;
	env.body_case = IOCURVE__ENVELOPE__BODY_HEARTBEAT;
	env.heartbeat = &hb;
	swarm_send(ss, &env);
}

static void swarm_pong(struct swarm_session *ss, const Iocurve__Ping *p, uint64_t t2)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Pong pong = IOCURVE__PONG__INIT;

	pong.seq = p->seq;
	pong.t1 = p->t1;
	pong.t2 = t2;
	pong.t3 = clock_now_ns();
	env.body_case = IOCURVE__ENVELOPE__BODY_PONG;
	env.pong = &pong;
	swarm_put(ss, &env, true);
}

static void swarm_ready(struct swarm_session *ss, const Iocurve__Prepare *p)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Ready r = IOCURVE__READY__INIT;

	if (p->background) {
		/* beside the foreground, whose fields it leaves as they are */
		ss->bg_prepared = true;
		ss->bg_workload = p->workload_index;
		r.workload_index = p->workload_index;
		r.workers = p->workers ? p->workers : 1;
		env.body_case = IOCURVE__ENVELOPE__BODY_READY;
		env.ready = &r;
		swarm_send(ss, &env);
		return;
	}
	ss->workload = p->workload_index;
	ss->workers = p->workers ? p->workers : 1;
	ss->rw = p->rw;
	ss->read_pct = p->read_pct;
	ss->block_size = p->block_size ? p->block_size : 4096;
	snprintf(ss->sw->workload_name, sizeof(ss->sw->workload_name), "%s",
	         p->workload ? p->workload : "");
	r.workload_index = p->workload_index;
	r.workers = ss->workers;
	env.body_case = IOCURVE__ENVELOPE__BODY_READY;
	env.ready = &r;
	swarm_send(ss, &env);
}

static void swarm_step_done(struct swarm_session *ss)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__StepDone d = IOCURVE__STEP_DONE__INIT;

	d.workload_index = ss->workload;
	d.step = ss->step;
	d.intervals = ss->sent;
	d.start_time = ss->start_ns;
	if (ss->index < ss->sw->o.nsets && ss->sw->o.sets[ss->index].step_done == 1)
		d.start_time = ss->sw->o.sets[ss->index].u;
	if (ss->index < ss->sw->o.nsets && ss->sw->o.sets[ss->index].step_done == 2)
		d.start_time =
		    (uint64_t)((int64_t)ss->start_ns +
		               (int64_t)ss->sw->o.sets[ss->index].u * (int64_t)NSEC_PER_SEC);
	env.body_case = IOCURVE__ENVELOPE__BODY_STEP_DONE;
	env.step_done = &d;
	swarm_send(ss, &env);
	ss->stepping = false;
	ss->sw->st.steps_done++;
	if (ss->tick != NULL)
		event_del(ss->tick);
}

/*
 * Interval `interval` of (workload, step) is over: its report, from one of the
 * templates, sent `copies` times (a background's repeats, --bg-repeat).
 */
static void swarm_report_of(struct swarm_session *ss, uint32_t workload, uint32_t step,
                            uint32_t interval, bool warmup, unsigned copies)
{
	struct swarm *sw = ss->sw;
	const struct swarm_template *t =
	    &sw->tmpl[(ss->index + interval * 7u + step * 3u) % SWARM_TEMPLATES];
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__IntervalReport r = IOCURVE__INTERVAL_REPORT__INIT;
	const struct record *rec = &t->rec;
	Iocurve__Histogram forced;

	r.workload_index = workload;
	r.step = step;
	r.interval = interval;
	r.warmup = warmup;
	r.ops = rec->ops;
	r.reads = rec->reads;
	r.bytes = rec->bytes;
	r.cpu_user_ns = rec->cpu_user_ns;
	r.cpu_sys_ns = rec->cpu_sys_ns;
	r.lag_sum_ns = rec->lag_sum_ns;
	r.lag_max_ns = rec->lag_max_ns;
	r.workers = ss->workers;
	r.duration_ns = ss->interval_ns;
	r.host_cpu_pct = 20.0 + (double)(ss->index % 10);
	r.latency = (Iocurve__Histogram *)&t->latency;
	r.service = (Iocurve__Histogram *)&t->service;
	r.read_bytes = rec->read_bytes;
	r.read_latency = (Iocurve__Histogram *)&t->read_latency;
	r.write_latency = (Iocurve__Histogram *)&t->write_latency;
	r.err_path = "";
	if (ss->index < sw->o.nsets && !sw->o.sets[ss->index].step_done)
		swarm_set_apply(&sw->o.sets[ss->index], &r, &forced);
	env.body_case = IOCURVE__ENVELOPE__BODY_INTERVAL_REPORT;
	env.interval_report = &r;
	for (unsigned k = 0; k < copies; k++) {
		if (ss->index >= sw->o.nsets && ss->index < sw->o.nsets + sw->o.mutate)
			swarm_set_mutate(ss, &env);
		else
			swarm_send(ss, &env);
		sw->st.reports++;
		sw->st.report_bytes += 4 + protobuf_c_message_get_packed_size(&env.base);
	}
}

/* Interval ss->sent of the step is over: its report. */
static void swarm_report(struct swarm_session *ss)
{
	struct swarm *sw = ss->sw;

	swarm_report_of(ss, ss->workload, ss->step, ss->sent, ss->sent < ss->warmup, 1);
	if (sw->watch != NULL)
		swarm_watch_sent(sw->watch, sw->workload_name, ss->step, ss->sent, clock_now_ns());
	ss->sent++;
}

/* ev at the end of interval `sent` of a step that started at start_ns (this host's clock). */
static void swarm_arm_at(struct event *ev, uint64_t start_ns, uint32_t sent, uint64_t interval_ns)
{
	uint64_t due = start_ns + (uint64_t)(sent + 1) * interval_ns;
	uint64_t now = clock_now_ns(), wait = due > now ? due - now : 0;

	event_add(ev, &(struct timeval){(time_t)(wait / NSEC_PER_SEC),
	                                (suseconds_t)(wait % NSEC_PER_SEC / 1000)});
}

static void swarm_bg_arm(struct swarm_session *ss)
{
	swarm_arm_at(ss->bg_tick, ss->bg_start_ns, ss->bg_sent, ss->bg_interval_ns);
}

static void swarm_bg_tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct swarm_session *ss = arg;

	(void)fd;
	(void)what;
	if (!ss->bg_stepping)
		return;
	/* no templates before the foreground's first step: nothing to report from yet */
	if (ss->sw->tmpl_ops > 0)
		swarm_report_of(ss, ss->bg_workload, ss->bg_step, ss->bg_sent, false,
		                ss->index == 0 && ss->sw->o.bg_repeat > 1 ? ss->sw->o.bg_repeat
		                                                          : 1);
	ss->bg_sent++;
	swarm_bg_arm(ss);
}

/* The background's step: reported every interval until its EndWorkload. */
static void swarm_bg_start(struct swarm_session *ss, const Iocurve__StartStep *s)
{
	if (s->interval_ns == 0)
		return;
	ss->bg_step = s->step;
	ss->bg_interval_ns = s->interval_ns;
	ss->bg_sent = 0;
	ss->bg_start_ns = (uint64_t)((int64_t)s->start_time + s->clock_offset);
	if (ss->bg_tick == NULL)
		ss->bg_tick = event_new(ss->sw->base, -1, 0, swarm_bg_tick_cb, ss);
	ss->bg_stepping = true;
	swarm_bg_arm(ss);
}

static void swarm_bg_stop(struct swarm_session *ss)
{
	ss->bg_stepping = false;
	if (ss->bg_tick != NULL)
		event_del(ss->bg_tick);
}

static void swarm_arm(struct swarm_session *ss)
{
	swarm_arm_at(ss->tick, ss->start_ns, ss->sent, ss->interval_ns);
}

static void swarm_tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct swarm_session *ss = arg;

	(void)fd;
	(void)what;
	if (!ss->stepping)
		return;
	swarm_report(ss);
	if (ss->sent == ss->intervals)
		swarm_step_done(ss);
	else
		swarm_arm(ss);
}

static void swarm_start_step(struct swarm_session *ss, const Iocurve__StartStep *s)
{
	struct swarm *sw = ss->sw;
	uint64_t total = s->warmup_ns + s->measure_ns;
	double rate = 0;

	if (s->interval_ns == 0 || total == 0)
		return;
	for (size_t i = 0; i < s->n_worker_rate; i++)
		rate += s->worker_rate[i];
	if (rate <= 0)
		rate = 1000.0 * ss->workers; /* closed loop: what a small device would do */
	ss->step = s->step;
	ss->interval_ns = s->interval_ns;
	ss->intervals = (uint32_t)(total / s->interval_ns);
	ss->warmup = (uint32_t)(s->warmup_ns / s->interval_ns);
	ss->sent = 0;
	ss->start_ns = (uint64_t)((int64_t)s->start_time + s->clock_offset);
	ss->ops_per_interval = rate * (double)s->interval_ns / 1e9;
	if (sw->tmpl_ops != ss->ops_per_interval || sw->tmpl_rw != ss->rw ||
	    sw->tmpl_read_pct != ss->read_pct || sw->tmpl_bs != ss->block_size)
		swarm_record_templates(sw, ss->ops_per_interval, ss->rw, ss->read_pct,
		                       ss->block_size);
	if (ss->tick == NULL)
		ss->tick = event_new(sw->base, -1, 0, swarm_tick_cb, ss);
	ss->stepping = true;
	swarm_arm(ss);
}

static void swarm_on_message(struct conn *c, Iocurve__Envelope *env, void *arg)
{
	struct swarm_session *ss = arg;

	switch (env->body_case) {
	case IOCURVE__ENVELOPE__BODY_WELCOME:
		ss->welcomed = true;
		ss->sw->st.welcomed++;
		ss->sw->dialing--;
		conn_set_idle_timeout_ms(ss->conn, 10000);
		swarm_heartbeat_every(ss->sw, env->welcome->heartbeat_ms);
		for (unsigned k = 0; ss->index == 0 && k < ss->sw->o.hellos; k++)
			swarm_hello(ss); /* a certified agent flooding the log */
		if (ss->stall)
			conn_stop_reading(ss->conn);
		break;
	case IOCURVE__ENVELOPE__BODY_REFUSE:
		log_error("%s refused: %s", ss->name, env->refuse->reason);
		ss->sw->st.refused++;
		break;
	case IOCURVE__ENVELOPE__BODY_PING:
		swarm_pong(ss, env->ping, conn_heard_ns(c));
		break;
	case IOCURVE__ENVELOPE__BODY_PREPARE:
		swarm_ready(ss, env->prepare);
		break;
	case IOCURVE__ENVELOPE__BODY_START_STEP:
		if (ss->bg_prepared && env->start_step->workload_index == ss->bg_workload)
			swarm_bg_start(ss, env->start_step);
		else
			swarm_start_step(ss, env->start_step);
		break;
	case IOCURVE__ENVELOPE__BODY_END_STEP:
		if (ss->stepping && env->end_step->step == ss->step)
			swarm_step_done(ss);
		break;
	case IOCURVE__ENVELOPE__BODY_END_WORKLOAD:
		if (ss->bg_prepared && env->end_workload->workload_index == ss->bg_workload) {
			swarm_bg_stop(ss);
			ss->bg_prepared = false;
			break;
		}
		if (ss->stepping) {
			ss->stepping = false;
			event_del(ss->tick);
		}
		break;
	case IOCURVE__ENVELOPE__BODY_ABORT:
		swarm_bg_stop(ss);
		if (ss->stepping) {
			ss->stepping = false;
			event_del(ss->tick);
		}
		break;
	default:
		break;
	}
}

static void swarm_on_connected(struct conn *c, void *arg)
{
	(void)c;
	swarm_hello(arg);
}

static void swarm_on_close(struct conn *c, const char *reason, void *arg)
{
	struct swarm_session *ss = arg;

	(void)c;
	ss->conn = NULL;
	if (!ss->welcomed) {
		ss->sw->dialing--;
		log_error("%s: closed before Welcome: %s", ss->name, reason);
	} else {
		log_warn("%s: closed: %s", ss->name, reason);
	}
	ss->sw->st.lost++;
	ss->stepping = false;
	if (ss->tick != NULL)
		event_del(ss->tick);
	swarm_bg_stop(ss);
}

static const struct conn_cbs swarm_conn_cbs = {
    .on_connected = swarm_on_connected,
    .on_message = swarm_on_message,
    .on_close = swarm_on_close,
};

void swarm_session_dial(struct swarm_session *ss)
{
	struct swarm *sw = ss->sw;

	ss->conn = conn_connect(sw->base, ss->ctx, (struct sockaddr *)&sw->addr, (int)sw->addrlen,
	                        sw->o.coordinator, &swarm_conn_cbs, ss);
	if (ss->conn == NULL) {
		log_error("%s: cannot dial %s: %s", ss->name, sw->o.coordinator, strerror(errno));
		sw->st.lost++;
		return;
	}
	sw->dialing++;
}

void swarm_session_free(struct swarm_session *ss)
{
	if (ss->conn != NULL)
		conn_abort(ss->conn);
	if (ss->tick != NULL)
		event_free(ss->tick);
	if (ss->bg_tick != NULL)
		event_free(ss->bg_tick);
	SSL_CTX_free(ss->ctx);
}
