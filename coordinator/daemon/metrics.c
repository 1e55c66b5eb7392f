/* SPDX-License-Identifier: MIT */
/* /metrics: agents, campaign state, the current step's figures and the knees, for Prometheus. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "frame.h"
#include "httpget.h"
#include "metrics.h"
#include "netaddr.h"
#include "xalloc.h"

struct metrics_knee {
	uint32_t id;
	char workload[128];
	char unit[16];
	enum event_knee_kind kind;
	double knee;
	double peak;
};

struct metrics {
	struct httpget *http;
	struct server *srv;
	struct daemon *d;
	uint32_t id; /* campaign of the figures below */
	double ops_s, mib_s, mean_us, p99_us, offered;
	double steps_done;
	struct metrics_knee *knees;
	size_t nknees;
};

void metrics_event(void *arg, uint32_t id, const struct event *e)
{
	struct metrics *m = arg;
	struct metrics_knee *k;

	switch (e->kind) {
	case EVENT_STEP:
		m->id = id;
		m->offered = e->step.offered_ops;
		break;
	case EVENT_INTERVAL:
		if (strcmp(e->interval.agent, EVENT_FLEET) != 0)
			break;
		m->id = id;
		m->ops_s = e->interval.ops_s;
		m->mib_s = e->interval.mib_s;
		m->mean_us = e->interval.mean_us;
		m->p99_us = e->interval.p99_us;
		break;
	case EVENT_POINT:
		m->steps_done++;
		break;
	case EVENT_WORKLOAD_DONE:
		m->knees = xreallocarray(m->knees, m->nknees + 1, sizeof(*m->knees));
		k = &m->knees[m->nknees++];
		k->id = id;
		snprintf(k->workload, sizeof(k->workload), "%s", e->workload_done.name);
		snprintf(k->unit, sizeof(k->unit), "%s", event_unit_name(e->workload_done.unit));
		k->kind = e->workload_done.knee.kind;
		k->knee = e->workload_done.knee.tp;
		k->peak = e->workload_done.peak_tp;
		break;
	default:
		break;
	}
}

/* A label value as the exposition format wants it: \\, \" and \n escaped. */
static const char *metrics_label(const char *v, char *buf, size_t len)
{
	size_t o = 0;

	for (; *v != '\0' && o + 3 < len; v++) {
		if (*v == '\\' || *v == '"' || *v == '\n')
			buf[o++] = '\\';
		buf[o++] = *v == '\n' ? 'n' : *v;
	}
	buf[o] = '\0';
	return buf;
}

