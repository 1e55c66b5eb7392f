/* SPDX-License-Identifier: MIT */
/*
 * A trace replayed: the operations the coordinator sent (the agent never reads a
 * trace file), each worker's in time order, issued at their recorded times over the
 * step's speed. Read from Prepare once (params.c) and held here until the next
 * Prepare: the agent prepares one workload at a time, and its forked workers see
 * the set as it was when they were forked.
 */
#ifndef IOCURVE_REPLAY_H
#define IOCURVE_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "iocurve.pb-c.h"

/* The agent's bounds on a Prepare's replay (the coordinator's own are trace.h's). */
#define REPLAY_MAX_OPS       500000u
#define REPLAY_MAX_PERIOD_NS (24ull * 3600 * 1000000000ull)
#define REPLAY_MAX_RATE      1e9

struct replay_op {
	uint64_t t_ns;   /* from the trace's start, within the period */
	uint64_t offset; /* mapped into the worker's file: within it, 512-aligned */
	uint32_t len;
	bool write;
};

struct replay_set {
	struct replay_op *ops; /* every worker's, worker 0's first */
	uint32_t *first;       /* worker w's are ops[first[w] .. first[w + 1]) */
	uint32_t nworkers;
	uint64_t period_ns; /* the trace loops after this long (at x1) */
	double rate;        /* the whole trace's ops/s at x1, over the fleet */
};

/*
 * Check p's replay fields against their bounds (naming the field) and hold its
 * operations, offsets mapped into [0, file_size): modulo the size, moved back so
 * the operation fits, aligned down to 512 (O_DIRECT). *out is NULL when p replays
 * nothing. Lengths over block_size are refused (the workers' buffers hold one
 * block). Returns 0, or -1 with err.
 */
int replay_from_prepare(const Iocurve__Prepare *p, uint64_t file_size, uint32_t block_size,
                        const struct replay_set **out, struct error *err);

/* One worker's replay: where it is in its operations. No allocation, no syscall. */
struct replay_src {
	const struct replay_op *ops;
	uint32_t n;
	uint64_t period_ns;
	uint64_t start_ns;
	double speed;
	uint64_t k;                  /* operations returned since the start (every pass) */
	const struct replay_op *cur; /* the one replay_next returned last */
};

void replay_src_init(struct replay_src *r, const struct replay_set *set, unsigned worker);
/* A step from start_ns at speed (x1: as recorded); the trace starts over. */
void replay_src_start(struct replay_src *r, uint64_t start_ns, double speed);
/* The next operation's due time (absolute ns; UINT64_MAX: none), it in r->cur. */
uint64_t replay_next(struct replay_src *r);
/* How many operations not yet returned are due before t (a backlog's count). */
uint64_t replay_due_before(const struct replay_src *r, uint64_t t);

#endif
