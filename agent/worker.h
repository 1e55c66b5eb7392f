/* SPDX-License-Identifier: MIT */
/* A worker: one forked process, one io_uring ring, one target file. */
#ifndef IOCURVE_WORKER_H
#define IOCURVE_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include "datagen.h"
#include "engine.h"
#include "pacer.h"
#include "pattern.h"
#include "rw.h"
#include "shm.h"

/*
 * What one worker does. Zero is a sane default for every field a caller does
 * not care about (uniform random, whole target, incompressible unique data).
 */
struct worker_config {
	unsigned index;     /* worker number within this agent, indexes step->rate */
	const char *path;   /* target file or block device, allow-checked; unused with sim */
	uint64_t file_size; /* file: bytes laid out; device: bytes of it to use */
	bool device;        /* path is a block device: opened as it is, never laid out */
	int target_fd;      /* > 0: the agent's O_PATH fd of path's directory (files) or of the
	                       device; opened through it, never by path */
	bool direct;        /* O_DIRECT */
	enum rw_mode rw;
	uint32_t block_size;
	uint32_t queue_depth;
	/*
	 * Access pattern: read_pct, align, distribution, and the region this
	 * worker touches (region_len 0: [0, file_size)). rw, block_size and seed
	 * are taken from the fields above.
	 */
	struct pattern_config pattern;
	bool poisson;           /* arrivals: exponential gaps (else uniform) */
	enum pacer_mode timing; /* precise (sleep, then spin to the due time) or efficient */
	uint64_t wake_slack_ns; /* efficient: sleep at least this long between timed wakes */
	uint64_t lateness_ns;   /* precise: an operation may go out this late (0: no budget) */
	uint32_t phase_index;   /* this worker's number in the whole fleet, 0..phase_total-1 */
	uint32_t phase_total;   /* workers in the fleet; uniform arrivals start at index/total */
	struct datagen_config data;          /* compress_pct, dedupe_pct of written data */
	const struct engine_sim_params *sim; /* set: simulated device, no real I/O */
	uint64_t seed;                       /* for random offsets and data */
	struct shm_step *step;               /* read-only for the worker */
	struct shm_worker *slot;             /* this worker's own slot */
	int wake_fd;                         /* eventfd: the agent wrote a new step */
	int notify_fd; /* eventfd: the worker published an interval or changed state */
};

/*
 * Runs in the forked child until the step block says stop: opens the target,
 * lays it out if needed (whole file written once, so writes overwrite data),
 * sets up its ring, reports READY (or FAILED with a message naming the path),
 * then runs every step it is given. Returns the process exit status.
 */
int worker_run(const struct worker_config *cfg);

/*
 * Test hook, not for production: when the environment names a file prefix in
 * WORKER_TEST_INTENDED_ENV, every worker appends the intended start time (this
 * host's CLOCK_MONOTONIC, ns, one decimal per line) of each operation it issues
 * to PREFIX.<pid>, written at each step's end. tests/integration/phase.sh reads
 * them to check that a fleet's merged arrivals are even.
 */
#define WORKER_TEST_INTENDED_ENV "IOCURVE_TEST_INTENDED"

#endif
