/* SPDX-License-Identifier: MIT */
/* /metrics: agents, campaign state, the current step's figures and the knees, for Prometheus. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/http.h>

#include "listenpause.h"
#include "metrics.h"
#include "netaddr.h"
#include "xalloc.h"

#define METRICS_MAX_HEADERS 8192 /* request line and headers together */
#define METRICS_TIMEOUT_S   5    /* to read a request, or write the answer */

struct metrics_knee {
	uint32_t id;
	char workload[128];
	char unit[16];
	double knee;
	double peak;
};

struct metrics {
	struct evhttp *http;
	struct listenpause *pause;
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
		k->knee = e->workload_done.knee.tp;
		k->peak = e->workload_done.peak_tp;
		break;
	default:
		break;
	}
}

static void metrics_cb(struct evhttp_request *req, void *arg)
{
	struct metrics *m = arg;
	struct evbuffer *b = evbuffer_new();
	size_t n, connected = 0, busy = 0;
	const struct server_agent *ag = server_agents(m->srv, &n);

	for (size_t i = 0; i < n; i++) {
		connected += ag[i].s != NULL;
		busy += ag[i].s != NULL && session_owner(ag[i].s) != NULL;
	}
	evbuffer_add_printf(b,
	                    "# HELP iocurve_agents_connected Agents connected to the coordinator.\n"
	                    "# TYPE iocurve_agents_connected gauge\n"
	                    "iocurve_agents_connected %zu\n"
	                    "# HELP iocurve_agents_busy Agents running a campaign.\n"
	                    "# TYPE iocurve_agents_busy gauge\n"
	                    "iocurve_agents_busy %zu\n"
	                    "# HELP iocurve_campaigns_active Campaigns running or queued.\n"
	                    "# TYPE iocurve_campaigns_active gauge\n"
	                    "iocurve_campaigns_active %u\n"
	                    "# HELP iocurve_steps_completed_total Steps measured since start.\n"
	                    "# TYPE iocurve_steps_completed_total counter\n"
	                    "iocurve_steps_completed_total %.0f\n",
	                    connected, busy, daemon_active(m->d), m->steps_done);
	if (m->id != 0) {
		evbuffer_add_printf(
		    b,
		    "# HELP iocurve_step_offered_ops Offered rate of the current step (0: max).\n"
		    "# TYPE iocurve_step_offered_ops gauge\n"
		    "iocurve_step_offered_ops{campaign=\"%u\"} %.1f\n"
		    "# HELP iocurve_step_achieved_ops Achieved ops/s in the last interval.\n"
		    "# TYPE iocurve_step_achieved_ops gauge\n"
		    "iocurve_step_achieved_ops{campaign=\"%u\"} %.1f\n"
		    "# HELP iocurve_step_mibps Achieved MiB/s in the last interval.\n"
		    "# TYPE iocurve_step_mibps gauge\n"
		    "iocurve_step_mibps{campaign=\"%u\"} %.3f\n"
		    "# HELP iocurve_step_latency_seconds Latency in the last interval.\n"
		    "# TYPE iocurve_step_latency_seconds gauge\n"
		    "iocurve_step_latency_seconds{campaign=\"%u\",quantile=\"mean\"} %.9f\n"
		    "iocurve_step_latency_seconds{campaign=\"%u\",quantile=\"0.99\"} %.9f\n",
		    m->id, m->offered, m->id, m->ops_s, m->id, m->mib_s, m->id, m->mean_us / 1e6,
		    m->id, m->p99_us / 1e6);
	}
	if (m->nknees)
		evbuffer_add_printf(
		    b, "# HELP iocurve_knee Throughput at the latency SLO of finished "
		       "workloads (unit: ops/s or MiB/s).\n# TYPE iocurve_knee gauge\n");
	for (size_t i = 0; i < m->nknees; i++)
		evbuffer_add_printf(
		    b,
		    "iocurve_knee{campaign=\"%u\",workload=\"%s\",unit=\"%s\"} %.1f\n"
		    "iocurve_peak{campaign=\"%u\",workload=\"%s\",unit=\"%s\"} %.1f\n",
		    m->knees[i].id, m->knees[i].workload, m->knees[i].unit, m->knees[i].knee,
		    m->knees[i].id, m->knees[i].workload, m->knees[i].unit, m->knees[i].peak);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
	                  "text/plain; version=0.0.4");
	evhttp_send_reply(req, HTTP_OK, "OK", b);
	evbuffer_free(b);
}

struct metrics *metrics_new(struct event_base *base, const char *listen, struct server *srv,
                            struct daemon *d, struct error *err)
{
	struct metrics *m = xcalloc(1, sizeof(*m));
	struct evhttp_bound_socket *bound;
	char host[256];
	const char *colon = strrchr(listen, ':');
	long port = colon ? strtol(colon + 1, NULL, 10) : -1;

	if (colon == NULL || port <= 0 || port > 65535) {
		error_set(err, "--metrics %s: expected HOST:PORT", listen);
		free(m);
		return NULL;
	}
	snprintf(host, sizeof(host), "%.*s", (int)(colon - listen), listen);
	m->srv = srv;
	m->d = d;
	m->http = evhttp_new(base);
	/* ":PORT" is this host only: exposing the figures to a network is said explicitly. */
	bound = evhttp_bind_socket_with_handle(m->http, host[0] ? host : "127.0.0.1",
	                                       (ev_uint16_t)port);
	if (bound == NULL) {
		error_set(err, "--metrics %s: cannot listen", listen);
		evhttp_free(m->http);
		free(m);
		return NULL;
	}
	m->pause = listenpause_new(base, evhttp_bound_socket_get_listener(bound), "metrics", 1000);
	/* A scrape is one short GET: no endless headers, no body, no slow senders. */
	evhttp_set_max_headers_size(m->http, METRICS_MAX_HEADERS);
	evhttp_set_max_body_size(m->http, 0);
	evhttp_set_timeout(m->http, METRICS_TIMEOUT_S);
	evhttp_set_allowed_methods(m->http, EVHTTP_REQ_GET);
	evhttp_set_cb(m->http, "/metrics", metrics_cb, m);
	return m;
}

void metrics_free(struct metrics *m)
{
	if (m == NULL)
		return;
	evhttp_free(m->http);
	listenpause_free(m->pause);
	free(m->knees);
	free(m);
}
