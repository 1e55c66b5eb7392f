/* SPDX-License-Identifier: MIT */
/* Merging interval records across agents into a step's point on the curve. */
#ifndef IOCURVE_AGGREGATE_H
#define IOCURVE_AGGREGATE_H

#include <stdbool.h>
#include <stdint.h>

#include "campaign.h"
#include "storm.h"
#include "error.h"
#include "record.h"
#include "iocurve.pb-c.h"
#include "thresholds.h"
#include "figs_groups.h"

/* One interval: one agent's record, or the merge of every agent's. */
struct agg_record {
	struct record rec;
	uint64_t duration_ns;
	uint32_t workers;
	uint32_t agents;
	uint32_t finished; /* fixed work: of the workers, those done with their work by its end */
	bool warmup;
	double host_cpu_pct; /* busiest agent host, % of all its CPUs */
	char err_agent[64];  /* the agent of rec's first error ("" on an agent's own record) */
	/*
	 * Its histograms hold count, sum, min and max but no bins: an agent's line of
	 * intervals.jsonl under agents.detail: counts, or a merge of one until
	 * agg_set_hists gives it the merged line's.
	 */
	bool no_bins;
};

/*
 * An agg_record's life: agg_record_init readies fresh memory (a record of nothing,
 * without parts); agg_record_free frees a malloc'd one with its record's parts.
 */
/* Whether merged interval m (NULL: none arrived) is a measured one with reports in it. */
static inline bool agg_counted(const struct agg_record *m)
{
	return m != NULL && !m->warmup && m->agents > 0;
}

void agg_record_init(struct agg_record *r);
void agg_record_free(struct agg_record *r);

/* Per-agent figures of a step, for the report's breakdown. */
#define STEP_MAX_AGENTS 64
struct agent_share {
	char name[64];
	double achieved_ops;
	double mean_ns;
	double host_cpu_pct;
	bool health_known; /* it measured its client's health... */
	double
	    client_ns; /* ...and delayed its operations this much, mean (issue lateness + reap) */
};

/* One interval of a step as the fleet ran it, for the report's plot over time. */
#define STEP_MAX_TICKS 128
struct step_tick {
	double seconds; /* its length */
	double ops_s;
	double mean_ns;
	uint64_t p50_ns, p99_ns;
	bool warmup;
	bool measured; /* inside the step's measured window */
};

/*
 * A step's latency distribution for the report, on a log scale: 8 bins a
 * decade from 1 us to 10 s (bin k holds [10^(3 + k/8), 10^(3 + (k+1)/8)) ns;
 * the first also holds what is faster, the last what is slower).
 */
#define STEP_HIST_PER_DECADE 8
#define STEP_HIST_BINS       (7 * STEP_HIST_PER_DECADE)

/* A step's point: the merge of its measured (non warm-up) intervals. */
/* One part of a mix at a step: its achieved ops/s, MiB/s and latency (from due). */
struct point_part {
	double ops_s, read_ops_s, mib_s;
	double mean_ns; /* from due (response) */
	uint64_t p50_ns, p90_ns, p99_ns, p999_ns, max_ns;
	double svc_mean_ns; /* at the storage (0 without: an older agent's) */
	uint64_t svc_p99_ns;
	uint64_t errors; /* its operations that failed in the window */
};

