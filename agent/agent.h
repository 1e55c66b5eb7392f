/* SPDX-License-Identifier: MIT */
/* The agent process's one context, shared by its modules. */
#ifndef IOCURVE_AGENT_H
#define IOCURVE_AGENT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <event2/event.h>
#include <openssl/ssl.h>

#include "allow.h"
#include "engine.h"
#include "hostcpu.h"
#include "label.h"
#include "params.h"
#include "skew.h"
#include "iocurve.pb-c.h"

struct conn;
struct pool;

struct agent {
	struct event_base *base;
	SSL_CTX *ssl_ctx;
	char name[128];
	char host[256];
	struct allow allow;
	bool allow_device_writes; /* --allow-device-writes: block devices may be written */
	struct params_caps caps;  /* --max-workers and the others: what any plan may ask */
	struct label *labels;     /* --label KEY=VALUE */
	size_t nlabels;
	bool stopping;
	int exit_status;
	struct skew skew; /* tests only: IOCURVE_TEST_CLOCK_SKEW (skew.h) */

	/* link.c: the connection to the coordinator. */
	char coordinator[256];
	struct sockaddr_storage addr;
	socklen_t addrlen;
	struct conn *conn;
	bool welcomed;
	bool handshaken; /* this connection's TLS handshake finished (link.c) */
	unsigned backoff_ms;
	unsigned tls_failures; /* in a row, of a kind retrying does not mend (link.c) */
	const char *tls_dir;   /* for the advice in those failures */
	size_t max_frame;      /* --max-frame; 0: the default */
	/* Liveness given on the command line (0: the coordinator's, from Welcome). */
	uint64_t opt_heartbeat_ms; /* send at least this often */
	uint32_t opt_misses;       /* the coordinator is lost after this many silent intervals */
	uint64_t opt_deadman_ms;   /* workers stop this long after the coordinator was heard */
	/* In effect for the session (link_apply_welcome). */
	uint64_t heartbeat_ms;
	uint64_t deadman_ms;
	struct event *reconnect_ev;
	struct event *heartbeat_ev;

	/* plan.c: the workload in progress. */
	struct pool *pool;
	uint32_t workload_index;
	uint32_t nworkers;
	uint32_t warmup_intervals;
	struct engine_sim_params sim; /* the simulated device of the workload, if any */
	struct hostcpu cpu;           /* host CPU use between interval reports */
	uint64_t interval_ns;
	uint64_t step_start_ns; /* the step in progress starts here (this host's clock) */
};

/* link.c */
void link_start(struct agent *a);
void link_stop(struct agent *a);
/* Send to the coordinator if connected; dropped (with a debug log) otherwise. */
void link_send(struct agent *a, const Iocurve__Envelope *env);

/* plan.c: messages that drive I/O; all I/O stops when the link is lost. */
void plan_handle(struct agent *a, const Iocurve__Envelope *env);
void plan_stop(struct agent *a, const char *why);
/* The coordinator was heard at now_ns: the workers' dead-man starts again from there. */
void plan_alive(struct agent *a, uint64_t now_ns);
void plan_child_exited(struct agent *a, pid_t pid, int status);

#endif
