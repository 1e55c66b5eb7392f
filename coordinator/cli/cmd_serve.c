/* SPDX-License-Identifier: MIT */
/* iocurve serve: the coordinator daemon: agent port, control socket, campaign queue, /metrics. */
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "conn.h"
#include "cmd.h"
#include "control.h"
#include "daemon.h"
#include "frame.h"
#include "fsutil.h"
#include "host.h"
#include "log.h"
#include "metrics.h"

/* How long a shutdown waits for the running campaign to abort and flush. */
#define SERVE_DRAIN_TICKS 100 /* x 100 ms */

struct serve_ctx {
	struct event_base *base;
	struct host *host;
	struct metrics *metrics;
	struct event *drain_ev;
	int ticks;
};

static void serve_drain_cb(evutil_socket_t fd, short what, void *arg)
{
	struct serve_ctx *ctx = arg;

	if (daemon_idle(host_daemon(ctx->host)) || ++ctx->ticks >= SERVE_DRAIN_TICKS)
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
	daemon_shutdown(host_daemon(ctx->host), why);
	/* Give the campaign a moment to tell its agents and flush its results. */
	ctx->drain_ev = event_new(ctx->base, -1, EV_PERSIST, serve_drain_cb, ctx);
	event_add(ctx->drain_ev, &(struct timeval){0, 100 * 1000});
}

/* SIGHUP: read the revocation list again; a bad one leaves the old one in force. */
static void serve_hup_cb(evutil_socket_t sig, short what, void *arg)
{
	struct serve_ctx *ctx = arg;
	struct error err;

	if (host_reload_revoked(ctx->host, &err) < 0)
		log_error("%s; the previous revocation list stays in force", err.msg);
}

/* --heartbeat, --heartbeat-misses and --dead-man, told to agents in Welcome. */
static int serve_liveness(const struct args *a, struct server_liveness *live, struct error *err)
{
	uint64_t hb = SERVER_HEARTBEAT_MS * NSEC_PER_MSEC, dm = SERVER_DEADMAN_MS * NSEC_PER_MSEC;
	uint64_t misses = SERVER_MISSES;

	if (args_get_duration(a, "heartbeat", 100 * NSEC_PER_MSEC, 60 * NSEC_PER_SEC, &hb, err) <
	        0 ||
	    args_get_uint(a, "heartbeat-misses", 1, 100, &misses, err) < 0 ||
	    args_get_duration(a, "dead-man", 200 * NSEC_PER_MSEC, 3600 * NSEC_PER_SEC, &dm, err) <
	        0)
		return -1;
	if (dm <= hb) {
		error_set(err, "--dead-man must outlast --heartbeat: workers would stop between "
		               "two heartbeats");
		return -1;
	}
	live->heartbeat_ms = hb / NSEC_PER_MSEC;
	live->misses = (uint32_t)misses;
	live->deadman_ms = dm / NSEC_PER_MSEC;
	return 0;
}

/* Every agent and watcher holds a descriptor: take all the hard limit allows. */
static void serve_raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	log_info("up to %llu file descriptors: room for about %llu agents",
	         (unsigned long long)rl.rlim_cur,
	         (unsigned long long)(rl.rlim_cur > 64 ? rl.rlim_cur - 64 : 0));
}

/*
 * The daemon needs ca.crt and its own pair, never the CA's key: one it can read, a
 * compromise of this network-facing process can sign coordinator certificates every
 * agent accepts. Said at start (docs/deploy.md keeps ca.key in a directory of root's).
 */
static void serve_warn_ca_key(const char *tls_dir)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/ca.key", tls_dir);
	if (access(path, R_OK) == 0)
		log_warn("%s: the CA's private key is readable by this daemon, which needs only "
		         "ca.crt and its own pair: keep ca.key where only root reads it and give "
		         "--tls a directory without it (docs/deploy.md, \"Certificates\")",
		         path);
}