struct step_point {
	uint32_t step;
	double offered_ops;  /* ops/s asked of the fleet */
	double achieved_ops; /* ops/s completed */
	double mib_s;
	double mean_ns;
	uint64_t p50_ns, p90_ns, p99_ns, p999_ns, max_ns;
	double svc_mean_ns; /* service time: submission to completion (the storage's latency) */
	uint64_t svc_p50_ns, svc_p90_ns, svc_p99_ns, svc_p999_ns, svc_max_ns;
	bool slo_due;  /* judged on the response latency (slo.from: due), else the storage's */
	double slo_ns; /* the SLO latency it was judged against... */
	enum slo_metric slo_metric; /* ...and its metric */
	uint32_t queue_depth;       /* per worker (agg_point_workload; 0: unknown) */
	bool queue_sized; /* no queue_depth given: a slot's wait counted in the storage's */
	uint64_t ops;
	uint64_t reads;
	uint64_t missed; /* backlog at the window's end: due, not issued; the client fell behind */
	uint64_t missed_before;    /* backlog at the window's start (built in the warm-up) */
	uint64_t missed_charged;   /* never completed: in the latencies at a lower bound (marked) */
	struct step_client client; /* the client's health (figs_client) */
	uint64_t errors;           /* failed operations */
	int32_t err_errno;         /* the window's first kept failure: its errno (0: none)... */
	uint64_t err_offset;       /* ...its offset, */
	char err_path[RECORD_PATH_MAX];   /* target, */
	char err_cause[RECORD_CAUSE_MAX]; /* cause in words, when no errno says it ("": none) */
	char err_agent[64];               /* and agent */
	double measured_s;
	uint32_t workers; /* workers that ran the step, all agents */
	bool steady;      /* the backlog did not grow through the window (agg_backlog_grows) */
	/*
	 * The 95% interval of the campaign's SLO metric (agg_metric_ci); both 0 when
	 * unknown (fewer than two batches, or results written before it existed).
	 */
	double metric_lo_ns, metric_hi_ns;
	uint32_t intervals;   /* measured intervals (more than planned when extended) */
	uint32_t nagents;     /* agents[] holds the first STEP_MAX_AGENTS */
	uint32_t agents_lost; /* of nagents, lost during the step (the rest ran to its end) */
	uint32_t lost_at;     /* the first interval without the lost agent(s); UINT32_MAX: none */
	char lost_names[128]; /* the lost agents' names by name, ", " between ("" when none) */
	struct agent_share agents[STEP_MAX_AGENTS];
	uint32_t npct; /* the campaign's percentiles: pct[k] of the latency is pct_ns[k] */
	double pct[CAMPAIGN_MAX_PERCENTILES];
	uint64_t pct_ns[CAMPAIGN_MAX_PERCENTILES];
	uint64_t hist[STEP_HIST_BINS]; /* measured operations by latency (STEP_HIST_BINS) */
	/*
	 * The intervals left out of the point, by reason: the warm-up [0, warmup_n) (win_from
	 * equals it) and those reported after the window ended [win_to, nall) (an early
	 * end's last ones).
	 */
	uint32_t warmup_n, win_from, win_to, nall;
	/* the wait before the step (after one that fell behind or saturated): 0 and "": none */
	uint32_t cooldown_ms;
	char cooldown[16]; /* "recovered": a probe's service time came back; "timeout"; "failed":
	                      every probe op failed */
	uint32_t nticks;   /* the step's first STEP_MAX_TICKS intervals, warm-up included */
	struct step_tick ticks[STEP_MAX_TICKS];
	struct storm storm; /* fixed work: its completion times (storm.on) */
	/*
	 * Read and write apart (figs_kinds). mixed: the workload mixes them (0 <
	 * read_pct < 100), so its outputs carry the per-kind figures; the ops/s come
	 * from reads (every agent counts them); the rest are known only when every
	 * agent measured the kinds (kinds_known; else "not measured").
	 */
	bool mixed;
	struct step_kinds kinds;   /* read and write apart (figs_kinds) */
	struct step_sync sync;     /* its syncs (figs_sync) */
	struct step_kernel kernel; /* the kernel's view (figs_kernel) */
	struct step_bg bg;         /* load under load (bgfig.h) */
	/* verify: blocks read that failed their header (each read also in errors) */
	uint64_t mismatches;
	/*
	 * A replay's (replay: {file}): its trace's ops/s at x1 (trace_rate), so that a
	 * step's speed is its offered rate over it; 0 for a workload of rates.
	 */
	double replay_x1;
	/*
	 * A mix's parts (figs_parts), in the plan's order (names: the workload's
	 * io.mix); slo_part: the one the SLO judges (-1: the whole).
	 */
	uint32_t nparts;
	int slo_part;
	struct point_part parts[RECORD_PARTS_MAX];
};

struct agg_step;
/* slo.part: the SLO of the step's points judges part's latency (-1: the whole). */
void agg_step_slo_part(struct agg_step *st, int part);

/*
 * The client's part of the judged metric (client_slo_ns): its reap delay in the storage's
 * latency (none on a sim), issue lateness plus reap delay from the due time
 * (figs_client_part). A step is client-bound when taking that part away would
 * change its verdict (verdict_judge): violated to undecided or met, undecided to met.
 * That part is a bound only for a client with CPU to spare: where the busiest agent's
 * host was THRESH_HOST_BUSY_PCT busy or more on average over the window, a late client is
 * late again before it catches up and its bursts queue in the storage for longer than
 * its lateness, so any step not met can be the client's. An old agent's step whose
 * queues were full THRESH_QUEUE_BOUND_PCT of its time or more was not offered on schedule
 * (queue-bound).
 */

