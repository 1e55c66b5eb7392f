/* SPDX-License-Identifier: MIT */
/* Tests' stand-in for the agent's pool: shared memory, eventfds and forked real workers. */
#ifndef IOCURVE_WORKER_RIG_H
#define IOCURVE_WORKER_RIG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "clock.h"
#include "shm.h"
#include "worker.h"

#define WT_FILE_SIZE (16u << 20)
#define WT_MAX       4
/* The agent's view of a step that starts a little after it is announced. */
#define WT_LEAD_NS (50 * NSEC_PER_MSEC)

/* Directory of the tests' target files (the test program makes it). */
extern char wt_dir[64];

/* What the agent holds: the shared region, the eventfds and the forked workers. */
struct wt_rig {
	struct shm_step *step;
	size_t step_size;
	struct shm_worker *slots;
	size_t slots_size;
	unsigned n;
	int wake_fd[WT_MAX];
	int notify_fd[WT_MAX];
	pid_t pid[WT_MAX];
	char path[WT_MAX][128];
	uint64_t consumed[WT_MAX];
};

struct wt_worker_opts {
	const char *name; /* file name in wt_dir; NULL: path is given (or sim) */
	const char *path;
	enum rw_mode rw;
	uint32_t block_size;
	uint32_t queue_depth;
	bool direct;
	bool blocking_wake;
	const struct engine_sim_params *sim; /* set: the sim engine, no file */
	bool poisson;
	enum pacer_mode timing;
	uint32_t phase_index, phase_total;
	bool queue_sized; /* the campaign gave no queue_depth: a slot's wait is the storage's */
};

struct wt_rig *wt_rig_new(unsigned n);
/* Fork worker i, the way the agent does: the child runs worker_run and nothing else. */
void wt_fork(struct wt_rig *r, unsigned i, const struct wt_worker_opts *o);
/*
 * Fork all r->n workers as streams of one process (worker_run_streams), o[i] each one's;
 * r->pid[0] is the process (the others 0).
 */
void wt_fork_streams(struct wt_rig *r, const struct wt_worker_opts *o);
/* Sleep on worker i's notify eventfd until it changes state or publishes; false on timeout. */
bool wt_wait_notify(struct wt_rig *r, unsigned i, uint64_t deadline_ns);
uint32_t wt_wait_state(struct wt_rig *r, unsigned i);
void wt_ready(struct wt_rig *r, unsigned i);
void wt_wake_all(struct wt_rig *r);
/* Announce a step the way the agent does: the seqlock write, then the wake. */
uint64_t wt_step(struct wt_rig *r, uint64_t interval_ns, uint32_t nintervals, const double *rates);
/* Collect worker i's next n intervals into out; they must be intervals 0..n-1 of gen. */
void wt_collect(struct wt_rig *r, unsigned i, uint64_t gen, uint32_t n, struct shm_interval *out);
/* Ask for the stop and reap every worker; each must exit 0 within a second. */
void wt_rig_free(struct wt_rig *r);

#endif
