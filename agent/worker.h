/* SPDX-License-Identifier: MIT */
/* A worker: one forked process, one io_uring ring, one target file. */
#ifndef IOCURVE_WORKER_H
#define IOCURVE_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include "rw.h"
#include "shm.h"

struct worker_config {
	unsigned index;     /* worker number within this agent, indexes step->rate */
	const char *path;   /* target file; already checked against the allow-list */
	uint64_t file_size; /* bytes; a multiple of block_size */
	bool direct;        /* O_DIRECT */
	enum rw_mode rw;
	uint32_t block_size;
	uint32_t queue_depth;
	uint64_t seed;           /* for random offsets and data */
	struct shm_step *step;   /* read-only for the worker */
	struct shm_worker *slot; /* this worker's own slot */
	int wake_fd;             /* eventfd: the agent wrote a new step */
	int notify_fd;           /* eventfd: the worker published an interval or changed state */
};

/*
 * Runs in the forked child until the step block says stop: opens the target,
 * lays it out if needed (whole file written once, so writes overwrite data),
 * sets up its ring, reports READY (or FAILED with a message naming the path),
 * then runs every step it is given. Returns the process exit status.
 */
int worker_run(const struct worker_config *cfg);

#endif