/*
 * The 95% interval of the SLO metric over the step's measured window, for
 * correlated intervals: the window's intervals cut into at most 10 contiguous
 * batches (every interval in one), the metric of each batch, and the whole
 * window's metric +- t(0.975, batches - 1) x their standard deviation /
 * sqrt(batches). A percentile's interval also spans its order-statistic
 * bounds from the merged histogram's ranks (binomial, 1.96 sd), whichever is
 * wider at each end. Both 0 with fewer than two intervals.
 */
void agg_metric_ci(const struct agg_step *st, const struct campaign *c, double *lo, double *hi);
/* The same over intervals [from, to) (warm-up ones left out), whatever the window. */
void agg_window_ci(const struct agg_step *st, uint32_t from, uint32_t to, const struct campaign *c,
                   double *lo, double *hi);
/*
 * Student's t, two-sided 95% (its 0.975 quantile), with dof degrees of freedom:
 * exact to 3 decimals up to 30, then 2.000 to 60 and 1.960; infinite for 0.
 */
double agg_t95(size_t dof);

/* names[a] is agent a's name (copied), for the per-agent shares. */
struct agg_step *agg_step_new(uint32_t nagents, const char *const *names, uint32_t nintervals);
void agg_step_free(struct agg_step *st);
/* One more agent, named (copied), as `report` meets it in intervals.jsonl: its index. */
uint32_t agg_step_add_agent(struct agg_step *st, const char *name);
/*
 * The merged histograms of an interval whose agents' lines came without bins: the
 * interval's merged line's (nothing to do for one that has its bins, or none yet).
 * -1 when they do not add up to the agents' (count, sum).
 */
int agg_set_hists(struct agg_step *st, uint32_t interval, const struct record *merged);
/* The intervals agent has reported so far. */
uint32_t agg_agent_reported(const struct agg_step *st, uint32_t agent);
/* The intervals of [0, to) agent has not reported. */
uint32_t agg_agent_missing(const struct agg_step *st, uint32_t agent, uint32_t to);

/*
 * Take agent `agent`'s report. Fills *rec with the decoded record (for the
 * intervals file). Returns 1 when this report completed its interval (every
 * agent in; *merged then points at the merged record), 0 otherwise, -1 on a
 * bad report (wrong interval, duplicate, bad histogram) with err set.
 */
int agg_add(struct agg_step *st, uint32_t agent, const Iocurve__IntervalReport *r,
            struct agg_record *rec, const struct agg_record **merged, struct error *err);
/*
 * Take an already decoded record for (agent, interval): what agg_add does after
 * decoding, and what `iocurve report` does with the lines of intervals.jsonl.
 * Same returns as agg_add.
 */
int agg_add_record(struct agg_step *st, uint32_t agent, uint32_t interval,
                   const struct agg_record *rec, const struct agg_record **merged,
                   struct error *err);
/*
 * Decode one report into a record (also used by agg_add), checked whole
 * (record_decode, agg_record_check): an error names the interval, the field and
 * its value ("interval 3: host_cpu_pct 1e+308 is outside [0, 100]"). rec is a record
 * made before (agg_record_init, or zeroed by calloc), emptied here: the same one
 * taking report after report costs the bins each held, not its ~185 KB. It holds a
 * mix's parts after, whether or not the report was accepted: free it with
 * agg_record_free.
 */
int agg_record_from_report(struct agg_record *rec, const Iocurve__IntervalReport *r,
                           struct error *err);
/* Bounds of an interval's own figures (agg_record_check). */
#define AGG_WORKERS_MAX    (1u << 20) /* an agent's workers, or a fleet's */
#define AGG_AGENTS_MAX     (1u << 20)
#define AGG_CPU_PCT_JITTER 5 /* what an old agent's host CPU share may exceed 100 by */
/*
 * The figures of rec beside its record's (record_check): duration_ns within
 * RECORD_NS_MAX, workers and agents within their bounds, host_cpu_pct a share in
 * [0, 100] (up to AGG_CPU_PCT_JITTER over from an agent of 0.2.0 or before; NaN only when
 * nan_cpu_ok: a results file's null). The first breach
 * is named with its field and value.
 */
