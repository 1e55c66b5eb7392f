/* SPDX-License-Identifier: MIT */
/*
 * The method's thresholds, one name per idea: every number the judgement of a step
 * (verdict.c, aggregate.c, step.c), of a curve (curve.c, limit.c, knee.c) and of a cap
 * (ratecap.c) reads. docs/methodology.md "Judging a step" names them.
 */
#ifndef IOCURVE_THRESHOLDS_H
#define IOCURVE_THRESHOLDS_H

/* --- a step --- */
/* A valid point keeps up with this share of the operations due in its window. */
#define THRESH_KEEP_UP 0.97
/* Fewer measured intervals than this are too few to judge. */
#define THRESH_MIN_INTERVALS 5
/* Closer than this on a log scale (0.5%), a step's latency is the SLO's: no length decides. */
#define THRESH_AT_SLO 0.005
/* The backlog may grow by this share of the window's operations (plus noise)... */
#define THRESH_BACKLOG_TOL 0.05
/* ...standard deviations of their count noise. */
#define THRESH_NOISE_Z 3.0
/* The client's tail is counted over the largest decade within this share of the SLO. */
#define THRESH_CLIENT_TAIL 0.10
/* At most this many batches of intervals for a 95% interval (batch means). */
#define THRESH_CI_BATCHES 10
/*
 * A host this busy, in % of its CPUs, has no CPU to spare: a late client is late again
 * before it catches up (client-bound), other work shares it (a stall's cause), and at the
 * peak it is the curve's limit where the storage did not queue.
 */
#define THRESH_HOST_BUSY_PCT 90.0
/* A worker this busy, in % of one core, paces at its own limit. */
#define THRESH_WORKER_BUSY_PCT 70.0
/* The hypervisor took this share of a host's CPU: it is named as the cause. */
#define THRESH_STEAL_PCT 10.0
/* An old agent's step whose queues were full this share of its time was not on schedule. */
#define THRESH_QUEUE_BOUND_PCT 10.0
/*
 * The device did this multiple of the client's operations or more: it served other
 * traffic too (another process, another partition of the disk), said with its figures.
 * An operation larger than the device's largest request (max_sectors_kb) counts as several.
 */
#define THRESH_DEV_SHARED 1.2

/* --- a curve --- */
/* The knee's bracket is narrow enough when within this share of its low end. */
#define THRESH_PRECISION 0.02
/* A knee is confirmed only with a band within this share of its low end. */
#define THRESH_CONFIRM_WIDTH 0.05
/* Queues full this much of the time at the peak: the client's queue depth set the pace... */
#define THRESH_QUEUE_LIMIT_PCT 50.0
/* ...and the peak within 5% of slots / service time (Little's law). */
#define THRESH_LITTLE_TOL 0.05
/* A service time grown past this multiple of the least seen: the storage is queueing. */
#define THRESH_SVC_GROWTH 2.0
/* The client's disk at its limit: busy (io_ticks) this share of the window, or more. */
#define THRESH_DISK_BUSY_PCT 90.0

/* --- a rate cap (ratecap.h says how they combine) --- */
#define THRESH_CAP_MIN_FLAT 2
#define THRESH_CAP_QUEUED   2.0
#define THRESH_CAP_NEAR     0.85
#define THRESH_CAP_LOW      0.50
#define THRESH_CAP_FAST     1.25
#define THRESH_CAP_MAX_FLAT 16
#define THRESH_CAP_BATCHES  10

#endif
