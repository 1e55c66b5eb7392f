/* SPDX-License-Identifier: MIT */
/*
 * A worker's wait for a CPU, from the scheduler's own account of its thread
 * (/proc/thread-self/schedstat: time on a CPU, time runnable but waiting for
 * one, times it was run), and the reap delay that wait implies where the engine
 * does not know when an operation completed (io_uring: a completion is seen
 * when the worker next runs, and its latency and service time count until then).
 */
#ifndef IOCURVE_SCHEDWAIT_H
#define IOCURVE_SCHEDWAIT_H

#include <stdint.h>

struct schedwait {
	int fd;           /* -1: the kernel keeps no such account (CONFIG_SCHED_INFO off) */
	uint64_t exec_ns; /* at the last mark */
	uint64_t wait_ns;
	uint64_t runs;
	uint64_t at_ns;
};

void schedwait_open(struct schedwait *s);
void schedwait_close(struct schedwait *s);
/* Start a span at now (a step's start, an interval's). */
void schedwait_mark(struct schedwait *s, uint64_t now);
/*
 * The mean delay, in ns, between an operation's completion and the worker seeing
 * it over the span since the last mark, estimated; then marks anew at now. 0 when
 * unknown. See schedwait_estimate.
 */
uint64_t schedwait_reap(struct schedwait *s, uint64_t now);
/*
 * Over a span of span_ns in which the thread ran exec_ns, waited wait_ns for a CPU
 * over `runs` times it was run: a completion landing while it slept wakes it, and it
 * then waits a whole mean wait (wait_ns / runs) for a CPU; one landing while it
 * waited, half of one; one landing while it ran, none. So the mean delay is
 * (P(asleep) + P(waiting) / 2) x the mean wait, the shares those of the span.
 */
double schedwait_estimate(uint64_t span_ns, uint64_t exec_ns, uint64_t wait_ns, uint64_t runs);

#endif
