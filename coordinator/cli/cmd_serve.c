/* SPDX-License-Identifier: MIT */
/* iocurve serve: the coordinator daemon: agent port, control socket, campaign queue, /metrics. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "certs.h"
#include "cmd.h"
#include "control.h"
#include "daemon.h"
#include "log.h"
#include "metrics.h"
#include "server.h"
#include "tls.h"
#include "units.h"

/* How long a shutdown waits for the running campaign to abort and flush. */
#define SERVE_DRAIN_TICKS 100 /* x 100 ms */

struct serve_ctx {
	struct event_base *base;
	SSL_CTX *ssl;
	struct server *srv;
	struct daemon *daemon;
	struct metrics *metrics;
	struct event *drain_ev;
	int ticks;
};

static void serve_drain_cb(evutil_socket_t fd, short what, void *arg)
{
	struct serve_ctx *ctx = arg;

	if (daemon_idle(ctx->daemon) || ++ctx->ticks >= SERVE_DRAIN_TICKS)
		event_base_loopexit(ctx->base, NULL);
}

static void serve_signal_cb(evutil_socket_t sig, short what, void *arg)
{
	struct serve_ctx *ctx = arg;
	char why[64];

	if (ctx->drain_ev != NULL)
		return;
	log_info("%s: shutting down", strsignal((int)sig));
	snprintf(why, sizeof(why), "the daemon is shutting down (%s)", strsignal((int)sig));
	daemon_shutdown(ctx->daemon, why);
	/* Give the campaign a moment to tell its agents and flush its results. */
	ctx->drain_ev = event_new(ctx->base, -1, EV_PERSIST, serve_drain_cb, ctx);
	event_add(ctx->drain_ev, &(struct timeval){0, 100 * 1000});
}

static void serve_usage(FILE *f)
{
	fprintf(f, "usage: iocurve serve %s\n", cmd_serve_entry.usage);
}

static int serve_exec(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"listen", required_argument, NULL, 'l'},
	    {"tls", required_argument, NULL, 't'},
	    {"control", required_argument, NULL, 'c'},
	    {"results", required_argument, NULL, 'r'},
	    {"metrics", required_argument, NULL, 'm'},
	    {"max-frame", required_argument, NULL, 'F'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *listen = NULL, *tls_dir = NULL, *control = NULL, *results = "iocurve-results";
	const char *metrics = NULL;
	struct serve_ctx ctx = {0};
	struct event *sigs[2];
	char defpath[256];
	struct error err;
	int c, rc = 1, verbose = 0;
	uint64_t max_frame = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "l:t:c:r:m:F:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			listen = optarg;
			break;
		case 't':
			tls_dir = optarg;
			break;
		case 'c':
			control = optarg;
			break;
		case 'r':
			results = optarg;
			break;
		case 'm':
			metrics = optarg;
			break;
		case 'F':
			if (units_parse_size(optarg, &max_frame, &err) < 0 || max_frame < 1024 ||
			    max_frame > (1u << 30)) {
				fprintf(stderr,
				        "iocurve serve: --max-frame %s: expected a size from "
				        "1KiB to 1GiB\n",
				        optarg);
				return 2;
			}
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			serve_usage(stdout);
			return 0;
		default:
			serve_usage(stderr);
			return 2;
		}
	}
	if (optind != argc || listen == NULL || tls_dir == NULL) {
		serve_usage(stderr);
		return 2;
	}
	if (control == NULL) {
		char dir[sizeof(defpath)], *slash;

		control = control_default_path(defpath, sizeof(defpath));
		/* /run/iocurve may not exist yet: make it, private to this user. */
		snprintf(dir, sizeof(dir), "%s", control);
		slash = strrchr(dir, '/');
		if (slash != NULL && slash != dir) {
			*slash = '\0';
			mkdir(dir, 0700);
		}
	}
	log_init("iocurve-serve", verbose ? LOG_LEVEL_DEBUG : LOG_LEVEL_INFO);
	signal(SIGPIPE, SIG_IGN);
	ctx.ssl = tls_ctx_new(tls_dir, CERTS_COORDINATOR_NAME, true, &err);
	if (ctx.ssl == NULL) {
		log_error("%s", err.msg);
		return 1;
	}
	ctx.base = event_base_new();
	ctx.srv = server_new(ctx.base, ctx.ssl, listen, &err);
	if (ctx.srv == NULL)
		goto fail;
	if (max_frame)
		server_set_max_frame(ctx.srv, (size_t)max_frame);
	ctx.daemon = daemon_new(ctx.base, ctx.srv, results);
	if (daemon_listen(ctx.daemon, control, &err) < 0)
		goto fail;
	log_info("control socket %s (0600); results under %s/", control, results);
	if (metrics != NULL) {
		ctx.metrics = metrics_new(ctx.base, metrics, ctx.srv, ctx.daemon, &err);
		if (ctx.metrics == NULL)
			goto fail;
		daemon_observe(ctx.daemon, metrics_event, ctx.metrics);
		log_info("metrics on http://%s/metrics", metrics);
	}
	sigs[0] = evsignal_new(ctx.base, SIGINT, serve_signal_cb, &ctx);
	sigs[1] = evsignal_new(ctx.base, SIGTERM, serve_signal_cb, &ctx);
	event_add(sigs[0], NULL);
	event_add(sigs[1], NULL);
	event_base_dispatch(ctx.base);
	event_free(sigs[0]);
	event_free(sigs[1]);
	rc = 0;
	goto out;
fail:
	log_error("%s", err.msg);
out:
	if (ctx.drain_ev != NULL)
		event_free(ctx.drain_ev);
	metrics_free(ctx.metrics);
	daemon_free(ctx.daemon);
	server_free(ctx.srv);
	event_base_loop(ctx.base, EVLOOP_NONBLOCK);
	event_base_free(ctx.base);
	SSL_CTX_free(ctx.ssl);
	log_info("stopped");
	return rc;
}

const struct cmd_entry cmd_serve_entry = {
    .name = "serve",
    .usage = "--listen HOST:PORT --tls DIR [--control PATH] [--results DIR] [--metrics "
             "HOST:PORT] [--max-frame SIZE] [--verbose]",
    .help = "the coordinator daemon: agents dial in, campaigns come through the control socket",
    .exec = serve_exec,
};
