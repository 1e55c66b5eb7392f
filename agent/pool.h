/* SPDX-License-Identifier: MIT */
/* The agent's worker pool: fork workers for a workload, drive steps, merge intervals. */
#ifndef IOCURVE_POOL_H
#define IOCURVE_POOL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <event2/event.h>

#include "engine.h"
#include "error.h"
#include "rw.h"
#include "shm.h"
#include "worker.h"

struct pool;

struct pool_cbs {
	/* Laying out targets: bytes written so far of the total, about once a second. */
	void (*on_progress)(void *arg, uint64_t done, uint64_t total);
	/* Every worker has laid out its target and set up its ring. */
	void (*on_ready)(void *arg, uint64_t bytes_laid_out, uint64_t layout_ns);
	/*
	 * A worker failed or died; the pool is unusable (pool_free it). deadman_ns: the
	 * worker stopped on its dead-man, the agent silent this long (0: another failure).
	 */
	void (*on_failed)(void *arg, const char *message, uint64_t deadman_ns, bool storage_lost);
	/*
	 * All workers' records for one interval, merged (workers in *merged_workers);
	 * fixed work: of them, finished had completed their work by its end.
	 */
	void (*on_interval)(void *arg, uint32_t step, uint32_t index,
	                    const struct shm_interval *merged, uint32_t merged_workers,
	                    uint32_t finished);
	/* The step's last interval has been delivered. */
	void (*on_step_done)(void *arg, uint32_t step, uint32_t intervals);
};

/*
 * Forks params->workers workers (the plan's io.workers), each with the plan and its own
 * fields; on_ready or on_failed follows on the event loop. */
struct pool *pool_start(struct event_base *base, const struct io_plan *params,
                        const struct pool_cbs *cbs, void *arg, struct error *err);
/*
 * Start step number `step` at start_ns (this host's CLOCK_MONOTONIC) with
 * rates[w] ops/s for worker w, for nintervals intervals of interval_ns.
 */
int pool_start_step(struct pool *p, uint32_t step, const double *rates, uint64_t start_ns,
                    uint64_t interval_ns, uint32_t nintervals, struct error *err);
/*
 * Fixed work for the next pool_start_step: each worker stops after work_ops
 * operations (0: a timed step), worker w starting offsets[w] after the step's
 * start (NULL: all at once); closed loop, a slot waits think_ns after a completion.
 */
void pool_set_work(struct pool *p, uint64_t work_ops, uint64_t think_ns, const uint64_t *offsets,
                   size_t noffsets);
/*
 * Whether work_ops operations per worker fit a sequential worker's region (its
 * file, working set, or share of a device) without wrapping around; -1 with err.
 */
int pool_work_fits(const struct pool *p, uint64_t work_ops, struct error *err);
/*
 * The step's fixed work so far, per worker (params.workers entries): the time
 * from its own start to its last completion (0: not finished) and the
 * operations it completed, as its latest interval delivered says.
 */
void pool_work(const struct pool *p, uint64_t *done_ns, uint64_t *ops);
/*
 * End step `step` now: workers drop the interval in progress; the intervals
 * already complete are delivered, then on_step_done with their count.
 */
void pool_end_step(struct pool *p, uint32_t step);
/* The agent heard the coordinator at now_ns: workers may go on (their dead-man). */
void pool_alive(struct pool *p, uint64_t now_ns);
/* A child exited (from the agent's SIGCHLD handler); true when it was one of ours. */
bool pool_child_exited(struct pool *p, pid_t pid, int status);
/* Tell workers to stop, reap them (SIGKILL after a grace period) and free. */
void pool_free(struct pool *p);

#endif
