/* SPDX-License-Identifier: MIT */
/*
 * A worker: one stream of operations on one target file, with its own rate, slots and
 * figures. A process drives one or more of them (worker_run_streams) from one io_uring
 * ring; the pool runs one process per CPU the workers may use.
 */
#ifndef IOCURVE_WORKER_H
#define IOCURVE_WORKER_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "datagen.h"
#include "engine.h"
#include "pacer.h"
#include "pattern.h"
#include "replay.h"
#include "rw.h"
#include "setting.h"
#include "shm.h"

/*
 * A workload's plan on this agent: what the pool is started with and, with a worker's
 * own fields set, what each worker runs. One struct for both, so the pool hands its
 * workers a copy rather than their fields one by one. Zero is a sane default for every
 * field a caller does not care about (uniform random, whole target, incompressible
 * unique data, precise timing).
 */
struct io_plan {
	/* rw, block_size, queue_depth, access, data, timing: as Prepare carried them */
	struct io_settings io;
	uint32_t workload_index;
	const char *dir;         /* resolved target directory or block device (allow-checked) */
	const char *file_prefix; /* worker w uses DIR/PREFIX-wW.dat (a file set: .set) */
	int target_fd;           /* > 0: O_PATH fd of dir (files) or of the device, checked; workers
	                            open through it, never by path */
	bool device;          /* the target is a block device the workers share, never laid out */
	uint64_t file_size;   /* file: bytes laid out; device: bytes of it to use */
	uint64_t lateness_ns; /* precise: an operation may go out this late (0: no budget) */
	bool queue_sized;     /* queue_depth sized from the load: a slot's wait is the storage's */
	uint32_t phase_base;  /* fleet index of worker 0: a worker's is phase_base + index */
	uint32_t phase_total; /* workers in the fleet; uniform arrivals start at index/total */
	const struct engine_sim_params *sim; /* set: simulated devices, no files */
	const struct engine_nfs_params *nfs; /* set: dir and path are nfs:// URLs in its export */
	/* ncpus > 0: the workers run on these CPUs, where the target's completions land */
	cpu_set_t cpus;
	int ncpus;
	uint64_t deadman_ns; /* workers stop when pool_alive is this old (0: never) */
	/* set: a trace replayed (agent/replay.h), each worker its share, not the pattern */
	const struct replay_set *replay;
	/* a file workload: a create past this many files in a worker's set fails (EDQUOT) */
	uint64_t max_files;

	/* One worker's own: the pool sets them for each (worker_run reads only these). */
	unsigned index;          /* worker number within this agent, indexes step->rate */
	const char *path;        /* target file or block device; unused with sim */
	uint64_t region_offset;  /* the part of the target this worker touches */
	uint64_t region_len;     /* 0: [0, file_size) */
	uint64_t seed;           /* for random offsets and data */
	struct shm_step *step;   /* read-only for the worker */
	struct shm_worker *slot; /* this worker's own slot */
	/*
	 * A mix's parts for each of slot's SHM_SLOTS intervals (io.mix.nparts apiece, in the
	 * shared mapping after the slots; NULL for a plain workload): a slot's record points
	 * here, an address the agent shares since the mapping was made before the fork.
	 */
	struct record_part *slot_parts;
	int wake_fd;   /* eventfd: the agent wrote a new step */
	int notify_fd; /* eventfd: the worker published an interval or changed state */
};

/*
 * Runs in the forked child until the step block says stop: opens the target,
 * lays it out if needed (whole file written once, so writes overwrite data),
 * sets up its ring, reports READY (or FAILED with a message naming the path),
 * then runs every step it is given. Returns the process exit status.
 */
int worker_run(const struct io_plan *cfg);

/* Streams one process drives at most (worker_run_streams). */
#define WORKER_STREAMS_MAX 256

/*
 * n streams in this one process: each cfgs[i] a worker's plan as worker_run takes it
 * (its own file, slot and rate), all of one workload, sharing one io_uring ring of n x
 * queue_depth slots over their files and one wake eventfd (cfgs[0].wake_fd); each
 * stream's figures are its own, the process's CPU split between them. The sim takes
 * one stream a process. Returns the process exit status.
 */
int worker_run_streams(const struct io_plan *cfgs, unsigned n);

/*
 * Test hook, not for production: when the environment names a file prefix in
 * WORKER_TEST_INTENDED_ENV, every worker appends the intended start time (this
 * host's CLOCK_MONOTONIC, ns, one decimal per line) of each operation it issues
 * to PREFIX.<pid>, written at each step's end. tests/integration/phase.sh reads
 * them to check that a fleet's merged arrivals are even.
 */
#define WORKER_TEST_INTENDED_ENV "IOCURVE_TEST_INTENDED"

#endif
