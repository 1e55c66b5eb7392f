/* SPDX-License-Identifier: MIT */
/*
 * iocurve-agent-swarm: many agent sessions in one process, for measuring the
 * coordinator at fleet scale (tools/bench-fanin). Each session is a real mutual
 * TLS connection with its own certificate; it says Hello, answers clock pings,
 * sends heartbeats, and follows Prepare and StartStep without doing I/O: every
 * interval it sends an IntervalReport drawn from a latency distribution.
 */
#ifndef IOCURVE_SWARM_H
#define IOCURVE_SWARM_H

#include <stdbool.h>
#include <stdint.h>

#include <event2/event.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include "iocurve.pb-c.h"
#include "record.h"

struct swarm;

/* One agent session. */
struct swarm_session {
	struct swarm *sw;
	unsigned index;
	char name[64];
	SSL_CTX *ctx;
	struct conn *conn;
	bool welcomed;
	bool stall;       /* stops reading after Welcome (the coordinator's output cap) */
	uint64_t sent_ns; /* the last frame sent */
	uint32_t workload;
	uint32_t workers;
	uint32_t rw; /* Prepare's RwMode */
	uint32_t read_pct;
	uint32_t block_size;
	/* The step in progress: */
	bool stepping;
	uint32_t step;
	uint32_t intervals; /* in the step */
	uint32_t sent;      /* intervals reported */
	uint32_t warmup;    /* intervals of warm-up */
	uint64_t start_ns;  /* this host's clock */
	uint64_t interval_ns;
	double ops_per_interval;
	struct event *tick;
	/* A background workload (Prepare.background): its one long step, reported beside. */
	bool bg_prepared, bg_stepping;
	uint32_t bg_workload, bg_step, bg_sent;
	uint64_t bg_start_ns, bg_interval_ns;
	struct event *bg_tick;
};

/* Synthetic records: a few templates per step, drawn once. */
#define SWARM_TEMPLATES 16
struct swarm_template {
	struct record rec;
	Iocurve__Histogram latency, service;            /* encoded once */
	Iocurve__Histogram read_latency, write_latency; /* read and write apart */
};

/* --set FIELD=VALUE (swarm_set.c): one report field forced, for one session. */
struct swarm_set {
	char field[32];
	int hist;      /* 0: a field of the report; of its histogram 1: latency, 2: service, 3:
	                  read_latency,       4: write_latency */
	int step_done; /* 1 step_done.start_time, 2 step_done.start_offset (s): StepDone's */
	bool is_text;  /* err_path: text, with err_errno 5 */
	bool mean;     /* HIST.mean_ns: every value VALUE */
	char text[256];
	size_t off;
	int type;
	uint64_t u;
	double d;
};

struct swarm_opts {
	const char *coordinator;
	const char *tls_dir;
	const char *prefix;
	const char *watch; /* a results directory: time merged lines of intervals.jsonl */
	unsigned agents;
	unsigned stall; /* sessions that stop reading after Welcome */
	unsigned dial_parallel;
	double sigma; /* of log latency: the spread, so the filled bins */
	double median_us;
	double duration_s;      /* exit after this long; 0: until SIGTERM */
	struct swarm_set *sets; /* session i forces sets[i] (i < nsets) */
	unsigned nsets;
	unsigned mutate; /* sessions nsets.. nsets + mutate - 1 flip bits of every report */
	uint64_t caps;   /* what Hello declares (--without): the reports fill every field anyway */
	unsigned bg_repeat; /* session 0 sends each background report this many times (1) */
	unsigned hellos;    /* session 0 sends this many more Hellos after its Welcome */
};

struct swarm_stats {
	unsigned welcomed, lost, refused;
	uint64_t reports, report_bytes; /* IntervalReport frames and their bytes (frame size) */
	uint64_t steps_done;
};

struct swarm {
	struct event_base *base;
	struct swarm_opts o;
	struct swarm_session *s;
	unsigned next_dial, dialing;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	struct event *dial_ev, *hb_ev, *stop_ev, *term_ev, *int_ev, *report_ev;
	uint64_t heartbeat_ms;
	struct swarm_template tmpl[SWARM_TEMPLATES];
	double tmpl_ops; /* the ops count the templates were drawn for */
	uint32_t tmpl_rw, tmpl_read_pct, tmpl_bs;
	uint64_t seed;
	char workload_name[128]; /* of the last Prepare */
	struct swarm_stats st;
	struct swarm_watch *watch;
};

/* swarm_session.c */
void swarm_session_dial(struct swarm_session *ss);
void swarm_session_heartbeat(struct swarm_session *ss, uint64_t now);
/* The heartbeat tick: a quarter of the interval. */
static inline uint64_t swarm_heartbeat_tick_ms(const struct swarm *sw)
{
	return sw->heartbeat_ms / 4 ? sw->heartbeat_ms / 4 : 1;
}
void swarm_session_free(struct swarm_session *ss);

/* swarm_record.c: the templates for ops per interval and a workload's mix. */
void swarm_record_templates(struct swarm *sw, double ops, uint32_t rw, uint32_t read_pct,
                            uint32_t block_size);
void swarm_record_free(struct swarm *sw);
/* Deterministic per-session randomness. */
uint64_t swarm_rand(uint64_t *state);

/* swarm_set.c: 0, or -1 when FIELD=VALUE names no field or no value of its type. */
int swarm_set_parse(struct swarm_set *s, const char *arg);
/* Force the field in r; a histogram's is forced in copy, which r then points to. */
void swarm_set_apply(const struct swarm_set *s, Iocurve__IntervalReport *r,
                     Iocurve__Histogram *copy);

/*
 * Flip one to four random bits of the report's encoding and send what it decodes
 * to (the report as is when nothing does): any value of any field, through TLS.
 */
void swarm_set_mutate(struct swarm_session *ss, const Iocurve__Envelope *env);

/* swarm_watch.c: the time each merged interval line reaches intervals.jsonl. */
struct swarm_watch *swarm_watch_new(struct event_base *base, const char *results_dir);
/* The last report of (workload, step, interval) left at now_ns. */
void swarm_watch_sent(struct swarm_watch *w, const char *workload, uint32_t step, uint32_t interval,
                      uint64_t now_ns);
void swarm_watch_print(struct swarm_watch *w);
void swarm_watch_free(struct swarm_watch *w);

#endif