/* One family's header: every family has its HELP and TYPE, once, before its samples. */
static void metrics_family(struct evbuffer *b, const char *name, const char *type, const char *help)
{
	evbuffer_add_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/*
 * The knees and peaks of finished workloads, one family each. A knee above the
 * highest step (every valid step met the SLO) is a lower bound: bound="lower"
 * says so; a workload with no knee has no knee sample.
 */
static void metrics_knees(const struct metrics *m, struct evbuffer *b)
{
	char w[300];

	if (m->nknees == 0)
		return;
	metrics_family(b, "iocurve_knee", "gauge",
	               "Throughput at the latency SLO of a finished workload, in its unit "
	               "(ops/s or MiB/s); bound=\"lower\" when every valid step met the SLO.");
	for (size_t i = 0; i < m->nknees; i++) {
		const struct metrics_knee *k = &m->knees[i];

		if (k->kind == EVENT_KNEE_NONE)
			continue;
		evbuffer_add_printf(b,
		                    "iocurve_knee{campaign=\"%u\",workload=\"%s\",unit=\"%s\","
		                    "kind=\"%s\",bound=\"%s\"} %.1f\n",
		                    k->id, metrics_label(k->workload, w, sizeof(w)), k->unit,
		                    event_knee_kind_name(k->kind),
		                    k->kind == EVENT_KNEE_ABOVE_PEAK ? "lower" : "exact", k->knee);
	}
	metrics_family(b, "iocurve_peak", "gauge",
	               "Highest throughput any step of a finished workload achieved, in its unit.");
	for (size_t i = 0; i < m->nknees; i++)
		evbuffer_add_printf(
		    b, "iocurve_peak{campaign=\"%u\",workload=\"%s\",unit=\"%s\"} %.1f\n",
		    m->knees[i].id, metrics_label(m->knees[i].workload, w, sizeof(w)),
		    m->knees[i].unit, m->knees[i].peak);
}

/*
 * The agent port's frames by kind, each way: what the coordinator's CPU per report is
 * spent on (a report in, a heartbeat out, the clock's Pings and Pongs).
 */
static void metrics_frames(struct evbuffer *b, const struct server *srv)
{
	metrics_family(b, "iocurve_agent_frames_total", "counter",
	               "Frames the agent port read from agents (direction=\"in\") and queued "
	               "for them (\"out\"), by message.");
	for (unsigned out = 0; out < 2; out++)
		for (unsigned k = 0; k < SERVER_FRAME_KINDS; k++) {
			uint64_t n = server_frames(srv, out, k);

			if (n > 0)
				evbuffer_add_printf(b,
				                    "iocurve_agent_frames_total{direction=\"%s\","
				                    "kind=\"%s\"} %llu\n",
				                    out ? "out" : "in",
				                    k ? frame_body_case_name(k) : "other",
				                    (unsigned long long)n);
		}
}

static int metrics_cb(const char *path, struct evbuffer *b, void *arg)
{
	struct metrics *m = arg;
	size_t n, connected = 0, busy = 0;
	const struct server_agent *ag = server_agents(m->srv, &n);

	if (strcmp(path, "/metrics") != 0)
		return 404;
	for (size_t i = 0; i < n; i++) {
		connected += ag[i].s != NULL;
		busy += ag[i].s != NULL && session_owner(ag[i].s) != NULL;
	}
	metrics_family(b, "iocurve_agents_connected", "gauge",
	               "Agents connected to the coordinator.");
	evbuffer_add_printf(b, "iocurve_agents_connected %zu\n", connected);
	metrics_family(b, "iocurve_agents_busy", "gauge", "Agents running a campaign.");
	evbuffer_add_printf(b, "iocurve_agents_busy %zu\n", busy);
	metrics_family(b, "iocurve_campaigns_active", "gauge", "Campaigns running or queued.");
	evbuffer_add_printf(b, "iocurve_campaigns_active %u\n", daemon_active(m->d));
	metrics_family(b, "iocurve_steps_completed_total", "counter",
	               "Steps measured since start.");
	evbuffer_add_printf(b, "iocurve_steps_completed_total %.0f\n", m->steps_done);
	metrics_frames(b, m->srv);
	if (m->id != 0) {
		metrics_family(
		    b, "iocurve_step_offered_ops", "gauge",
		    "Offered rate of the current step in ops/s (0: as fast as it goes).");
		evbuffer_add_printf(b, "iocurve_step_offered_ops{campaign=\"%u\"} %.1f\n", m->id,
		                    m->offered);
		metrics_family(b, "iocurve_step_achieved_ops", "gauge",
		               "Achieved ops/s of the fleet in the last interval.");
		evbuffer_add_printf(b, "iocurve_step_achieved_ops{campaign=\"%u\"} %.1f\n", m->id,
		                    m->ops_s);
		metrics_family(b, "iocurve_step_mibps", "gauge",
		               "Achieved MiB/s of the fleet in the last interval.");
		evbuffer_add_printf(b, "iocurve_step_mibps{campaign=\"%u\"} %.3f\n", m->id,
		                    m->mib_s);
		/*
		 * A percentile of one interval, not a summary: Prometheus reserves the
		 * quantile label for summaries (with _sum and _count over all time), and
		 * promtool refuses it on a gauge, so the label is percentile.
		 */
		metrics_family(b, "iocurve_step_latency_seconds", "gauge",
		               "Latency percentile of the fleet in the last interval, from each "
		               "operation's intended start.");
		evbuffer_add_printf(
		    b, "iocurve_step_latency_seconds{campaign=\"%u\",percentile=\"99\"} %.9f\n",
		    m->id, m->p99_us / 1e6);
		metrics_family(b, "iocurve_step_latency_mean_seconds", "gauge",
		               "Mean latency of the fleet in the last interval.");
		evbuffer_add_printf(b, "iocurve_step_latency_mean_seconds{campaign=\"%u\"} %.9f\n",
		                    m->id, m->mean_us / 1e6);
	}
	metrics_knees(m, b);
	return 200;
}

struct metrics *metrics_new(struct event_base *base, const char *listen, struct server *srv,
                            struct daemon *d, struct error *err)
{
	struct metrics *m = xcalloc(1, sizeof(*m));
	char host[256];
	const char *colon = strrchr(listen, ':');
	long port = colon ? strtol(colon + 1, NULL, 10) : -1;
	int hl = colon ? (int)(colon - listen) : 0;

	if (colon == NULL || port <= 0 || port > 65535) {
		error_set(err, "--metrics %s: expected HOST:PORT", listen);
		free(m);
		return NULL;
	}
	if (hl >= 2 && listen[0] == '[' && listen[hl - 1] == ']') /* [::1]:9100 */
		snprintf(host, sizeof(host), "%.*s", hl - 2, listen + 1);
	else
		snprintf(host, sizeof(host), "%.*s", hl, listen);
	m->srv = srv;
	m->d = d;
	/*
	 * ":PORT" is this host only: exposing the figures to a network is said explicitly.
	 * A scrape is one short GET: deadline, cap and eviction are httpget's.
	 */
	m->http = httpget_new(base, host[0] ? host : "127.0.0.1", (uint16_t)port, "metrics",
	                      "text/plain; version=0.0.4", metrics_cb, m, err);
	if (m->http == NULL) {
		free(m);
		return NULL;
	}
	return m;
}

void metrics_free(struct metrics *m)
{
	if (m == NULL)
		return;
	httpget_free(m->http);
	free(m->knees);
	free(m);
}
