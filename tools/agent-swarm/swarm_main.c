/* SPDX-License-Identifier: MIT */
/*
 * iocurve-agent-swarm: N agent sessions against one coordinator, from one process.
 *
 *   iocurve-agent-swarm --coordinator HOST:PORT --tls DIR --agents N [--watch RESULTS]
 *
 * DIR is the coordinator's certificate directory (iocurve certs init): the swarm
 * issues PREFIX-NNNNN.{crt,key} there for the sessions that have none. On SIGTERM,
 * SIGINT or after --duration it prints what it did as "key: value" lines.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "caps.h"
#include "certs.h"
#include "clock.h"
#include "conn.h"
#include "error.h"
#include "log.h"
#include "netaddr.h"
#include "swarm.h"
#include "tls.h"
#include "xalloc.h"

/* Dials a batch this often, keeping at most dial_parallel handshakes in flight. */
#define SWARM_DIAL_MS 2

static void swarm_usage(FILE *f)
{
	fprintf(
	    f, "usage: iocurve-agent-swarm --coordinator HOST:PORT --tls DIR --agents N [OPTIONS]\n"
	       "many agent sessions in one process, reporting synthetic intervals (no I/O)\n\n"
	       "  -c, --coordinator HOST:PORT  the coordinator's agent port (required)\n"
	       "  -t, --tls DIR                its certificate directory, with ca.key: the\n"
	       "                               swarm issues the certificates it lacks (required)\n"
	       "  -n, --agents N               sessions (required)\n"
	       "  -p, --prefix NAME            agent names NAME-00000... (default swarm)\n"
	       "  -P, --dial-parallel N        handshakes in flight at once (default 24)\n"
	       "  -m, --median-us US           median latency of the reports (default 500)\n"
	       "  -s, --sigma S                spread of log latency (default 0.6: ~300 bins)\n"
	       "  -S, --stall N                the first N sessions stop reading after Welcome\n"
	       "  -w, --watch DIR              a results directory: time each merged interval\n"
	       "  -d, --duration SECONDS       exit after this long (default: at SIGTERM)\n"
	       "  -x, --set FIELD=VALUE        force one field of every report: the first --set\n"
	       "                               is session 0's, the next session 1's... (max, min,\n"
	       "                               -1, 1e308, nan, inf; see swarm_set.c)\n"
	       "  -M, --mutate N               the N sessions after the --set ones flip 1 to 4\n"
	       "                               random bits of every report they send\n"
	       "  -W, --without CAPABILITY     leave it out of Hello (kinds, wakes...: caps.c),\n"
	       "                               its fields sent still, as a lying agent would\n"
	       "  -R, --bg-repeat N            session 0 sends each background report N times\n"
	       "  -H, --hellos N               session 0 sends N more Hellos after its Welcome\n");
}

/* --without NAME: the capability named in caps_known left out of the sessions' Hello. */
static int swarm_without(struct swarm_opts *o, const char *name)
{
	for (size_t i = 0; i < caps_nknown; i++)
		if (strcmp(caps_known[i].name, name) == 0) {
			o->caps &= ~caps_known[i].bit;
			return 0;
		}
	return -1;
}

