/* SPDX-License-Identifier: MIT */
/* A campaign as loaded from its YAML file, validated, with defaults applied. */
#ifndef IOCURVE_CAMPAIGN_H
#define IOCURVE_CAMPAIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "access.h"
#include "error.h"
#include "rw.h"

enum campaign_agents_mode {
	CAMPAIGN_AGENTS_LOCAL,  /* agents: {local: N}: spawned by `iocurve run` */
	CAMPAIGN_AGENTS_SELECT, /* agents: {select: {count: N}, wait: 30s}: dialled in */
};

struct workload {
	char *name;
	enum rw_mode rw;
	uint32_t block_size;  /* bytes */
	uint32_t workers;     /* per agent */
	uint32_t queue_depth; /* per worker */
	uint64_t interval_ns;
	uint64_t warmup_ns;
	uint64_t measure_ns;
	struct access access; /* read_pct, align, working_set, random, arrivals, data, direct */
	double *steps;        /* offered ops/s of the whole fleet, in order; 0: max (closed loop) */
	size_t nsteps;
};

/* target: {sim: {...}}: a simulated device per worker, no real I/O (see agent/engine.h). */
struct campaign_sim {
	bool enabled;
	uint32_t servers;
	uint64_t service_ns;
	uint32_t jitter_pct;
	uint64_t stall_after_ops; /* 0: no stall */
	uint64_t stall_ns;
};

struct campaign {
	char *name;
	char *path; /* the file it came from, for messages */
	char *text; /* the file as submitted, for plan.yaml */
	size_t text_len;

	enum campaign_agents_mode agents_mode;
	uint32_t agents_count;
	uint64_t agents_wait_ns; /* select mode; default 60s */

	char *target_path;    /* a directory (one file per agent and worker) or a block device */
	uint64_t target_size; /* bytes per file; for a device, 0 means all of it */
	bool target_direct;   /* default true; a workload may override it with direct: */
	struct campaign_sim sim;

	uint64_t slo_latency_ns; /* default 1ms */

	struct workload *workloads;
	size_t nworkloads;
};

/*
 * Load and validate. On error returns -1 and err reads
 * "FILE:LINE:COLUMN: what is wrong (what was expected)", e.g.
 * "demo.yaml:7:3: unknown key 'queue_dept' in campaign (known: ...)".
 * name is used in messages in place of a file name for campaign_parse.
 */
int campaign_load(const char *path, struct campaign **out, struct error *err);
int campaign_parse(const char *text, size_t len, const char *name, struct campaign **out,
                   struct error *err);
void campaign_free(struct campaign *c);

#endif
