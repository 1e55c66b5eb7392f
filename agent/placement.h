/* SPDX-License-Identifier: MIT */
/*
 * Where an agent's processes run: its workers where the target's completions land, one
 * process on a CPU each, and its own loop (reports, heartbeats, TLS) beside them
 * (docs/methodology.md, "Where the workers run").
 */
#ifndef IOCURVE_PLACEMENT_H
#define IOCURVE_PLACEMENT_H

#include <sched.h>
#include <stddef.h>

#include "kview.h"
#include "worker.h"

/*
 * Set in the agent's environment: its workers run wherever the scheduler puts them, not
 * where the target's completions land (tools/bench-shapes compares the two).
 */
#define PLACEMENT_ANYWHERE_ENV "IOCURVE_WORKERS_ANYWHERE"

/*
 * Where a block device's completions land. A disk's: the CPUs its interrupts land on
 * (irqcpu.h). A loop device's: its backing file's disk's, or, for a backing file in
 * memory (tmpfs, ramfs), the CPU that submitted the request: the loop's kernel thread
 * completes it there through ksoftirqd, which wakes the worker, and a worker left to move
 * is woken on the other, idle CPU (traced: 84-98 us a 4 KiB read against 18-36 us kept on
 * one CPU). PLACEMENT_IRQS: the CPUs in *set; PLACEMENT_SUBMITTER: wherever the worker
 * runs, so each is kept on one CPU; PLACEMENT_UNKNOWN: why says why. why is "" or says
 * how a loop was followed.
 */
enum placement_where { PLACEMENT_UNKNOWN, PLACEMENT_IRQS, PLACEMENT_SUBMITTER };
enum placement_where placement_completions(const struct kview *kv, cpu_set_t *set, char *why,
                                           size_t len);

/*
 * pp's CPUs (pp->cpus, pp->ncpus; none: wherever the scheduler puts them) for a target
 * whose kernel view is kv, among the CPUs allowed (NULL: unknown, nothing placed). Each
 * worker process then runs on one CPU of them (pool.c).
 */
void placement_workers(const struct kview *kv, const cpu_set_t *allowed, struct io_plan *pp,
                       const char *target);

/*
 * The agent's own loop off the CPUs its workers were placed on, when it may use others:
 * there it would delay their wakes by its own run time. pp NULL or placed nowhere: the
 * CPUs allowed again.
 */
void placement_own_cpus(const cpu_set_t *allowed, const struct io_plan *pp);

#endif
