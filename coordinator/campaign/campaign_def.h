/* SPDX-License-Identifier: MIT */
/*
 * A campaign's definition: the structures campaign.c loads a YAML file into and
 * workloads.c fills per workload, with their limits. Types only: the loading is
 * campaign.h's.
 */
#ifndef IOCURVE_CAMPAIGN_DEF_H
#define IOCURVE_CAMPAIGN_DEF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fileop.h"

struct trace;

#include "access.h"
#include "label.h"
#include "rw.h"

/*
 * Intervals in one step (warm-up, measurement and steady extension): what the
 * coordinator holds per step and `check` accepts.
 */
#define CAMPAIGN_MAX_STEP_INTERVALS SETTING_MAX_STEP_INTERVALS
/* Nesting of mappings and sequences a campaign file may use (it needs about 6). */
#define CAMPAIGN_MAX_DEPTH 64

struct observe_source;

enum campaign_agents_mode {
	CAMPAIGN_AGENTS_LOCAL,  /* agents: {local: N}: spawned by `iocurve run` */
	CAMPAIGN_AGENTS_SELECT, /* agents: {select: {count: N, labels: {k: v}}, wait: 30s}: dialled
	                           in */
};

/* The latency the SLO is judged on: the mean (as published 4-corner tables use) or a percentile. */
enum slo_metric {
	SLO_MEAN = 0,
	SLO_P50,
	SLO_P90,
	SLO_P99,
	SLO_P999,
};

enum load_mode {
	LOAD_STEPS = 0, /* steps: [r1, r2, ...] in order */
	LOAD_CURVE, /* curve: [10%, 50%, ...]: a max step first, then these shares of its peak */
	LOAD_RAMP,  /* ramp: {start, factor | increment, max_steps}: raise until saturation */
};

/* A planned rate: ops/s (ops > 0), a share of the measured peak (peak_pct > 0), or max (both 0). */
struct step_rate {
	double ops;
	double peak_pct;
};

/*
 * load: {work: {bytes | ops, deadline}, rate, think, start: {spread}}: every worker
 * does a fixed amount of work, then stops; one step, no knee (docs/campaign.md).
 */
struct work_spec {
	bool on;
	uint64_t bytes;       /* per worker (a whole number of blocks); or */
	uint64_t ops;         /* per worker; the one given sets the other */
	uint64_t think_ns;    /* closed loop: from a completion to the slot's next issue [0] */
	uint64_t spread_ns;   /* starts spread uniformly over this, by fleet worker index [0] */
	uint64_t deadline_ns; /* the step ends here, finished or not [10m] */
};

struct workload {
	char *name; /* a matrix's are generated: NAME-RW-BS[-rPCT][-qdN] (docs/campaign.md) */
	/*
	 * What the agents' workers are asked (rw, block_size, workers, queue_depth, access,
	 * data, timing): a row each in common/setting.c, sent as they are in Prepare.
	 */
	struct io_settings io;
	uint64_t interval_ns;
	uint64_t warmup_ns;
	uint64_t measure_ns;
	enum load_mode mode;
	struct step_rate *steps; /* steps: or curve: (peak_pct), in order */
	size_t nsteps;
	double ramp_start;       /* ramp: the first rate, ops/s */
	double ramp_factor;      /* ramp: next = previous x factor (> 1); or */
	double ramp_increment;   /* next = previous + increment, ops/s */
	uint32_t ramp_max_steps; /* ramp: at most this many steps [20] */
	uint32_t refine;   /* after the pass, up to N steps bisecting the knee's bracket [0] */
	bool skip_confirm; /* confirm: false: no step at the knee after refining [confirm] */
	uint32_t repeat;   /* repeat: N: the confirmation step run N times, knee as mean [1] */
	/*
	 * steady: {extend: N, budget: T}: a step whose SLO metric's 95% interval holds the
	 * SLO runs on up to N more intervals [3 x the measured ones], the extensions of the
	 * workload's steps together at most T [4 x measure].
	 */
	uint32_t steady_extend;
	uint64_t steady_budget_ns;
	uint32_t retry; /* retry: N: a step with a disturbed client runs up to N more times [2] */
	struct work_spec work; /* fixed work (work.on): one step of steps[0]'s rate or max */
	/*
	 * targets: (several): the workload as written (`test`, a row of the side-by-side
	 * table) and the target it runs on (index into campaign.targets), its name then
	 * TEST@TARGET. With target: test is name and target 0.
	 */
	char *test;
	uint32_t target;
	/*
	 * replay: {file, format}: the trace this workload replays (its own copy, freed
	 * with it), or NULL. Its load is load: {speeds: [...]}, each speed a step whose
	 * rate (in steps) is the speed times the trace's ops/s at x1 (trace_rate).
	 */
	struct trace *replay;
	bool speeds;   /* load: speeds: given: steps[].ops hold speeds until the trace is read */
	bool qd_sized; /* no queue_depth given: io.queue_depth sized from the load (slots.c) */
};

/* stop: when a step saturates the target, a ramp stops there and the report says why. */
struct campaign_stop {
	double min_achieved_pct; /* achieved under this % of offered [95] */
	uint64_t ceiling_ns;     /* the SLO metric over this [50ms] */
	/*
	 * Failed operations over this % of a step's operations (0: any error; < 0:
	 * never) [1%]. allow_errors: a campaign with errors may end complete (else it
	 * ends failed) [false].
	 */
	double errors_pct;
	bool allow_errors;
};

