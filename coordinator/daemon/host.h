/* SPDX-License-Identifier: MIT */
/*
 * The campaign host: the coordinator core that `serve` runs and that `run` starts
 * in its own process, as a tmux command runs in the server. Its agent port (TLS
 * context, revocation list, listener) and its daemon core (queue, results and
 * resume, runner, events) are set up here and nowhere else.
 */
#ifndef IOCURVE_HOST_H
#define IOCURVE_HOST_H

#include <stddef.h>

#include <event2/event.h>

#include "daemon.h"
#include "error.h"
#include "server.h"

struct host;

struct host_options {
	const char *listen;  /* HOST:PORT agents dial ("127.0.0.1:0": any port) */
	const char *tls_dir; /* ca.crt, coordinator.{crt,key}, revoked */
	/* Without tls_dir: the three files named apart, and no revocation list. */
	const char *tls_crt, *tls_key, *tls_ca;
	const char *results_root;           /* daemon_new's (NULL: each campaign names its own) */
	size_t max_frame;                   /* 0: FRAME_MAX_DEFAULT */
	const struct server_liveness *live; /* NULL: the defaults */
};

/*
 * Listen for agents with the coordinator's certificate of tls_dir, refusing those
 * named in tls_dir/revoked (a missing file is an empty list), and make the daemon
 * core on that port. NULL with err naming what failed.
 */
struct host *host_new(struct event_base *base, const struct host_options *o, struct error *err);
struct daemon *host_daemon(const struct host *h);
struct server *host_server(const struct host *h);
/* "127.0.0.1:41234": where agents dial. */
const char *host_address(const struct host *h);
/* Read tls_dir/revoked again (SIGHUP): -1 with err leaves the previous list in force. */
int host_reload_revoked(struct host *h, struct error *err);
/*
 * Free the daemon (a campaign still running is dropped), close every agent's
 * session cleanly (one turn of the loop sends close_notify), free the TLS context.
 */
void host_free(struct host *h);

#endif