static int serve_exec(const struct args *a)
{
	const char *listen = args_get(a, "listen"), *tls_dir = args_get(a, "tls");
	const char *control = args_get(a, "control"), *metrics = args_get(a, "metrics");
	const char *results = args_has(a, "results") ? args_get(a, "results") : "iocurve-results";
	bool verbose = args_has(a, "verbose");
	struct serve_ctx ctx = {0};
	struct event *sigs[3];
	char defpath[256];
	struct error err;
	uint64_t max_frame = 0;
	struct server_liveness live;
	int rc = 1;

	if (args_get_size(a, "max-frame", FRAME_MAX_LOWEST, FRAME_MAX_HIGHEST, &max_frame, &err) <
	    0)
		return cmd_usage_error(&cmd_serve_entry, err.msg);
	if (serve_liveness(a, &live, &err) < 0)
		return cmd_usage_error(&cmd_serve_entry, err.msg);
	if (control == NULL) {
		char dir[sizeof(defpath)], *slash;

		control = control_default_path(defpath, sizeof(defpath));
		/* /run/iocurve may not exist yet: make it, private to this user. */
		snprintf(dir, sizeof(dir), "%s", control);
		slash = strrchr(dir, '/');
		if (slash != NULL && slash != dir) {
			*slash = '\0';
			fs_mkdir_p(dir, 0700, &err); /* if it fails, listening says why */
		}
	}
	log_init("iocurve-serve", verbose ? LOG_LEVEL_DEBUG : LOG_LEVEL_INFO);
	signal(SIGPIPE, SIG_IGN);
	serve_raise_nofile();
	ctx.base = conn_base_new();
	ctx.host = host_new(ctx.base,
	                    &(struct host_options){.listen = listen,
	                                           .tls_dir = tls_dir,
	                                           .results_root = results,
	                                           .max_frame = (size_t)max_frame,
	                                           .live = &live},
	                    &err);
	if (ctx.host == NULL)
		goto fail;
	serve_warn_ca_key(tls_dir);
	if (daemon_listen(host_daemon(ctx.host), control, &err) < 0)
		goto fail;
	log_info("control socket %s (0600); results under %s/", control, results);
	if (metrics != NULL) {
		ctx.metrics = metrics_new(ctx.base, metrics, host_server(ctx.host),
		                          host_daemon(ctx.host), &err);
		if (ctx.metrics == NULL)
			goto fail;
		daemon_observe(host_daemon(ctx.host), metrics_event, ctx.metrics);
		log_info("metrics on http://%s/metrics", metrics);
	}
	sigs[0] = evsignal_new(ctx.base, SIGINT, serve_signal_cb, &ctx);
	sigs[1] = evsignal_new(ctx.base, SIGTERM, serve_signal_cb, &ctx);
	sigs[2] = evsignal_new(ctx.base, SIGHUP, serve_hup_cb, &ctx);
	for (int i = 0; i < 3; i++)
		event_add(sigs[i], NULL);
	event_base_dispatch(ctx.base);
	for (int i = 0; i < 3; i++)
		event_free(sigs[i]);
	rc = 0;
	goto out;
fail:
	log_error("%s", err.msg);
out:
	if (ctx.drain_ev != NULL)
		event_free(ctx.drain_ev);
	metrics_free(ctx.metrics);
	host_free(ctx.host);
	event_base_free(ctx.base);
	log_info("stopped");
	return rc;
}

static const struct args_option serve_options[] = {
    {"listen", 'l', "HOST:PORT", "the address agents dial", true},
    {"tls", 't', "DIR",
     "ca.crt and coordinator.{crt,key} (iocurve certs init DIR); DIR/revoked: agent names "
     "or hex serials refused (re-read on SIGHUP)",
     true, "IOCURVE_TLS"},
    {"control", 'c', "PATH", "the control socket (default: its usual path)", false,
     "IOCURVE_COORDINATOR"},
    {"results", 'r', "DIR", "where campaigns' results go (default: iocurve-results)", false},
    {"metrics", 'm', "HOST:PORT",
     "serve Prometheus /metrics on this address (:PORT: 127.0.0.1 only)", false},
    {"max-frame", 'F', "SIZE", "the largest frame an agent may send (1KiB to 1GiB)", false},
    {"heartbeat", 'H', "DURATION", "heartbeat interval, both ways (default 1s)", false},
    {"heartbeat-misses", 'M', "N", "an agent silent this many intervals is lost (default 3)",
     false},
    {"dead-man", 'D', "DURATION",
     "agents' workers stop when the coordinator is silent this long (default 2s)", false},
    {"verbose", 'v', NULL, "log debug messages", false},
    {NULL},
};

const struct cmd_entry cmd_serve_entry = {
    .args =
        {
            .name = "serve",
            .help = "the coordinator daemon: agents dial in, campaigns come through the "
                    "control socket",
            .options = serve_options,
        },
    .exec = serve_exec,
};
