/* SPDX-License-Identifier: MIT */
/* The shared-memory region between an agent and its workers, made before fork. */
#ifndef IOCURVE_SHM_H
#define IOCURVE_SHM_H

#include <stdatomic.h>
#include <stdint.h>

#include "record.h"

/*
 * One direction per part:
 *  - struct shm_step is written by the agent only, as a seqlock: gen is odd
 *    while the fields are being written (shm_step_write_begin/end), even once
 *    they are whole; then the agent writes 1 to each worker's wake eventfd. A
 *    worker copies the fields between two reads of gen and keeps the copy only
 *    when both reads saw the same even value.
 *  - struct shm_worker is written by its worker only. A finished interval is
 *    written into slots[published % SHM_SLOTS], then published is bumped with a
 *    release store and the worker writes 1 to the agent's eventfd. The agent
 *    reads published with an acquire load and consumes slots in order; the ring
 *    gives it SHM_SLOTS intervals of slack.
 *  - alive_ns in struct shm_step is outside the seqlock: the agent stores its
 *    CLOCK_MONOTONIC each time it hears the coordinator (shm_alive); a worker in
 *    a step that finds it older than deadman_ns (set before fork) stops issuing,
 *    drains and exits: the worker's dead-man, for an agent that is dead, stopped
 *    or cut off from its coordinator.
 */
#define SHM_SLOTS 16

enum shm_worker_state {
	SHM_WORKER_STARTING = 0, /* forked, opening and laying out its target */
	SHM_WORKER_READY,        /* target laid out, ring set up, waiting for steps */
	SHM_WORKER_FAILED,       /* gave up; error[] says why; the worker exits */
};

struct shm_step {
	_Atomic uint64_t gen; /* 0: no step yet; odd: being written */
	uint32_t workload_index;
	uint32_t step;
	uint64_t start_ns; /* agent CLOCK_MONOTONIC */
	uint64_t interval_ns;
	uint32_t nintervals;       /* warm-up plus measured intervals */
	uint32_t stop;             /* 1: finish in-flight I/O and exit */
	_Atomic uint64_t alive_ns; /* the agent last heard the coordinator (agent clock) */
	uint64_t deadman_ns;       /* 0: no dead-man */
	uint64_t work_ops;         /* fixed work: each worker stops after this many (0: timed) */
	uint64_t think_ns;         /* fixed work, closed loop: a slot's wait after a completion */
	struct shm_plan {
		double rate;       /* offered ops/s (0: closed loop at the queue depth) */
		uint64_t start_ns; /* fixed work: the worker starts this long after start_ns */
	} plan[];                  /* per worker, indexed by worker */
};

/* Agent side of the seqlock: gen turns odd, the fields are rewritten... */
static inline void shm_step_write_begin(struct shm_step *st)
{
	atomic_fetch_add_explicit(&st->gen, 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
}

/* ...and gen turns even again: the new generation, which intervals carry. */
static inline uint64_t shm_step_write_end(struct shm_step *st)
{
	return atomic_fetch_add_explicit(&st->gen, 1, memory_order_release) + 1;
}

/* Agent side of the dead-man: the supervision chain was alive at now_ns. */
static inline void shm_alive(struct shm_step *st, uint64_t now_ns)
{
	atomic_store_explicit(&st->alive_ns, now_ns, memory_order_relaxed);
}

/* Worker side: nanoseconds the agent has been silent past the dead-man, or 0. */
static inline uint64_t shm_deadman_overdue(const struct shm_step *st, uint64_t now_ns)
{
	uint64_t alive = atomic_load_explicit(&st->alive_ns, memory_order_relaxed);

	if (st->deadman_ns == 0 || now_ns < alive || now_ns - alive <= st->deadman_ns)
		return 0;
	return now_ns - alive;
}

struct shm_interval {
	uint64_t gen;   /* the step generation it belongs to */
	uint32_t index; /* interval index within the step, from 0 */
	uint32_t pad;
	/* fixed work: operations completed since the step started (failed ones too)... */
	uint64_t work_done;
	/* ...and, once all were, the time from the worker's own start to the last (else 0) */
	uint64_t work_done_ns;
	struct record rec; /* an operation counts in the interval in which it completes */
};

struct shm_worker {
	_Atomic uint32_t state; /* enum shm_worker_state */
	char error[512];
	uint64_t deadman_ns; /* failed on its dead-man: the agent was silent this long (else 0) */
	bool storage_lost;   /* failed because its storage stopped answering (an NFS server) */
	uint64_t bytes_laid_out;
	_Atomic uint64_t published;
	struct shm_interval slots[SHM_SLOTS];
};

#endif