/*
 * cooldown: after a step that fell behind or saturated, the next step waits until
 * a short probe's service time is within margin of the workload's first step's.
 */
struct campaign_cooldown {
	double margin_pct; /* [20%] */
	uint64_t max_ns;   /* give up (and say so) after this long; 0: no cooldown [10s] */
};

/* target: {sim: {...}}: a simulated device per worker, no real I/O (see agent/engine.h). */
struct campaign_sim {
	bool enabled;
	uint32_t servers;
	uint64_t service_ns;
	uint32_t jitter_pct;
	bool exponential;          /* service: exponential (mean service_ns) or fixed [fixed] */
	uint64_t write_service_ns; /* write_service_time: writes' service time; 0: service_ns */
	uint64_t stall_after_ops;  /* 0: no stall */
	uint64_t stall_ns;
	/*
	 * A fleet-wide rate limit in ops/s (0: none): a token bucket per worker of
	 * rate_limit / (agents x workers) ops/s, as a QoS policy caps a volume.
	 */
	double rate_limit;
	/* service_time: {default: D, stat: D, ...}: a file operation's by kind (0: as above) */
	uint64_t op_service_ns[FILEOP_COUNT];
	bool op_service; /* some kind has its own */
};

/* target: {nfs: {...}}: an NFS export the agents speak to themselves, no mount. */
struct campaign_nfs {
	bool enabled;
	char *server;
	char *export;         /* mounted; the target's path is nfs://SERVER/EXPORT[/PATH] */
	char *export_url;     /* nfs://SERVER/EXPORT: what `run`'s local agents are allowed */
	uint32_t version;     /* 3 (default) or 4 */
	uint32_t connections; /* per worker stream, round robin (default 1) */
	uint32_t uid, gid;    /* AUTH_SYS (default 65534, nobody) */
	uint64_t timeout_ns;  /* an operation unanswered this long fails the step (30 s) */
};
#define CAMPAIGN_NFS_NOBODY 65534u

/*
 * What a workload runs on: target: (the only one, name NULL) or an entry of
 * targets: (named, with the labels of the agents that drive it in select mode).
 */
struct campaign_target {
	char *name;
	char *path;    /* a directory (one file per agent and worker) or a block device */
	uint64_t size; /* bytes per file; for a device, 0 means all of it */
	bool direct;   /* default true; a workload may override it with direct: */
	struct campaign_sim sim;
	struct campaign_nfs nfs; /* enabled: path is its URL */
	struct label *labels; /* select: {labels: {k: v}}: agents of the campaign's that drive it */
	size_t nlabels;
};
/* At most this many entries in targets:. */
#define CAMPAIGN_MAX_TARGETS 64

/* At most this many latency percentiles in the tables (percentiles:). */
#define CAMPAIGN_MAX_PERCENTILES 8

/* agents.detail: an agent's interval lines, with or without their histograms' bins. */
enum campaign_detail {
	CAMPAIGN_DETAIL_AUTO_MODE, /* histograms up to CAMPAIGN_DETAIL_AUTO agents */
	CAMPAIGN_DETAIL_HISTOGRAMS,
	CAMPAIGN_DETAIL_COUNTS,
};
#define CAMPAIGN_DETAIL_AUTO 64

struct campaign {
	char *name;
	char *path; /* the file it came from, for messages */
	/* read from a results directory's plan.yaml: its traces are the copies beside it */
	bool from_results;
	char *text; /* the effective campaign, for plan.yaml: the file, or campsource.c's */
	size_t text_len;
	bool text_generated; /* text is not the file as written (include, ${}, --set) */

	enum campaign_agents_mode agents_mode;
	uint32_t agents_count;
	uint64_t agents_wait_ns; /* select mode; default 60s */
	/* agents.on_agent_loss: abort (true) or continue with the others (false, default) */
	bool abort_on_agent_loss;
	enum campaign_detail agent_detail;
	/*
	 * agents: {local: N, caps: {...}}: the local agents' --max-* caps, 0 where the
	 * agent's default holds (32 workers per CPU, queue depth 1024, ...).
	 */
	struct campaign_caps {
		uint32_t workers, queue_depth, block_size;
		uint64_t file_size;
	} local_caps;

	/* target: (one, unnamed) or targets: (named, multi_target true) */
	struct campaign_target *targets;
	size_t ntargets;
	bool multi_target;

	uint64_t slo_latency_ns; /* default 1ms */
	/* percentiles: the latency columns of every step table, ascending [50, 90, 99, 99.9] */
	double percentiles[CAMPAIGN_MAX_PERCENTILES];
	size_t npercentiles;
	enum slo_metric slo_metric;
	/*
	 * slo.from: the SLO judges the storage's latency (submission to completion, fio's
	 * clat) unless due: the response latency, from each operation's due time.
	 */
	bool slo_from_due;
	/* slo.part: the knee judged on this part of each mix's latency ("": the whole) */
	char slo_part[MIX_NAME_MAX];
	struct campaign_stop stop;
	struct campaign_cooldown cooldown;
	struct label *labels; /* agents: {select: {labels: {k: v}}} */
	size_t nlabels;

	struct workload *workloads;
	size_t nworkloads;

	/* observe: the storage's figures the coordinator polls (campaign/observe.h) */
	struct observe_source *observe;
	size_t nobserve;
};

/* The target workload w runs on. */
static inline const struct campaign_target *campaign_target_of(const struct campaign *c,
                                                               const struct workload *w)
{
	return &c->targets[w->target];
}

#endif
