/* SPDX-License-Identifier: MIT */
/* iocurve serve: the coordinator daemon's agent port and registry. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "certs.h"
#include "cmd.h"
#include "log.h"
#include "server.h"
#include "tls.h"

struct serve_ctx {
	struct event_base *base;
	SSL_CTX *ssl;
	struct server *srv;
};

static void serve_signal_cb(evutil_socket_t sig, short what, void *arg)
{
	struct serve_ctx *ctx = arg;

	log_info("%s: shutting down", strsignal((int)sig));
	event_base_loopexit(ctx->base, NULL);
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
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *listen = NULL, *tls_dir = NULL;
	struct serve_ctx ctx = {0};
	struct event *sigs[2];
	struct error err;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "l:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			listen = optarg;
			break;
		case 't':
			tls_dir = optarg;
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
	log_init("iocurve-serve", LOG_LEVEL_INFO);
	signal(SIGPIPE, SIG_IGN);
	ctx.ssl = tls_ctx_new(tls_dir, CERTS_COORDINATOR_NAME, true, &err);
	if (ctx.ssl == NULL) {
		log_error("%s", err.msg);
		return 1;
	}
	ctx.base = event_base_new();
	ctx.srv = server_new(ctx.base, ctx.ssl, listen, &err);
	if (ctx.srv == NULL) {
		log_error("%s", err.msg);
		event_base_free(ctx.base);
		SSL_CTX_free(ctx.ssl);
		return 1;
	}
	sigs[0] = evsignal_new(ctx.base, SIGINT, serve_signal_cb, &ctx);
	sigs[1] = evsignal_new(ctx.base, SIGTERM, serve_signal_cb, &ctx);
	event_add(sigs[0], NULL);
	event_add(sigs[1], NULL);
	event_base_dispatch(ctx.base);
	server_free(ctx.srv);
	event_base_loop(ctx.base, EVLOOP_NONBLOCK);
	event_free(sigs[0]);
	event_free(sigs[1]);
	event_base_free(ctx.base);
	SSL_CTX_free(ctx.ssl);
	log_info("stopped");
	return 0;
}

const struct cmd_entry cmd_serve_entry = {
    .name = "serve",
    .usage = "--listen HOST:PORT --tls DIR",
    .help = "accept agents over mutual TLS and keep a registry (campaigns: see `run`)",
    .exec = serve_exec,
};