int agg_record_check(const struct agg_record *rec, bool nan_cpu_ok, struct error *err);
/*
 * Measure the step over intervals [from, to) only (warm-up ones still left
 * out): a step extended to become steady is judged on its last measured window.
 */
void agg_set_window(struct agg_step *st, uint32_t from, uint32_t to);
/*
 * Whether the backlog (operations due but not issued at an interval's end) grows
 * through the measured intervals of [from, to) by more than 5% of their operations
 * plus 3 sd of their count noise: the step falls behind its rate, however slowly.
 */
bool agg_backlog_grows(const struct agg_step *st, uint32_t from, uint32_t to);
/*
 * Agent `agent` is gone (on_agent_loss: continue): intervals from the first it
 * has not reported wait only for the others. Returns that interval; intervals
 * the others had already completed are then complete: see agg_merged.
 */
uint32_t agg_drop_agent(struct agg_step *st, uint32_t agent);
/* The merged record of an interval every expected agent reported, else NULL. */
const struct agg_record *agg_merged(const struct agg_step *st, uint32_t interval);
/*
 * True when every agent has reported every interval of the window (lost ones: until
 * lost), and every interval has its bins.
 */
bool agg_complete(const struct agg_step *st);
/*
 * The workload mixes reads and writes (rw or randrw, 0 < read_pct < 100): its points
 * carry read and write apart (step_point.mixed).
 */
bool agg_mixed(const struct workload *w);
/*
 * The step's point from its measured intervals: every interval after the warm-up up to
 * the window's end, with c's SLO metric, its 95% interval and c's percentiles. It changes
 * nothing in st: agents keep their indexes, and records may follow.
 */
void agg_point(const struct agg_step *st, uint32_t step, double offered, const struct campaign *c,
               struct step_point *pt);
/*
 * What the point takes from its workload: mixed (agg_mixed), the queue depth, a replay's
 * x1 rate, and on a simulated device no client part in the storage's latency (it stamps
 * completions).
 */
void agg_point_workload(struct step_point *pt, const struct campaign *c, const struct workload *w);
/*
 * The step's k-th table percentile (of step_npct): the campaign's percentiles,
 * or p50, p90, p99, p99.9 for a point made without them.
 */
static inline uint32_t step_npct(const struct step_point *p)
{
	return p->npct ? p->npct : 4;
}

static inline double step_pct(const struct step_point *p, uint32_t k)
{
	static const double fixed[4] = {50, 90, 99, 99.9};

	return p->npct ? p->pct[k] : fixed[k];
}

static inline uint64_t step_pct_ns(const struct step_point *p, uint32_t k)
{
	const uint64_t fixed[4] = {p->p50_ns, p->p90_ns, p->p99_ns, p->p999_ns};

	return p->npct ? p->pct_ns[k] : fixed[k];
}

/*
 * The latency a step is judged on, in ns: the storage's (submission to completion), or
 * the response latency from the due time when the point was made with slo.from: due.
 */
static inline double step_metric(const struct step_point *p, enum slo_metric m)
{
	/* slo.part: the part's latency, from the due time as a part records it */
	if (p->slo_part >= 0 && (uint32_t)p->slo_part < p->nparts) {
		const struct point_part *pp = &p->parts[p->slo_part];

		return m == SLO_P50    ? (double)pp->p50_ns
		       : m == SLO_P90  ? (double)pp->p90_ns
		       : m == SLO_P99  ? (double)pp->p99_ns
		       : m == SLO_P999 ? (double)pp->p999_ns
		                       : pp->mean_ns;
	}
	switch (m) {
	case SLO_P50:
		return (double)(p->slo_due ? p->p50_ns : p->svc_p50_ns);
	case SLO_P90:
		return (double)(p->slo_due ? p->p90_ns : p->svc_p90_ns);
	case SLO_P99:
		return (double)(p->slo_due ? p->p99_ns : p->svc_p99_ns);
	case SLO_P999:
		return (double)(p->slo_due ? p->p999_ns : p->svc_p999_ns);
	default:
		return p->slo_due ? p->mean_ns : p->svc_mean_ns;
	}
}

#endif