static int swarm_parse(struct swarm_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"coordinator", required_argument, NULL, 'c'},
	    {"tls", required_argument, NULL, 't'},
	    {"agents", required_argument, NULL, 'n'},
	    {"prefix", required_argument, NULL, 'p'},
	    {"dial-parallel", required_argument, NULL, 'P'},
	    {"median-us", required_argument, NULL, 'm'},
	    {"sigma", required_argument, NULL, 's'},
	    {"stall", required_argument, NULL, 'S'},
	    {"watch", required_argument, NULL, 'w'},
	    {"duration", required_argument, NULL, 'd'},
	    {"set", required_argument, NULL, 'x'},
	    {"mutate", required_argument, NULL, 'M'},
	    {"bg-repeat", required_argument, NULL, 'R'},
	    {"hellos", required_argument, NULL, 'H'},
	    {"without", required_argument, NULL, 'W'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	*o = (struct swarm_opts){.prefix = "swarm",
	                         .dial_parallel = 24,
	                         .median_us = 500,
	                         .sigma = 0.6,
	                         .caps = CAPS_OURS};
	while ((c = getopt_long(argc, argv, "c:t:n:p:P:m:s:S:w:d:x:M:W:R:H:h", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'c':
			o->coordinator = optarg;
			break;
		case 't':
			o->tls_dir = optarg;
			break;
		case 'n':
			o->agents = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'p':
			o->prefix = optarg;
			break;
		case 'P':
			o->dial_parallel = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'm':
			o->median_us = strtod(optarg, NULL);
			break;
		case 's':
			o->sigma = strtod(optarg, NULL);
			break;
		case 'S':
			o->stall = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'w':
			o->watch = optarg;
			break;
		case 'd':
			o->duration_s = strtod(optarg, NULL);
			break;
		case 'R':
			o->bg_repeat = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'H':
			o->hellos = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'M':
			o->mutate = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'W':
			if (swarm_without(o, optarg) < 0) {
				fprintf(stderr,
				        "iocurve-agent-swarm: --without %s: no such capability\n",
				        optarg);
				return -1;
			}
			break;
		case 'x':
			o->sets = xreallocarray(o->sets, o->nsets + 1, sizeof(*o->sets));
			if (swarm_set_parse(&o->sets[o->nsets++], optarg) < 0) {
				fprintf(stderr,
				        "iocurve-agent-swarm: --set %s: no such field or value\n",
				        optarg);
				return -1;
			}
			break;
		case 'h':
			swarm_usage(stdout);
			exit(0);
		default:
			swarm_usage(stderr);
			return -1;
		}
	}
	if (o->coordinator == NULL || o->tls_dir == NULL || o->agents == 0 ||
	    o->dial_parallel == 0 || o->median_us <= 0 || o->sigma < 0) {
		swarm_usage(stderr);
		return -1;
	}
	return 0;
}

/* Each session's certificate, issued when missing, and its TLS context. */
static int swarm_setup(struct swarm *sw, struct error *err)
{
	struct rlimit rl;

	/* Two descriptors a session at most; take what the hard limit allows. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	sw->s = xcalloc(sw->o.agents, sizeof(*sw->s));
	for (unsigned i = 0; i < sw->o.agents; i++) {
		struct swarm_session *ss = &sw->s[i];
		char crt[4096];
		struct stat st;

		ss->sw = sw;
		ss->index = i;
		ss->stall = i < sw->o.stall;
		snprintf(ss->name, sizeof(ss->name), "%s-%05u", sw->o.prefix, i);
		snprintf(crt, sizeof(crt), "%s/%s.crt", sw->o.tls_dir, ss->name);
		if (stat(crt, &st) != 0 && certs_issue_agent(sw->o.tls_dir, ss->name, err) < 0)
			return -1;
		if ((ss->ctx = tls_ctx_new(sw->o.tls_dir, ss->name, false, err)) == NULL)
			return -1;
	}
	return 0;
}

static void swarm_dial_cb(evutil_socket_t fd, short what, void *arg)
{
	struct swarm *sw = arg;

	(void)fd;
	(void)what;
	while (sw->next_dial < sw->o.agents && sw->dialing < sw->o.dial_parallel)
		swarm_session_dial(&sw->s[sw->next_dial++]);
	if (sw->next_dial == sw->o.agents)
		event_del(sw->dial_ev);
}

static void swarm_heartbeat_cb(evutil_socket_t fd, short what, void *arg)
{
	struct swarm *sw = arg;

	uint64_t now = clock_now_ns();

	(void)fd;
	(void)what;
	for (unsigned i = 0; i < sw->o.agents; i++)
		swarm_session_heartbeat(&sw->s[i], now);
}

static void swarm_report_cb(evutil_socket_t fd, short what, void *arg)
{
	struct swarm *sw = arg;

	(void)fd;
	(void)what;
	fprintf(stderr, "swarm: %u/%u welcomed, %u lost, %llu reports, %llu steps done\n",
	        sw->st.welcomed, sw->o.agents, sw->st.lost, (unsigned long long)sw->st.reports,
	        (unsigned long long)sw->st.steps_done);
}

static void swarm_stop_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	event_base_loopexit(((struct swarm *)arg)->base, NULL);
}

static void swarm_print(struct swarm *sw)
{
	printf("agents: %u\nwelcomed: %u\nlost: %u\nrefused: %u\nreports: %llu\n", sw->o.agents,
	       sw->st.welcomed, sw->st.lost, sw->st.refused, (unsigned long long)sw->st.reports);
	printf("report_frame_bytes: %.0f\nsteps_done: %llu\n",
	       sw->st.reports ? (double)sw->st.report_bytes / (double)sw->st.reports : 0.0,
	       (unsigned long long)sw->st.steps_done);
	if (sw->watch != NULL)
		swarm_watch_print(sw->watch);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct swarm sw = {.seed = 0x9e3779b97f4a7c15ull, .heartbeat_ms = 1000};
	struct error err;

	if (swarm_parse(&sw.o, argc, argv) < 0)
		return 2;
	log_init("iocurve-agent-swarm", LOG_LEVEL_WARN);
	signal(SIGPIPE, SIG_IGN);
	if (netaddr_parse(sw.o.coordinator, &sw.addr, &sw.addrlen, &err) < 0 ||
	    swarm_setup(&sw, &err) < 0) {
		fprintf(stderr, "iocurve-agent-swarm: %s\n", err.msg);
		return 1;
	}
	fprintf(stderr, "swarm: %u certificates ready; dialing\n", sw.o.agents);
	sw.base = conn_base_new();
	if (sw.o.watch != NULL && (sw.watch = swarm_watch_new(sw.base, sw.o.watch)) == NULL)
		return 1;
	sw.dial_ev = event_new(sw.base, -1, EV_PERSIST, swarm_dial_cb, &sw);
	event_add(sw.dial_ev, &(struct timeval){0, SWARM_DIAL_MS * 1000});
	sw.hb_ev = event_new(sw.base, -1, EV_PERSIST, swarm_heartbeat_cb, &sw);
	event_add(sw.hb_ev,
	          &(struct timeval){(time_t)(swarm_heartbeat_tick_ms(&sw) / 1000),
	                            (suseconds_t)(swarm_heartbeat_tick_ms(&sw) % 1000) * 1000});
	sw.report_ev = event_new(sw.base, -1, EV_PERSIST, swarm_report_cb, &sw);
	event_add(sw.report_ev, &(struct timeval){5, 0});
	sw.term_ev = evsignal_new(sw.base, SIGTERM, swarm_stop_cb, &sw);
	sw.int_ev = evsignal_new(sw.base, SIGINT, swarm_stop_cb, &sw);
	event_add(sw.term_ev, NULL);
	event_add(sw.int_ev, NULL);
	if (sw.o.duration_s > 0) {
		sw.stop_ev = evtimer_new(sw.base, swarm_stop_cb, &sw);
		event_add(
		    sw.stop_ev,
		    &(struct timeval){
		        (time_t)sw.o.duration_s,
		        (suseconds_t)((sw.o.duration_s - (double)(time_t)sw.o.duration_s) * 1e6)});
	}
	event_base_dispatch(sw.base);
	swarm_print(&sw);
	for (unsigned i = 0; i < sw.o.agents; i++)
		swarm_session_free(&sw.s[i]);
	free(sw.s);
	swarm_record_free(&sw);
	swarm_watch_free(sw.watch);
	event_free(sw.dial_ev);
	event_free(sw.hb_ev);
	event_free(sw.report_ev);
	event_free(sw.term_ev);
	event_free(sw.int_ev);
	if (sw.stop_ev != NULL)
		event_free(sw.stop_ev);
	event_base_free(sw.base);
	return 0;
}
